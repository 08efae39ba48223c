/**
 * merkle-core: an RFC 9162 transparency log with C2SP tiles, checkpoints, signed notes and
 * cosignatures (Node entry point): the public API of its packages, which depend on each other in one
 * direction only: encoding ← tree ← proof ← tiles, and note (on encoding, tree and proof).
 * `browser.ts` exposes the verifiers for browsers.
 */
import { nodeCryptoSuite } from './note/node-crypto-suite';
import type { CheckpointVerdict, VerifierKey } from './note/signature-checks';
import { type JsonSth, verifySthWith } from './sth';

export * from './encoding';
export * from './note';
export * from './proof';
export { leafDataOfRecord, leafHashOfRecord } from './record';
export {
  checkpointNoteFromSth,
  isCanonicalTimestamp,
  type JsonSth,
  SthFormatError,
  type SthWitnessSignature,
  sthFromCheckpointNote,
  timestampExtension,
} from './sth';
export * from './tiles';
export * from './tree';

/** Verifies a JSON STH: log_id must be the trusted key, and the note it spells must verify. */
export function verifySth(sth: JsonSth, logKey: VerifierKey): Promise<CheckpointVerdict> {
  return verifySthWith(sth, logKey, nodeCryptoSuite);
}
