/**
 * The bearer secrets of accounts: the session cookie's token, sign-in links' tokens and WebSocket
 * tickets. Each carries 256 random bits; only its SHA-256 is stored (enough: there is nothing to
 * brute-force), and a presented one is compared with the stored hashes in constant time.
 *
 * A sign-in token (`sit_`) and a ticket (`wst_`) also name their user (the 24 hex of its id), so the
 * process that receives one finds the user's stream, where it is decided, without any lookup.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../../../domain/governance/hash';

/** 32 random bytes, base64url (43 characters): a session cookie's value. */
export function issueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of a secret. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** Compares two hex hashes in constant time. */
export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** The shape of a token `issueToken` makes: anything else is refused before any lookup. */
export const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** `sit_`: a sign-in link's token; `wst_`: a WebSocket ticket. */
export type UserTokenKind = 'sit' | 'wst';

/** A new secret bound to a user: `<kind>_<24 hex of the user id>_<43 base64url>`. */
export function issueUserToken(kind: UserTokenKind, userId: string): string {
  return `${kind}_${userId.slice('usr_'.length)}_${issueToken()}`;
}

const USER_TOKEN = /^(sit|wst)_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;

/** The user a `kind` token names, or null when it does not have that token's shape. */
export function userOfToken(kind: UserTokenKind, token: string): string | null {
  const match = USER_TOKEN.exec(token);
  return match && match[1] === kind ? `usr_${match[2]}` : null;
}
