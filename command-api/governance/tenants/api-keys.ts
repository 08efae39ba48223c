import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyMode = 'live' | 'test';

/** `gov_<mode>_<16 hex key id>_<43 base64url secret>`: the id finds the key, the hash checks it. */
const API_KEY = /^gov_(live|test)_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface IssuedKey {
  apiKey: string;
  keyId: string;
  keyHash: string;
}

export function issueApiKey(mode: KeyMode): IssuedKey {
  const keyId = randomBytes(8).toString('hex');
  const apiKey = `gov_${mode}_${keyId}_${randomBytes(32).toString('base64url')}`;
  return { apiKey, keyId, keyHash: hashApiKey(apiKey) };
}

/** SHA-256 is enough here: keys carry 256 random bits, so there is nothing to brute-force. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export function parseApiKey(apiKey: string): { mode: KeyMode; keyId: string } | null {
  const match = API_KEY.exec(apiKey);
  return match ? { mode: match[1] as KeyMode, keyId: match[2]! } : null;
}

/** Compares a presented key with a stored hash in constant time. */
export function apiKeyMatches(apiKey: string, storedHash: string): boolean {
  const presented = Buffer.from(hashApiKey(apiKey), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
