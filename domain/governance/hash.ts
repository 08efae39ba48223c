/** SHA-256 as lowercase hex: every hash the domain publishes is spelled this way. */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../merkle-core';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** hex SHA-256 of UTF-8 text or raw bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** hex SHA-256 of a record's RFC 8785 canonical JSON: equal records hash equally on every platform. */
export function canonicalHash(record: unknown): string {
  return sha256Hex(canonicalJson(record));
}

export function isSha256Hex(value: unknown): value is string {
  return typeof value === 'string' && SHA256_HEX.test(value);
}
