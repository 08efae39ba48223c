/**
 * A deliberately naive RFC 9162 §2.1 implementation, transcribed from the recursive definitions
 * (MTH, PATH, PROOF/SUBPROOF) for tests to compare against. Slow and obviously correct.
 */
import { createHash } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/** Largest power of two strictly less than n (n > 1). */
const split = (n: number): number => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

export const refLeafHash = (data: Uint8Array): Uint8Array => sha256(new Uint8Array([0]), data);
const refNodeHash = (l: Uint8Array, r: Uint8Array): Uint8Array => sha256(new Uint8Array([1]), l, r);

/** MTH(D[n]) over leaf hashes. */
export function refRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return refNodeHash(refRoot(leaves.slice(0, k)), refRoot(leaves.slice(k)));
}

/** PATH(m, D[n]). */
export function refInclusionProof(m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return m < k
    ? [...refInclusionProof(m, leaves.slice(0, k)), refRoot(leaves.slice(k))]
    : [...refInclusionProof(m - k, leaves.slice(k)), refRoot(leaves.slice(0, k))];
}

function subproof(m: number, leaves: readonly Uint8Array[], complete: boolean): Uint8Array[] {
  const n = leaves.length;
  if (m === n) return complete ? [] : [refRoot(leaves)];
  const k = split(n);
  return m <= k
    ? [...subproof(m, leaves.slice(0, k), complete), refRoot(leaves.slice(k))]
    : [...subproof(m - k, leaves.slice(k), false), refRoot(leaves.slice(0, k))];
}

/** PROOF(m, D[n]) for 0 < m ≤ n. */
export function refConsistencyProof(m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  return subproof(m, leaves, true);
}

/**
 * The order in which PATH(m, D[n]) combines its hashes: 'R' where the sibling is on the right, 'L'
 * where it is on the left, lowest first. A verifier sees the size only through this shape.
 */
export function refInclusionShape(m: number, n: number): string {
  if (n <= 1) return '';
  const k = split(n);
  return m < k ? `${refInclusionShape(m, k)}R` : `${refInclusionShape(m - k, n - k)}L`;
}

/** The combination order of PROOF(m, D[n]); 'S' marks a subtree root that opens the proof. */
export function refConsistencyShape(m: number, n: number, complete = true): string {
  if (m === n) return complete ? '' : 'S';
  const k = split(n);
  return m <= k ? `${refConsistencyShape(m, k, complete)}R` : `${refConsistencyShape(m - k, n - k, false)}L`;
}
