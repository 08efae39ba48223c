/**
 * The node's keys as a process uses them, loaded from `<data>/keys` (file layout: key-files.ts; retired
 * keys: key-history.ts). Missing keys are created on first start. Losing the folder means new STHs no
 * longer verify under the published key and old ones lose their retired keys, so back it up.
 *
 * Keys are read once: after `gov keys rotate` the server must be restarted to sign with the new keys
 * (and `gov keys rotate` refuses to run while a server uses the folder).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SHARED_LOG_NAME } from '../../domain/log';
import type { NoteSigner } from '../../merkle-core';
import { removeTempFiles } from '../support/atomic-file';
import {
  createMissingKeys,
  type KeySlot,
  keyFileName,
  keysDirOf,
  parseEd25519,
  parseLogSigner,
  readCurrentKey,
  readVaultMasterKey,
  readWebhookSecretKey,
  VALIDATOR_SLOTS,
} from './key-files';
import { listKeys, type PublishedKeys, publishedKeysOf, retiredLogVerifierKeys } from './key-history';
import { markServerUsing, withKeysLock } from './keys-lock';
import { createTestLogKey, logKeyFile, logKeysDirOf, readLogKey } from './log-keys';

export interface Keyring {
  logSigner: NoteSigner;
  authority: { privateKey: KeyObject; publicKey: KeyObject };
  validators: KeyObject[];
  /** 32 bytes: seals webhook secrets in events and read models. */
  webhookSecretKey: Buffer;
  /** 32 bytes: the platform vault's master key file (wraps users' data keys; GOV_VAULT_KEY overrides it). */
  vaultMasterKey: Buffer;
  /** Current and retired public keys, as `gov keys show --json` prints them. */
  published: PublishedKeys;
  /** Verifier keys of the retired log keys: tree heads signed before a rotation verify under them. */
  retiredLogVerifierKeys: string[];
  /**
   * The signer of log `name` (`shared`: `logSigner`; others: keys/logs/<name>.key, read when asked, by
   * the process that sequences the log). Throws naming the file when it is missing.
   */
  logSignerOf(name: string): NoteSigner;
}

export interface ServerKeyring extends Keyring {
  /** Tells `gov keys` that this server no longer uses the keys (call it once stopped). */
  release(): void;
}

/** How long a starting server waits for a `gov keys` command to finish writing the folder. */
const SERVER_LOCK_WAIT_MS = 10_000;

function readKeyText(keysDir: string, slot: KeySlot): string {
  const key = readCurrentKey(keysDir, slot);
  if (!key) throw new Error(`${path.join(keysDir, keyFileName(slot))} is missing`);
  return key.text;
}

/** The shared log's origin: the name of its key (an existing key keeps its own, whatever GOV_LOG_ORIGIN says). */
function sharedOriginOf(keysDir: string): string {
  return parseLogSigner(readKeyText(keysDir, 'log')).name;
}

function loadKeyring(keysDir: string): Keyring {
  const authorityKey = parseEd25519(readKeyText(keysDir, 'authority'));
  const published = publishedKeysOf(listKeys(keysDir));
  const logSigner = parseLogSigner(readKeyText(keysDir, 'log'));
  return {
    logSigner,
    logSignerOf: (name) => {
      if (name === SHARED_LOG_NAME) return logSigner;
      const signer = readLogKey(keysDir, name);
      if (!signer)
        throw new Error(`${logKeyFile(keysDir, name)} is missing: restore the keys folder from backup`);
      return signer;
    },
    authority: { privateKey: authorityKey, publicKey: createPublicKey(authorityKey) },
    validators: VALIDATOR_SLOTS.map((slot) => parseEd25519(readKeyText(keysDir, slot))),
    webhookSecretKey: readWebhookSecretKey(keysDir),
    vaultMasterKey: readVaultMasterKey(keysDir),
    published,
    retiredLogVerifierKeys: retiredLogVerifierKeys(published),
  };
}

/**
 * Loads the keyring of `dataDir`, creating missing keys (each created exclusively, so processes starting
 * at once keep one key). For tools and worker threads; a server uses `openServerKeyring`.
 */
export function loadOrCreateKeyring(dataDir: string, logOrigin: string): Keyring {
  const keysDir = keysDirOf(dataDir);
  createMissingKeys(keysDir, logOrigin);
  createTestLogKey(keysDir, sharedOriginOf(keysDir));
  return loadKeyring(keysDir);
}

/**
 * The server's keyring: loaded under the keys folder's lock (never half way through a rotation), and
 * marked as in use until `release`, so that `gov keys` refuses to change keys the server signs with.
 */
export async function openServerKeyring(dataDir: string, logOrigin: string): Promise<ServerKeyring> {
  const keysDir = keysDirOf(dataDir);
  fs.mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  return withKeysLock(keysDir, { purpose: 'a starting server', waitMs: SERVER_LOCK_WAIT_MS }, () => {
    removeTempFiles(keysDir);
    createMissingKeys(keysDir, logOrigin);
    fs.mkdirSync(logKeysDirOf(keysDir), { recursive: true, mode: 0o700 });
    removeTempFiles(logKeysDirOf(keysDir));
    createTestLogKey(keysDir, sharedOriginOf(keysDir));
    const keyring = loadKeyring(keysDir);
    return { ...keyring, release: markServerUsing(keysDir, 'a running server') };
  });
}
