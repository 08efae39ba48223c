/**
 * The keys of the logs other than the shared one (whose key is the `log` slot): one Ed25519 note key
 * per log at `<data>/keys/logs/<name>.key`, in the `log` slot's text format, named after the log's
 * origin (`<shared origin>/<name>`). Each is created once, exclusively, so processes creating the same
 * log at once keep one key. Only a process that sequences a log reads its private key; the others learn
 * its verifier key from the log's `LogCreated` event.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isLogName, logOriginOf, SHARED_LOG_NAME, TEST_LOG_NAME } from '../../domain/log';
import { generateKeyPair, type NoteSigner, toHex } from '../../merkle-core';
import { createFileAtomic, readTextIfExists } from '../support/atomic-file';
import { KeyFileError, parseLogSigner } from './key-files';

export const LOG_KEYS_FOLDER = 'logs';

export function logKeysDirOf(keysDir: string): string {
  return path.join(keysDir, LOG_KEYS_FOLDER);
}

export function logKeyFile(keysDir: string, name: string): string {
  if (!isLogName(name) || name === SHARED_LOG_NAME)
    throw new RangeError(`'${name}' is not the name of a log with its own key file`);
  return path.join(logKeysDirOf(keysDir), `${name}.key`);
}

/**
 * Creates the key of log `name` (named `origin`) unless its file exists; returns the key in the file
 * either way. Callers creating at once each get the one key that won.
 */
export function ensureLogKey(keysDir: string, name: string, origin: string): NoteSigner {
  const file = logKeyFile(keysDir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (!fs.existsSync(file)) createFileAtomic(file, `${generateKeyPair(origin).signerKey}\n`);
  const signer = readLogKey(keysDir, name);
  if (!signer) throw new Error(`${file} could not be created`);
  if (signer.name !== origin)
    throw new KeyFileError(
      `${file} is the key of origin '${signer.name}', not '${origin}': it belongs to another deployment's log; restore this log's key from backup`,
    );
  return signer;
}

/** The signer of log `name`, or null when its key file does not exist. */
export function readLogKey(keysDir: string, name: string): NoteSigner | null {
  const file = logKeyFile(keysDir, name);
  const text = readTextIfExists(file);
  if (text === null) return null;
  try {
    return parseLogSigner(text);
  } catch (error) {
    throw new KeyFileError(`${file} is not a valid key: ${(error as Error).message}; restore it from backup`);
  }
}

/** Creates the test-mode log's key when missing (at first start, with the other missing keys). */
export function createTestLogKey(keysDir: string, sharedOrigin: string): NoteSigner {
  return ensureLogKey(keysDir, TEST_LOG_NAME, logOriginOf(sharedOrigin, TEST_LOG_NAME));
}

/** One log key file's public part, as `gov keys show` lists it. */
export interface LogKeyInfo {
  log: string;
  file: string;
  verifier_key: string;
  key_id: string;
  created_at: string;
}

/** Every log key file of `keysDir`, by log name. */
export function listLogKeys(keysDir: string): LogKeyInfo[] {
  const dir = logKeysDirOf(keysDir);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.key') && isLogName(file.slice(0, -'.key'.length)))
    .sort()
    .map((file) => {
      const log = file.slice(0, -'.key'.length);
      const signer = readLogKey(keysDir, log)!;
      return {
        log,
        file: path.join(dir, file),
        verifier_key: signer.verifierKey,
        key_id: toHex(signer.keyId),
        created_at: fs.statSync(path.join(dir, file)).mtime.toISOString(),
      };
    });
}
