/**
 * The key files of `<data>/keys` (mode 0600, folder 0700) and the public part of each:
 *   log.key              the log's checkpoint key (C2SP note signer key; its name is the log origin)
 *   authority.pem        the clearinghouse node key that signs every envelope (Ed25519, PKCS#8)
 *   validator-N.pem      the in-process validators of the round (Ed25519, PKCS#8), N = 1..4
 *   webhook-secrets.key  the AES-256-GCM key webhook signing secrets are sealed with at rest
 *   vault-master.key     the platform vault's master key (AES-256-GCM): it wraps each user's data key
 * The first six are signing keys ("slots"); they can be rotated (see key-rotation.ts). The webhook and
 * vault keys are not signing keys and are never rotated: what was sealed with them would no longer open.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { validatorIdOf } from '../../domain/governance/validators';
import { generateKeyPair, loadSignerKey, type NoteSigner, toHex } from '../../merkle-core';
import { createFileAtomic } from '../support/atomic-file';

export const VALIDATOR_COUNT = 4;

/** A signing key's place in the keys folder. */
export type KeySlot = 'log' | 'authority' | `validator-${number}`;

export function validatorSlot(n: number): KeySlot {
  if (!Number.isInteger(n) || n < 1 || n > VALIDATOR_COUNT)
    throw new RangeError(`validator numbers go from 1 to ${VALIDATOR_COUNT} (got ${n})`);
  return `validator-${n}`;
}

export const VALIDATOR_SLOTS: readonly KeySlot[] = Array.from({ length: VALIDATOR_COUNT }, (_, i) =>
  validatorSlot(i + 1),
);
export const SIGNING_SLOTS: readonly KeySlot[] = ['log', 'authority', ...VALIDATOR_SLOTS];
export const WEBHOOK_SECRET_FILE = 'webhook-secrets.key';
const VAULT_MASTER_FILE = 'vault-master.key';

export function keysDirOf(dataDir: string): string {
  return path.join(dataDir, 'keys');
}

export function keyFileName(slot: KeySlot): string {
  return slot === 'log' ? 'log.key' : `${slot}.pem`;
}

/** The public part of a signing key: what history keeps and what verifiers need. */
export type PublicKeyInfo =
  | { kind: 'log'; verifier_key: string; key_id: string }
  | { kind: 'authority'; node_id: string; public_key: string }
  | { kind: 'validator'; slot: number; validator_id: string; public_key: string };

function spkiBase64(publicKey: KeyObject): string {
  return publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

/** The private key text of a fresh key for `slot` (log keys are named after `logOrigin`). */
export function newKeyText(slot: KeySlot, logOrigin: string): string {
  if (slot === 'log') return `${generateKeyPair(logOrigin).signerKey}\n`;
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A fresh webhook sealing key (or vault master key): 32 random bytes in base64. */
export function newWebhookSecretText(): string {
  return `${randomBytes(32).toString('base64')}\n`;
}

export function parseLogSigner(text: string): NoteSigner {
  return loadSignerKey(text.trim());
}

export function parseEd25519(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`holds a ${key.asymmetricKeyType} key, not an Ed25519 one`);
  return key;
}

/** The public part of the private key `text` of `slot`. */
export function publicKeyInfo(slot: KeySlot, text: string): PublicKeyInfo {
  if (slot === 'log') {
    const signer = parseLogSigner(text);
    return { kind: 'log', verifier_key: signer.verifierKey, key_id: toHex(signer.keyId) };
  }
  const publicKey = createPublicKey(parseEd25519(text));
  if (slot === 'authority')
    return { kind: 'authority', node_id: authorityNodeIdOf(publicKey), public_key: spkiBase64(publicKey) };
  return {
    kind: 'validator',
    slot: Number(slot.slice('validator-'.length)),
    validator_id: validatorIdOf(publicKey),
    public_key: spkiBase64(publicKey),
  };
}

/** A key file that cannot be read as the key it should hold. */
export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
}

export interface CurrentKey {
  slot: KeySlot;
  file: string;
  /** The private key, as stored. */
  text: string;
  info: PublicKeyInfo;
  /** When the key file was written (its modification time: key files are only ever replaced whole). */
  created_at: string;
}

/** The key of `slot`, or null when its file does not exist; throws naming the file when it is unreadable. */
export function readCurrentKey(keysDir: string, slot: KeySlot): CurrentKey | null {
  const file = path.join(keysDir, keyFileName(slot));
  let text: string;
  let created: Date;
  try {
    text = fs.readFileSync(file, 'utf8');
    created = fs.statSync(file).mtime;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    return { slot, file, text, info: publicKeyInfo(slot, text), created_at: created.toISOString() };
  } catch (error) {
    throw new KeyFileError(`${file} is not a valid key: ${(error as Error).message}; restore it from backup`);
  }
}

export interface CreatedKey {
  file: string;
  created: boolean;
}

/**
 * Creates every key file that does not exist (signing keys and the webhook key), never replacing one.
 * Callers hold the keys folder's lock.
 */
export function createMissingKeys(keysDir: string, logOrigin: string): CreatedKey[] {
  fs.mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  const results = SIGNING_SLOTS.map((slot) => {
    const file = path.join(keysDir, keyFileName(slot));
    return { file, created: !fs.existsSync(file) && createFileAtomic(file, newKeyText(slot, logOrigin)) };
  });
  const webhookFile = path.join(keysDir, WEBHOOK_SECRET_FILE);
  results.push({
    file: webhookFile,
    created: !fs.existsSync(webhookFile) && createFileAtomic(webhookFile, newWebhookSecretText()),
  });
  const vaultFile = path.join(keysDir, VAULT_MASTER_FILE);
  results.push({
    file: vaultFile,
    created: !fs.existsSync(vaultFile) && createFileAtomic(vaultFile, newWebhookSecretText()),
  });
  return results;
}

/** The 32-byte webhook sealing key; throws naming the file when it is missing or malformed. */
export function readWebhookSecretKey(keysDir: string): Buffer {
  return read32ByteKey(path.join(keysDir, WEBHOOK_SECRET_FILE));
}

/** The 32-byte vault master key of the keys folder (GOV_VAULT_KEY, when set, is used instead). */
export function readVaultMasterKey(keysDir: string): Buffer {
  return read32ByteKey(path.join(keysDir, VAULT_MASTER_FILE));
}

function read32ByteKey(file: string): Buffer {
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} must hold 32 bytes in base64`);
  return key;
}
