/**
 * Ed25519 signatures over canonical JSON, base64 (standard, padded). Votes and envelopes are signed
 * the same way, so a third party needs one recipe to check both.
 */
import { type KeyObject, verify } from 'node:crypto';
import { canonicalJson, signEd25519 } from '../../merkle-core';
import { sha256Hex } from './hash';

export function signRecord(record: unknown, privateKey: KeyObject): string {
  return signEd25519(privateKey, Buffer.from(canonicalJson(record), 'utf8')).toString('base64');
}

/** False (never a throw) for a wrong key, a malformed signature or a record JSON cannot represent. */
export function verifyRecord(record: unknown, signature: string, publicKey: KeyObject): boolean {
  // Node's base64 decoder skips junk characters; insist on the one canonical spelling instead.
  const bytes = Buffer.from(signature, 'base64');
  if (bytes.length !== 64 || bytes.toString('base64') !== signature) return false;
  try {
    return verify(null, Buffer.from(canonicalJson(record), 'utf8'), publicKey, bytes);
  } catch {
    return false;
  }
}

/** hex SHA-256 of the key's DER SubjectPublicKeyInfo: a stable id that anyone holding the key can derive. */
export function publicKeyId(publicKey: KeyObject): string {
  return sha256Hex(publicKey.export({ type: 'spki', format: 'der' }));
}

/** A copy of `record` without `field`: the signed or hashed preimage of a record that carries its own proof. */
export function without<T extends object, K extends keyof T>(record: T, field: K): Omit<T, K> {
  const { [field]: _omitted, ...rest } = record;
  return rest;
}
