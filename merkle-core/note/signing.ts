/** Signing checkpoints (log) and cosigning them (witness) with node:crypto Ed25519. */
import { uint64BigEndian, utf8 } from '../encoding/bytes';
import { type Checkpoint, formatCheckpoint } from './checkpoint';
import { SIGNATURE_TYPE_COSIGNATURE_V1, SIGNATURE_TYPE_ED25519 } from './key-format';
import type { NoteSigner } from './keys';
import { formatSignatureLine, parseNote } from './note';
import { cosignatureMessage } from './signature-checks';

/** Signs a checkpoint as the log: returns the whole signed note. The key name must be the origin. */
export function signCheckpoint(checkpoint: Checkpoint, logSigner: NoteSigner): string {
  if (logSigner.type !== SIGNATURE_TYPE_ED25519) throw new Error('log signer must be an Ed25519 (0x01) key');
  if (logSigner.name !== checkpoint.origin) {
    throw new Error(`log key name ${logSigner.name} differs from the origin ${checkpoint.origin}`);
  }
  const text = formatCheckpoint(checkpoint);
  return `${text}\n${formatSignatureLine(logSigner.name, logSigner.keyId, logSigner.sign(utf8(text)))}`;
}

/**
 * Cosigns the checkpoint in `note` (cosignature/v1) at `timestamp` (seconds since the epoch) and
 * returns the signature line to append. It does not check anything: `Witness` does that first.
 */
export function cosignatureLine(note: string, cosigner: NoteSigner, timestamp: number): string {
  if (cosigner.type !== SIGNATURE_TYPE_COSIGNATURE_V1)
    throw new Error('cosigner must be a cosignature/v1 (0x04) key');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError(`bad timestamp ${timestamp}`);
  const { text } = parseNote(note);
  const signature = cosigner.sign(cosignatureMessage(text, timestamp));
  const blob = new Uint8Array(72);
  blob.set(uint64BigEndian(timestamp));
  blob.set(signature, 8);
  return formatSignatureLine(cosigner.name, cosigner.keyId, blob);
}

/** Appends signature lines to a signed note. */
export function addSignatureLines(note: string, lines: readonly string[]): string {
  parseNote(note);
  return note + lines.join('');
}
