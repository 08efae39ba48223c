/**
 * Signed-note key strings, as Go's golang.org/x/mod/sumdb/note writes them. Portable (no Node APIs).
 *   verifier key: <name>+<hex key ID>+base64(<type byte> ‖ public key)
 *   signer key:   PRIVATE+KEY+<name>+<hex key ID>+base64(<type byte> ‖ Ed25519 seed)
 * Type 0x01 is an Ed25519 note signature (checkpoints), 0x04 a cosignature/v1 (witnesses).
 * Key IDs are the first 4 bytes of SHA-256(name ‖ "\n" ‖ type ‖ public key); checking them needs a
 * hash, so this module only parses and the callers (keys.ts, signature-checks.ts) verify.
 */
import { concatBytes, fromBase64, fromHex, toBase64, toHex, utf8 } from '../encoding/bytes';
import { isValidKeyName } from './note';

export const SIGNATURE_TYPE_ED25519 = 0x01;
export const SIGNATURE_TYPE_COSIGNATURE_V1 = 0x04;

export interface ParsedKey {
  readonly name: string;
  readonly keyId: Uint8Array;
  readonly type: number;
  /** Public key (verifier keys) or private seed (signer keys), without the type byte. */
  readonly material: Uint8Array;
}

export class KeyFormatError extends Error {
  override readonly name = 'KeyFormatError';
}

/** The bytes whose SHA-256 prefix is the key ID. */
export function keyIdPreimage(name: string, type: number, publicKey: Uint8Array): Uint8Array {
  return concatBytes(utf8(name), new Uint8Array([0x0a, type]), publicKey);
}

/** Splits `name+hexid+base64` at its first two '+' (the base64 part may contain more). */
function parseFields(text: string): ParsedKey {
  const first = text.indexOf('+');
  const second = first < 0 ? -1 : text.indexOf('+', first + 1);
  if (second < 0) throw new KeyFormatError('key must have the form name+keyid+base64');
  const name = text.slice(0, first);
  const idText = text.slice(first + 1, second);
  if (!isValidKeyName(name)) throw new KeyFormatError(`invalid key name ${JSON.stringify(name)}`);
  if (!/^[0-9a-f]{8}$/.test(idText)) throw new KeyFormatError('key ID must be 8 lowercase hex digits');
  let blob: Uint8Array;
  try {
    blob = fromBase64(text.slice(second + 1));
  } catch {
    throw new KeyFormatError('key material is not valid base64');
  }
  if (blob.length !== 33) throw new KeyFormatError('key material must be a type byte and 32 key bytes');
  const type = blob[0]!;
  if (type !== SIGNATURE_TYPE_ED25519 && type !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    throw new KeyFormatError(`unsupported signature type 0x${type.toString(16).padStart(2, '0')}`);
  }
  return { name, keyId: fromHex(idText), type, material: blob.slice(1) };
}

export function parseVerifierKeyText(text: string): ParsedKey {
  return parseFields(text.trim());
}

export function parseSignerKeyText(text: string): ParsedKey {
  const trimmed = text.trim();
  if (!trimmed.startsWith('PRIVATE+KEY+'))
    throw new KeyFormatError('signer key must start with PRIVATE+KEY+');
  return parseFields(trimmed.slice('PRIVATE+KEY+'.length));
}

export function formatVerifierKey(
  name: string,
  keyId: Uint8Array,
  type: number,
  publicKey: Uint8Array,
): string {
  return `${name}+${toHex(keyId)}+${toBase64(concatBytes(new Uint8Array([type]), publicKey))}`;
}

export function formatSignerKey(name: string, keyId: Uint8Array, type: number, seed: Uint8Array): string {
  return `PRIVATE+KEY+${formatVerifierKey(name, keyId, type, seed)}`;
}
