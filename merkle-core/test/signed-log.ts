/** Test support: fresh log and witness keys, and a small log whose checkpoint they sign and cosign. */

import { SIGNATURE_TYPE_COSIGNATURE_V1 } from '../note/key-format';
import { generateKeyPair, loadSignerKey, loadVerifierKey } from '../note/keys';
import { addSignatureLines, cosignatureLine, signCheckpoint } from '../note/signing';
import { TileLog } from '../tiles/tile-log';

/** A fresh log key pair named `origin` and a witness key pair, in note format and loaded. */
export function freshKeys(origin: string, witnessName: string) {
  const logKeys = generateKeyPair(origin);
  const witnessKeys = generateKeyPair(witnessName, SIGNATURE_TYPE_COSIGNATURE_V1);
  return {
    logKeys,
    witnessKeys,
    logSigner: loadSignerKey(logKeys.signerKey),
    logKey: loadVerifierKey(logKeys.verifierKey),
    witnessSigner: loadSignerKey(witnessKeys.signerKey),
    witnessKey: loadVerifierKey(witnessKeys.verifierKey),
  };
}

/**
 * A log of `size` leaves (`record 0`, `record 1`, …) and its checkpoint note with `extensions`, signed
 * with a fresh log key and cosigned by a fresh witness at time 1,700,000,000.
 */
export async function cosignedLog(origin: string, size: number, extensions: string[]) {
  const log = new TileLog();
  await log.appendLeaves(Array.from({ length: size }, (_, i) => new TextEncoder().encode(`record ${i}`)));
  const keys = freshKeys(origin, 'witness.example.org');
  const signed = signCheckpoint({ origin, size, rootHash: log.root(), extensions }, keys.logSigner);
  const note = addSignatureLines(signed, [cosignatureLine(signed, keys.witnessSigner, 1_700_000_000)]);
  return { log, note, ...keys };
}
