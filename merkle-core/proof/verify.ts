/** Synchronous proof verifiers for Node, driving the shared programs with the fast local hasher. */
import { nodeHash } from '../tree/hash';
import {
  consistencyProgram,
  inclusionProgram,
  rootFromInclusionProgram,
  runSync,
  subtreeConsistencyProgram,
  subtreeInclusionProgram,
} from './proof-programs';
import type { Verdict } from './verdict';

/** RFC 9162 §2.1.3.2: does `proof` show leaf `index` (hash `leafHash`) in the tree (`size`, `root`)? */
export function verifyInclusion(
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): Verdict {
  return runSync(inclusionProgram(index, size, leafHash, proof, root), nodeHash);
}

/** The root an inclusion proof implies; throws when the proof's shape does not fit (index, size). */
export function rootFromInclusionProof(
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
): Uint8Array {
  const result = runSync(rootFromInclusionProgram(index, size, leafHash, proof), nodeHash);
  if ('error' in result) throw new Error(result.error);
  return result.root;
}

/**
 * RFC 9162 §2.1.4.2: does `proof` show the tree (`size1`, `root1`) is a prefix of (`size2`, `root2`)?
 * Old size 0 is always rejected (a proof from the empty tree proves nothing).
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): Verdict {
  return runSync(consistencyProgram(size1, size2, proof, root1, root2), nodeHash);
}

/** Inclusion of leaf `index` in the subtree [start, end) with hash `subtreeRoot`. */
export function verifySubtreeInclusion(
  index: number,
  start: number,
  end: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  subtreeRoot: Uint8Array,
): Verdict {
  return runSync(subtreeInclusionProgram(index, start, end, leafHash, proof, subtreeRoot), nodeHash);
}

/** Consistency of the subtree [start, end) (hash `subtreeRoot`) with the tree (`size`, `root`). */
export function verifySubtreeConsistency(
  start: number,
  end: number,
  size: number,
  proof: readonly Uint8Array[],
  subtreeRoot: Uint8Array,
  root: Uint8Array,
): Verdict {
  return runSync(subtreeConsistencyProgram(start, end, size, proof, subtreeRoot, root), nodeHash);
}
