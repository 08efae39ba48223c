/**
 * The verifier keys of one log, current and retired. A checkpoint names the key that signed it (key
 * name = origin, and a 4-byte key ID) on its first signature line; after a rotation, old checkpoints
 * name a retired key, so whoever parses them picks the key by that line instead of assuming the
 * current one.
 */
import { type JsonSth, sthFromCheckpointNote } from '../../domain/log';
import { bytesEqual, loadVerifierKey, parseNote, toHex, type VerifierKey } from '../../merkle-core';

export class LogVerifierKeys {
  readonly keys: readonly VerifierKey[];

  /** `verifierKeys` in note format, the current key first; each key ID is checked here. */
  constructor(verifierKeys: readonly string[]) {
    this.keys = verifierKeys.map((text) => loadVerifierKey(text));
  }

  /** The key whose name and key ID are on the first signature line of `note` (a signed checkpoint). */
  signerOf(note: string): VerifierKey {
    const first = parseNote(note).signatures[0];
    const key = first && this.keys.find((k) => k.name === first.name && bytesEqual(k.keyId, first.keyId));
    if (!key) {
      const named = first ? `${first.name}+${toHex(first.keyId)}` : 'no key';
      throw new Error(
        `a signed tree head is signed by ${named}, which is neither the current log key nor a retired one ` +
          `(keys/history.json): restore the keys folder from backup`,
      );
    }
    return key;
  }

  /** The JSON STH of a checkpoint of this log, whichever of its keys signed it. */
  sthOf(note: string): JsonSth {
    return sthFromCheckpointNote(note, this.signerOf(note).text);
  }
}
