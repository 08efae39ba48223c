/**
 * The node's signing keys, created on first start and kept in `<data>/keys` (mode 0600):
 *   log.key           the log's checkpoint key (C2SP note format; its name is the log origin)
 *   authority.pem     the clearinghouse node key that signs every envelope (Ed25519, PKCS#8)
 *   validator-N.pem   the in-process validators of the round (Ed25519, PKCS#8), N = 1..4
 *   webhook-secrets.key  the AES-256-GCM key webhook signing secrets are sealed with at rest
 * Losing them means new STHs no longer verify under the published key, so back the folder up.
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
import { generateKeyPair, loadSignerKey, type NoteSigner } from '../merkle-core';

export interface Keyring {
  logSigner: NoteSigner;
  authority: { privateKey: KeyObject; publicKey: KeyObject };
  validators: KeyObject[];
  /** 32 bytes: seals webhook secrets in events and read models. */
  webhookSecretKey: Buffer;
}

export const VALIDATOR_COUNT = 4;

export function loadOrCreateKeyring(dataDir: string, logOrigin: string): Keyring {
  const dir = path.join(dataDir, 'keys');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const logKeyText = readOrCreate(
    path.join(dir, 'log.key'),
    () => `${generateKeyPair(logOrigin).signerKey}\n`,
  );
  const authorityKey = loadEd25519(path.join(dir, 'authority.pem'));
  const validators = Array.from({ length: VALIDATOR_COUNT }, (_, i) =>
    loadEd25519(path.join(dir, `validator-${i + 1}.pem`)),
  );
  const webhookSecretKey = Buffer.from(
    readOrCreate(
      path.join(dir, 'webhook-secrets.key'),
      () => `${randomBytes(32).toString('base64')}\n`,
    ).trim(),
    'base64',
  );
  if (webhookSecretKey.length !== 32)
    throw new Error(`${path.join(dir, 'webhook-secrets.key')} must hold 32 bytes in base64`);
  return {
    webhookSecretKey,
    logSigner: loadSignerKey(logKeyText.trim()),
    authority: { privateKey: authorityKey, publicKey: createPublicKey(authorityKey) },
    validators,
  };
}

function loadEd25519(file: string): KeyObject {
  const pem = readOrCreate(file, () =>
    generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  );
  return createPrivateKey(pem);
}

/** Reads a key file, or writes a fresh one exclusively (two processes starting at once keep one key). */
function readOrCreate(file: string, create: () => string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    fs.writeFileSync(file, create(), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return fs.readFileSync(file, 'utf8');
}
