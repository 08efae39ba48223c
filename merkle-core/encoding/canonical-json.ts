/** RFC 8785 (JCS) canonical JSON: equal values always get the same text, so they hash and sign equally. */
import { fastCanonicalize } from './fast-canonical-json';

/** RFC 8785 (JCS) canonical JSON text of `value`; throws for values JSON cannot represent. */
export function canonicalJson(value: unknown): string {
  const text = fastCanonicalize(value);
  if (text === undefined) throw new TypeError('record has no JSON representation');
  return text;
}
