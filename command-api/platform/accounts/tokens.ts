import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A bearer secret of the platform: 32 random bytes, base64url (sign-in links, session cookies, WS tickets). */
export function issueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of a secret. SHA-256 is enough: the secrets carry 256 random bits. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compares two hex hashes in constant time. */
export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** The shape of a token `issueToken` makes: anything else is refused before any lookup. */
export const TOKEN = /^[A-Za-z0-9_-]{43}$/;
