/**
 * merkle-core: an RFC 9162 transparency log with C2SP tiles, checkpoints, signed notes and
 * cosignatures (Node entry point). `browser.ts` exposes the verifiers for browsers.
 */
import { nodeCryptoSuite } from './node-crypto-suite';
import {
  type CheckpointVerdict,
  type CosignatureVerdict,
  type VerifierKey,
  verifyCheckpointNote,
  verifyCosignatureNote,
} from './signature-checks';
import { type JsonSth, verifySthWith } from './sth';

export { isIndex } from './bits';
export { bytesEqual, fromBase64, fromHex, toBase64, toHex } from './bytes';
export { type Checkpoint, CheckpointFormatError, formatCheckpoint, parseCheckpoint } from './checkpoint';
export { CompactRange } from './compact-range';
export { FileTileStore } from './file-tile-store';
export { EMPTY_ROOT, HASH_SIZE, hashLeafInto, leafHash, nodeHash } from './hash';
export {
  KeyFormatError,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  SIGNATURE_TYPE_ED25519,
} from './key-format';
export { exportSignerKey, generateKeyPair, loadSignerKey, loadVerifierKey, NoteSigner } from './keys';
export { LeafHashIndex } from './leaf-hash-index';
export { type Note, NoteFormatError, type NoteSignature, parseNote } from './note';
export { EMPTY_TREE_ROOT, isValidSubtree } from './proof-programs';
export { consistencyProof, inclusionProof, type NodeSource } from './proofs';
export { canonicalJson, leafDataOfRecord, leafHashOfRecord } from './record';
export type { CheckpointVerdict, CosignatureVerdict, CryptoSuite, VerifierKey } from './signature-checks';
export { cosignatureMessage } from './signature-checks';
export { addSignatureLines, cosignatureLine, signCheckpoint } from './signing';
export {
  checkpointNoteFromSth,
  isCanonicalTimestamp,
  type JsonSth,
  SthFormatError,
  type SthWitnessSignature,
  sthFromCheckpointNote,
  timestampExtension,
} from './sth';
export { type AppendResult, TileLog } from './tile-log';
export { type MaybePromise, MemoryTileStore, type Tile, type TileStore } from './tile-store';
export {
  decodeEntryBundle,
  encodeEntryBundle,
  entryBundlePath,
  parseTilePath,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileCoordinates,
  tilePath,
} from './tiles';
export type { Verdict } from './verdict';
export {
  rootFromInclusionProof,
  verifyConsistency,
  verifyInclusion,
  verifySubtreeConsistency,
  verifySubtreeInclusion,
} from './verify';
export {
  type AddCheckpointRequest,
  type AddCheckpointResult,
  decideAddCheckpoint,
  MemoryWitnessStateStore,
  type RefusalCode,
  Witness,
  type WitnessDecision,
  type WitnessLogState,
  type WitnessStateStore,
} from './witness';

/** Verifies a checkpoint note signed by the log key (key name = origin). */
export function verifyCheckpoint(note: string, logKey: VerifierKey): Promise<CheckpointVerdict> {
  return verifyCheckpointNote(note, logKey, nodeCryptoSuite);
}

/** Verifies a witness's cosignature/v1 on a checkpoint note. */
export function verifyCosignature(note: string, cosignerKey: VerifierKey): Promise<CosignatureVerdict> {
  return verifyCosignatureNote(note, cosignerKey, nodeCryptoSuite);
}

/** Verifies a JSON STH: log_id must be the trusted key, and the note it spells must verify. */
export function verifySth(sth: JsonSth, logKey: VerifierKey): Promise<CheckpointVerdict> {
  return verifySthWith(sth, logKey, nodeCryptoSuite);
}
