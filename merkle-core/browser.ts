/**
 * Browser entry point: the verifiers only, using WebCrypto (crypto.subtle) for SHA-256 and Ed25519.
 * No Node APIs, no Buffer. Every verifier is asynchronous and returns a verdict with a reason rather
 * than throwing on bad input. The proof algorithms are the same code the Node entry runs.
 * It imports the portable files of each package, never a package's index (which is Node code).
 */
import {
  type CheckpointVerdict,
  type CosignatureVerdict,
  loadVerifierKey as loadKeyWith,
  type VerifierKey,
  verifyCheckpointNote,
  verifyCosignatureNote,
} from './note/signature-checks';
import { webCryptoSuite } from './note/web-crypto-suite';
import {
  consistencyProgram,
  inclusionProgram,
  runAsync,
  subtreeConsistencyProgram,
  subtreeInclusionProgram,
} from './proof/proof-programs';
import type { Verdict } from './proof/verdict';
import { webHashChildren } from './tree/web-crypto-hash';

export { fromBase64, fromHex, toBase64, toHex } from './encoding/bytes';
export { type Checkpoint, parseCheckpoint } from './note/checkpoint';
export { type Note, type NoteSignature, parseNote } from './note/note';
export type { CheckpointVerdict, CosignatureVerdict, VerifierKey } from './note/signature-checks';
export { EMPTY_TREE_ROOT } from './proof/proof-programs';
export type { Verdict } from './proof/verdict';
export { webLeafHash as leafHash } from './tree/web-crypto-hash';

/** RFC 9162 §2.1.3.2 inclusion proof verification. */
export function verifyInclusion(
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): Promise<Verdict> {
  return runAsync(inclusionProgram(index, size, leafHash, proof, root), webHashChildren);
}

/** RFC 9162 §2.1.4.2 consistency proof verification (old size 0 is rejected). */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): Promise<Verdict> {
  return runAsync(consistencyProgram(size1, size2, proof, root1, root2), webHashChildren);
}

/** Inclusion of leaf `index` in the subtree [start, end) with hash `subtreeRoot`. */
export function verifySubtreeInclusion(
  index: number,
  start: number,
  end: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  subtreeRoot: Uint8Array,
): Promise<Verdict> {
  return runAsync(subtreeInclusionProgram(index, start, end, leafHash, proof, subtreeRoot), webHashChildren);
}

/** Consistency of the subtree [start, end) (hash `subtreeRoot`) with the tree (`size`, `root`). */
export function verifySubtreeConsistency(
  start: number,
  end: number,
  size: number,
  proof: readonly Uint8Array[],
  subtreeRoot: Uint8Array,
  root: Uint8Array,
): Promise<Verdict> {
  return runAsync(subtreeConsistencyProgram(start, end, size, proof, subtreeRoot, root), webHashChildren);
}

/** Parses a note-format verifier key and checks its key ID; rejects with KeyFormatError. */
export function loadVerifierKey(text: string): Promise<VerifierKey> {
  return loadKeyWith(text, webCryptoSuite);
}

/** Verifies a checkpoint note signed by the log key (key name = origin). */
export function verifyCheckpoint(note: string, logKey: VerifierKey): Promise<CheckpointVerdict> {
  return verifyCheckpointNote(note, logKey, webCryptoSuite);
}

/** Verifies a witness's cosignature/v1 on a checkpoint note. */
export function verifyCosignature(note: string, cosignerKey: VerifierKey): Promise<CosignatureVerdict> {
  return verifyCosignatureNote(note, cosignerKey, webCryptoSuite);
}
