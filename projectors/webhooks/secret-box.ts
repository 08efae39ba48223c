/**
 * Webhook secrets at rest: AES-256-GCM under a 32-byte server key, sealed as
 * `v1.<iv>.<tag>.<ciphertext>` (each base64url, 12-byte IV, 16-byte tag). The webhook id is the
 * associated data, so a sealed secret copied onto another webhook does not open.
 */
import { createCipheriv, createDecipheriv, type KeyObject, randomBytes } from 'node:crypto';

export type SecretBoxKey = Uint8Array | KeyObject;

const SEALED = /^v1\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]*)$/;

/** `whsec_` + 32 random bytes in base64url: the secret a webhook gets when its owner gives none. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function sealSecret(key: SecretBoxKey, webhookId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', checkedKey(key), iv);
  cipher.setAAD(Buffer.from(webhookId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map(encode).join('.');
}

/** Throws when the text is not a sealed secret, or its tag does not verify (wrong key, webhook or bytes). */
export function openSecret(key: SecretBoxKey, webhookId: string, sealed: string): string {
  const match = SEALED.exec(sealed);
  if (!match) throw new Error('not a sealed webhook secret (expected v1.<iv>.<tag>.<ciphertext>)');
  const [iv, tag, ciphertext] = match.slice(1).map((part) => Buffer.from(part, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
  ];
  const decipher = createDecipheriv('aes-256-gcm', checkedKey(key), iv, { authTagLength: 16 });
  decipher.setAAD(Buffer.from(webhookId, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`the webhook secret of ${webhookId} does not open: wrong key, wrong webhook, or altered`);
  }
}

function checkedKey(key: SecretBoxKey): SecretBoxKey {
  const size = key instanceof Uint8Array ? key.length : key.symmetricKeySize;
  if (size !== 32) throw new RangeError(`the secret-box key must be 32 bytes, not ${size ?? 'asymmetric'}`);
  return key;
}

function encode(part: string | Buffer): string {
  return typeof part === 'string' ? part : part.toString('base64url');
}
