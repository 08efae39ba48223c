/**
 * The BYOK vault's cryptography, pure: AES-256-GCM with a data key per user, the data key wrapped by
 * the node's vault master key. Sealed values are `v1.<iv>.<tag>.<ciphertext>` (base64url, 12-byte IV,
 * 16-byte tag). Each seal binds its place as associated data (the user for a wrapped data key; user,
 * agent and provider for a model key), so a sealed value copied to another place does not open.
 *
 * Only a key's provider and prefix ever leave the vault: `vaultKeyPrefix` is what answers show.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes as cryptoRandomBytes } from 'node:crypto';
import type { RandomBytes } from './ids';

/** The three model providers whose keys the vault holds (the BYOK providers of the model port). */
export const VAULT_PROVIDERS = ['openai', 'anthropic', 'google'] as const;

export type VaultProvider = (typeof VAULT_PROVIDERS)[number];

export function isVaultProvider(value: unknown): value is VaultProvider {
  return typeof value === 'string' && (VAULT_PROVIDERS as readonly string[]).includes(value);
}

/** Characters of a stored key that answers show: enough to tell keys apart, never enough to use one. */
const VAULT_PREFIX_LENGTH = 8;

/** A model key as answers show it: its first 8 characters and an ellipsis. */
export function vaultKeyPrefix(apiKey: string): string {
  return `${apiKey.slice(0, VAULT_PREFIX_LENGTH)}…`;
}

/** A vault key (the master key or a data key) must be 32 bytes. */
function checked(key: Uint8Array, what: string): Uint8Array {
  if (key.length !== 32) throw new RangeError(`the vault ${what} must be 32 bytes, not ${key.length}`);
  return key;
}

const SEALED = /^v1\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]+)$/;

const defaultRandom: RandomBytes = (n) => cryptoRandomBytes(n);

function seal(key: Uint8Array, aad: string, plaintext: Uint8Array, random: RandomBytes): string {
  const iv = random(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', Buffer.from(iv), cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The plaintext, or null when the value is malformed or its tag does not verify (wrong key, place or bytes). */
function open(key: Uint8Array, aad: string, sealed: string): Buffer | null {
  const match = SEALED.exec(sealed);
  if (!match) return null;
  const [iv, tag, ciphertext] = match.slice(1).map((part) => Buffer.from(part, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
  ];
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    return null;
  }
}

/**
 * The master key's public name: 16 hex of HMAC-SHA256(key, a fixed label). Kept beside each wrapped
 * data key, so a server started with another master key says so instead of failing on a tag.
 */
export function vaultMasterKeyId(masterKey: Uint8Array): string {
  return createHmac('sha256', checked(masterKey, 'master key'))
    .update('gov vault master key id v1')
    .digest('hex')
    .slice(0, 16);
}

/** A new data key for a user, and the same key wrapped by the master key for its event. */
export function newVaultDataKey(
  masterKey: Uint8Array,
  userId: string,
  random: RandomBytes = defaultRandom,
): { dataKey: Buffer; wrapped: string } {
  const dataKey = Buffer.from(random(32));
  return { dataKey, wrapped: seal(checked(masterKey, 'master key'), `data-key:${userId}`, dataKey, random) };
}

/** The user's data key, or null when the master key is not the one it was wrapped with (or it was altered). */
export function unwrapVaultDataKey(masterKey: Uint8Array, userId: string, wrapped: string): Buffer | null {
  const dataKey = open(checked(masterKey, 'master key'), `data-key:${userId}`, wrapped);
  return dataKey?.length === 32 ? dataKey : null;
}

function entryPlace(userId: string, agentId: string, provider: VaultProvider): string {
  return `key:${userId}:${agentId}:${provider}`;
}

/** A model key sealed with the user's data key, bound to its user, agent and provider. */
export function sealVaultKey(
  dataKey: Uint8Array,
  place: { userId: string; agentId: string; provider: VaultProvider },
  apiKey: string,
  random: RandomBytes = defaultRandom,
): string {
  return seal(
    checked(dataKey, 'data key'),
    entryPlace(place.userId, place.agentId, place.provider),
    Buffer.from(apiKey, 'utf8'),
    random,
  );
}

/** The model key, or null when the data key or place is wrong or the sealed value was altered. */
export function openVaultKey(
  dataKey: Uint8Array,
  place: { userId: string; agentId: string; provider: VaultProvider },
  sealed: string,
): string | null {
  const plain = open(
    checked(dataKey, 'data key'),
    entryPlace(place.userId, place.agentId, place.provider),
    sealed,
  );
  return plain === null ? null : plain.toString('utf8');
}

const MASTER_HEX = /^[0-9a-fA-F]{64}$/;

/** `GOV_VAULT_KEY`: 64 hex characters (32 bytes); null for anything else. */
export function parseVaultMasterKey(text: string): Buffer | null {
  const trimmed = text.trim();
  return MASTER_HEX.test(trimmed) ? Buffer.from(trimmed, 'hex') : null;
}
