/** Leaf data for records: their RFC 8785 canonical JSON, so equal records always hash equally. */
import canonicalize from 'canonicalize';
import { utf8 } from './bytes';
import { leafHash } from './hash';

/** RFC 8785 (JCS) canonical JSON text of `record`; throws for values JSON cannot represent. */
export function canonicalJson(record: unknown): string {
  const text = canonicalize(record);
  if (text === undefined) throw new TypeError('record has no JSON representation');
  return text;
}

/** The leaf data of a record: the UTF-8 bytes of its canonical JSON. */
export function leafDataOfRecord(record: unknown): Uint8Array {
  return utf8(canonicalJson(record));
}

/** RFC 9162 leaf hash of a record's canonical JSON: SHA-256(0x00 ‖ JCS(record)). */
export function leafHashOfRecord(record: unknown): Uint8Array {
  return leafHash(leafDataOfRecord(record));
}
