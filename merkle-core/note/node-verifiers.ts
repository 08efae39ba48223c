/** Checkpoint and cosignature verification for Node, with node:crypto. */
import { nodeCryptoSuite } from './node-crypto-suite';
import {
  type CheckpointVerdict,
  type CosignatureVerdict,
  type VerifierKey,
  verifyCheckpointNote,
  verifyCosignatureNote,
} from './signature-checks';

/** Verifies a checkpoint note signed by the log key (key name = origin). */
export function verifyCheckpoint(note: string, logKey: VerifierKey): Promise<CheckpointVerdict> {
  return verifyCheckpointNote(note, logKey, nodeCryptoSuite);
}

/** Verifies a witness's cosignature/v1 on a checkpoint note. */
export function verifyCosignature(note: string, cosignerKey: VerifierKey): Promise<CosignatureVerdict> {
  return verifyCosignatureNote(note, cosignerKey, nodeCryptoSuite);
}
