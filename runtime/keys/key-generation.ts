/**
 * `gov keys generate`: creates the missing keys of `<data>/keys`. Replacing existing keys (`force`) is
 * only right while nothing was signed with them: once the log or an envelope carries a signature, a
 * replaced key would leave it unverifiable. From then on a key changes by rotation (key-rotation.ts),
 * which keeps the old public key in the history.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TEST_LOG_NAME } from '../../domain/log';
import { removeTempFiles, writeFileAtomic } from '../support/atomic-file';
import {
  createMissingKeys,
  keyFileName,
  newKeyText,
  newWebhookSecretText,
  parseLogSigner,
  SIGNING_SLOTS,
  WEBHOOK_SECRET_FILE,
} from './key-files';
import { assertNoServerUsing, withKeysLock } from './keys-lock';
import { createTestLogKey, logKeyFile } from './log-keys';

export interface GeneratedKey {
  file: string;
  outcome: 'created' | 'kept' | 'replaced';
}

export interface GenerateOptions {
  /** The name of a new log key (GOV_LOG_ORIGIN); an existing log key keeps its own. */
  logOrigin: string;
  /** Replace existing keys too (refused when `signed`). */
  force: boolean;
  /** Whether the event store already holds anything signed with the keys (tree heads, admissions). */
  signed: boolean;
}

/** Replacing keys that signed something, or while a server uses them: refused, nothing changed. */
export class KeyGenerationError extends Error {
  override readonly name = 'KeyGenerationError';
}

export async function generateKeys(keysDir: string, options: GenerateOptions): Promise<GeneratedKey[]> {
  if (options.force && options.signed)
    throw new KeyGenerationError(
      'the event store already holds tree heads or admissions signed with these keys: replacing them would ' +
        'leave those signatures unverifiable. Rotate instead (gov keys rotate <log|authority|validator>), ' +
        'which keeps the retired public keys so old signatures still verify.',
    );
  fs.mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  return withKeysLock(keysDir, { purpose: 'gov keys generate' }, () => {
    removeTempFiles(keysDir);
    const replaced = new Set<string>();
    if (options.force) {
      assertNoServerUsing(keysDir, 'replace keys');
      for (const slot of SIGNING_SLOTS) {
        const file = path.join(keysDir, keyFileName(slot));
        if (!fs.existsSync(file)) continue;
        writeFileAtomic(file, newKeyText(slot, options.logOrigin));
        replaced.add(file);
      }
      // Nothing was signed, so no webhook secret was sealed with this key either.
      const webhookFile = path.join(keysDir, WEBHOOK_SECRET_FILE);
      if (fs.existsSync(webhookFile)) {
        writeFileAtomic(webhookFile, newWebhookSecretText());
        replaced.add(webhookFile);
      }
    }
    const generated: GeneratedKey[] = createMissingKeys(keysDir, options.logOrigin).map(
      ({ file, created }) => ({
        file,
        outcome: created ? 'created' : replaced.has(file) ? 'replaced' : 'kept',
      }),
    );
    const testKey = logKeyFile(keysDir, TEST_LOG_NAME);
    // Nothing signed: the test log's key follows the (maybe renamed) new log key.
    if (options.force && fs.existsSync(testKey)) {
      fs.rmSync(testKey);
      replaced.add(testKey);
    }
    const existed = fs.existsSync(testKey) || replaced.has(testKey);
    createTestLogKey(
      keysDir,
      parseLogSigner(fs.readFileSync(path.join(keysDir, keyFileName('log')), 'utf8')).name,
    );
    generated.push({
      file: testKey,
      outcome: replaced.has(testKey) ? 'replaced' : existed ? 'kept' : 'created',
    });
    return generated;
  });
}
