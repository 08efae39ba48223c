/**
 * Delivery signatures: `X-GOV-Signature-256: sha256=<lowercase hex HMAC-SHA256(secret, raw body bytes)>`,
 * the scheme GitHub uses, so receivers can check it with off-the-shelf code (e.g. @octokit/webhooks-methods).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-GOV-Signature-256';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/** The header value for `body`; a string body is signed as its UTF-8 bytes, exactly as it is sent. */
export function signatureHeader(secret: string, body: Buffer | string): string {
  return `sha256=${hmac(secret, body).toString('hex')}`;
}

/** Constant-time check of a received header; false (never a throw) for a missing or malformed one. */
export function verifySignatureHeader(
  secret: string,
  body: Buffer | string,
  header: string | null | undefined,
): boolean {
  const hex = typeof header === 'string' ? SIGNATURE.exec(header)?.[1] : undefined;
  if (!hex) return false;
  return timingSafeEqual(Buffer.from(hex, 'hex'), hmac(secret, body));
}

function hmac(secret: string, body: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}
