/** Byte helpers that run unchanged in Node and in browsers (no Buffer). */

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < BASE64_ALPHABET.length; i++) BASE64_LOOKUP[BASE64_ALPHABET.charCodeAt(i)] = i;

/** Each byte's two lowercase hex digits, and each ASCII code's hex value (-1: not a hex digit). */
const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const HEX_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUES['0123456789abcdef'.charCodeAt(i)] = i;
  HEX_VALUES['0123456789ABCDEF'.charCodeAt(i)] = i;
}

const utf8Encoder = new TextEncoder();

/** Standard base64 with padding (RFC 4648 §4). */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out +=
      BASE64_ALPHABET[n >> 18]! +
      BASE64_ALPHABET[(n >> 12) & 63]! +
      BASE64_ALPHABET[(n >> 6) & 63]! +
      BASE64_ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += `${BASE64_ALPHABET[n >> 18]!}${BASE64_ALPHABET[(n >> 12) & 63]!}==`;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += `${BASE64_ALPHABET[n >> 18]!}${BASE64_ALPHABET[(n >> 12) & 63]!}${BASE64_ALPHABET[(n >> 6) & 63]!}=`;
  }
  return out;
}

/**
 * Strict standard base64 decoding: padding required, no whitespace, and unused trailing bits must be
 * zero, so every byte string has exactly one accepted encoding (signed formats depend on that).
 */
export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new Error('base64: length is not a multiple of 4');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const values = [0, 0, 0, 0];
    for (let j = 0; j < 4; j++) {
      const code = text.charCodeAt(i + j);
      if (last && code === 61 /* = */ && j >= 4 - padding) continue;
      const value = code < 128 ? BASE64_LOOKUP[code]! : -1;
      if (value < 0) throw new Error('base64: invalid character');
      values[j] = value;
    }
    const n = (values[0]! << 18) | (values[1]! << 12) | (values[2]! << 6) | values[3]!;
    out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
    if (last && padding === 2 && (n & 0xffff) !== 0) throw new Error('base64: non-canonical padding bits');
    if (last && padding === 1 && (n & 0xff) !== 0) throw new Error('base64: non-canonical padding bits');
  }
  return out;
}

/** Lowercase hexadecimal. By table: hashes are hex-encoded on every admission and proof. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX_PAIRS[bytes[i]!]!;
  return out;
}

/** Strict hexadecimal decoding (either case, even length). */
export function fromHex(text: string): Uint8Array {
  if (text.length % 2 !== 0) throw new Error('hex: invalid string');
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const high = hexValue(text.charCodeAt(2 * i));
    const low = hexValue(text.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) throw new Error('hex: invalid string');
    out[i] = (high << 4) | low;
  }
  return out;
}

function hexValue(code: number): number {
  return code < 128 ? HEX_VALUES[code]! : -1;
}

export function utf8(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** 8-byte big-endian encoding of a safe integer. */
export function uint64BigEndian(value: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value));
  return out;
}

/** Reads an 8-byte big-endian unsigned integer as a bigint. */
export function readUint64BigEndian(bytes: Uint8Array, offset: number): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset);
}
