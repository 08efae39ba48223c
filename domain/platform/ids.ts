/**
 * The platform's identifiers and secrets: the one place where randomness enters the platform's domain.
 * Every generator takes an optional source of random bytes so that tests can pin it; production code
 * calls them without one (node:crypto's CSPRNG).
 */
import { randomBytes as cryptoRandomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../governance/hash';

/** Returns `n` random bytes. */
export type RandomBytes = (n: number) => Uint8Array;

const defaultRandom: RandomBytes = (n) => cryptoRandomBytes(n);

/** RFC 4648 base32 alphabet, lower-cased (ids are case-sensitive and spelled lower case everywhere). */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

const AGENT_ID = /^svc_[a-z2-7]{26}$/;
const USER_ID = /^usr_[0-9a-f]{24}$/;
const KEY_ID = /^key_[0-9a-f]{24}$/;
const SESSION_ID = /^ses_[0-9a-f]{24}$/;
const RAW_API_KEY = /^svc_sk_[A-Za-z0-9_-]{43}$/;
const LEAF_HASH_TEXT = /^sha256:([0-9a-f]{64})$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** Unpadded lower-case base32 of the bytes (16 bytes → 26 characters, the last one carrying 3 bits). */
export function base32Lower(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/** `svc_` + 26 base32 characters of 128 random bits. */
export function newAgentId(random: RandomBytes = defaultRandom): string {
  return `svc_${base32Lower(random(16))}`;
}

/** The form of an agent id (`svc_` + 26 of `a-z2-7`); an API key (`svc_sk_…`) is not one. */
export function isAgentId(value: unknown): value is string {
  return typeof value === 'string' && AGENT_ID.test(value);
}

/**
 * `usr_` + the first 24 hex digits of SHA-256 of the trimmed, lower-cased email: the same person's
 * stream is found from the email however they typed its case, and is created once.
 */
export function userIdOfEmail(email: string): string {
  return `usr_${sha256Hex(email.trim().toLowerCase()).slice(0, 24)}`;
}

export function isUserId(value: unknown): value is string {
  return typeof value === 'string' && USER_ID.test(value);
}

/** A freshly issued API key. Only `raw` is secret: it is shown once and never stored. */
export interface NewApiKey {
  /** `svc_sk_` + 43 base64url characters (32 random bytes). */
  raw: string;
  /** `key_` + 24 hex: names the key in routes and events. */
  keyId: string;
  /** The first 14 characters of `raw`, shown in lists so a person can tell keys apart. */
  prefix: string;
  /** hex SHA-256 of `raw`: what is stored. */
  hash: string;
}

/** Characters of a raw key shown as its prefix (`svc_sk_` + 7 of the secret: 42 bits, not enough to guess the rest). */
export const API_KEY_PREFIX_LENGTH = 14;

export function newApiKey(random: RandomBytes = defaultRandom): NewApiKey {
  const raw = `svc_sk_${Buffer.from(random(32)).toString('base64url')}`;
  return {
    raw,
    keyId: `key_${hex(random(12))}`,
    prefix: raw.slice(0, API_KEY_PREFIX_LENGTH),
    hash: hashApiKey(raw),
  };
}

/** Whether a presented bearer token has the form of a platform API key (before any lookup). */
export function isRawApiKey(value: unknown): value is string {
  return typeof value === 'string' && RAW_API_KEY.test(value);
}

export function isKeyId(value: unknown): value is string {
  return typeof value === 'string' && KEY_ID.test(value);
}

/** SHA-256 is enough: a key carries 256 random bits, so a slow hash would protect nothing more. */
export function hashApiKey(raw: string): string {
  return sha256Hex(raw);
}

/** Whether a presented raw key hashes to the stored hash, compared in constant time. */
export function apiKeyMatches(raw: string, storedHash: string): boolean {
  if (!HEX64.test(storedHash)) return false;
  return timingSafeEqual(Buffer.from(hashApiKey(raw), 'hex'), Buffer.from(storedHash, 'hex'));
}

/** `ses_` + 24 hex (96 random bits). */
export function newSessionId(random: RandomBytes = defaultRandom): string {
  return `ses_${hex(random(12))}`;
}

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value);
}

/** A commitment nonce: 32 random bytes as 64 hex digits (kept in the private event, never in a leaf). */
export function newNonce(random: RandomBytes = defaultRandom): string {
  return hex(random(32));
}

/** A leaf hash as the platform's API writes it: `sha256:<64 hex>`. */
export function leafHashText(leafHashHex: string): string {
  if (!HEX64.test(leafHashHex)) throw new Error('a leaf hash is 64 lowercase hex digits');
  return `sha256:${leafHashHex}`;
}

/** The 64 hex digits of `sha256:<hex>`, or null for anything else (upper case, other algorithms, bare hex). */
export function parseLeafHashText(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  return LEAF_HASH_TEXT.exec(text)?.[1] ?? null;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
