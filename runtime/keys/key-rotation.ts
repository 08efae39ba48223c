/**
 * Key rotation: a signing key is retired (its public part goes to the history) and a fresh key takes
 * its file. The log key keeps its name, the log origin: the log's identity does not change, only the
 * key ID (the hash naming the key in checkpoint signature lines) does.
 *
 * Order matters for crash safety. The history is written first (atomically), then each key file is
 * replaced (atomic rename). A crash in between leaves the old key current and a history entry naming
 * it, which readers ignore (key-history.ts); at no point is there no current key, and at no point is
 * a key that signed something missing from both the key files and the history.
 */
import fs from 'node:fs';
import { removeTempFiles, writeFileAtomic } from '../support/atomic-file';
import {
  type CurrentKey,
  type KeySlot,
  keyFileName,
  newKeyText,
  type PublicKeyInfo,
  parseLogSigner,
  publicKeyInfo,
  readCurrentKey,
  VALIDATOR_SLOTS,
  validatorSlot,
} from './key-files';
import { type RetiredKey, readHistory, sameKey, writeHistory } from './key-history';
import { assertNoServerUsing, withKeysLock } from './keys-lock';

/** What to rotate: the log key, the authority key, one validator (1..4) or all of them. */
export type RotationTarget =
  | { kind: 'log' }
  | { kind: 'authority' }
  | { kind: 'validator'; validator?: number };

export interface Rotation {
  slot: KeySlot;
  retired: RetiredKey;
  current: PublicKeyInfo & { created_at: string };
}

/** A rotation that cannot be done as asked (e.g. no key to rotate); nothing was changed. */
export class KeyRotationError extends Error {
  override readonly name = 'KeyRotationError';
}

function slotsOf(target: RotationTarget): KeySlot[] {
  if (target.kind !== 'validator') return [target.kind];
  return target.validator === undefined ? [...VALIDATOR_SLOTS] : [validatorSlot(target.validator)];
}

function existingKey(keysDir: string, slot: KeySlot): CurrentKey {
  const key = readCurrentKey(keysDir, slot);
  if (!key)
    throw new KeyRotationError(
      `there is no ${keyFileName(slot)} in ${keysDir} to rotate: run gov keys generate (or start the server) first`,
    );
  return key;
}

/** The name of a fresh key for the slot of `old`: a log key keeps the log origin. */
function freshKeyText(old: CurrentKey): string {
  return newKeyText(old.slot, old.slot === 'log' ? parseLogSigner(old.text).name : '');
}

/**
 * Rotates the keys of `target` in `keysDir`. Refuses (KeysFolderBusyError) while another `gov keys` is
 * writing or a server uses the folder: a running server would keep signing with the retired key.
 */
export async function rotateKeys(
  keysDir: string,
  target: RotationTarget,
  clock: () => Date = () => new Date(),
): Promise<Rotation[]> {
  if (!fs.existsSync(keysDir))
    throw new KeyRotationError(
      `${keysDir} does not exist: there are no keys to rotate (run gov keys generate)`,
    );
  return withKeysLock(keysDir, { purpose: 'gov keys rotate' }, () => {
    assertNoServerUsing(keysDir, 'rotate keys');
    removeTempFiles(keysDir);
    const olds = slotsOf(target).map((slot) => existingKey(keysDir, slot));
    const retiredAt = clock().toISOString();
    const retired: RetiredKey[] = olds.map((old) => ({
      ...old.info,
      created_at: old.created_at,
      retired_at: retiredAt,
    }));
    // Entries naming a key that is still current come from an interrupted rotation: this one replaces them.
    const history = readHistory(keysDir).filter((entry) => !olds.some((old) => sameKey(old.info, entry)));
    writeHistory(keysDir, [...history, ...retired]);
    return olds.map((old, index) => {
      const text = freshKeyText(old);
      // Renaming over the key file deletes the retired PRIVATE key, on purpose: a retired signing key
      // must never sign again (a signature dated after its retirement would be indistinguishable from
      // a forgery made with a leaked key), so nothing keeps it. Its public part is in the history.
      writeFileAtomic(old.file, text);
      const current = readCurrentKey(keysDir, old.slot);
      if (!current || !sameKey(current.info, publicKeyInfo(old.slot, text)))
        throw new Error(`${old.file} does not hold the key just written: check the disk`);
      return {
        slot: old.slot,
        retired: retired[index]!,
        current: { ...current.info, created_at: current.created_at },
      };
    });
  });
}
