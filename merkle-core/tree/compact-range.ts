/**
 * Compact range [0, size): the right frontier of an append-only Merkle tree, O(log n) state.
 * It holds one hash per set bit of `size` — the roots of the perfect subtrees that tile [0, size),
 * largest (leftmost) first — which is everything needed to append leaves and compute the root.
 */
import { bitAt, bitLength, popCount } from '../encoding/bits';
import { EMPTY_ROOT, HASH_SIZE, nodeHash } from './hash';

export class CompactRange {
  #size: number;
  readonly #hashes: Uint8Array[];

  /** An empty range, or the frontier of a tree of `size` leaves given its subtree roots. */
  constructor(size = 0, hashes: readonly Uint8Array[] = []) {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`bad size ${size}`);
    if (hashes.length !== popCount(size)) {
      throw new RangeError(
        `a compact range of size ${size} has ${popCount(size)} hashes, got ${hashes.length}`,
      );
    }
    if (hashes.some((h) => h.length !== HASH_SIZE))
      throw new RangeError('compact range hashes must be 32 bytes');
    this.#size = size;
    this.#hashes = hashes.map((h) => h.slice());
  }

  get size(): number {
    return this.#size;
  }

  /** The subtree roots, leftmost first; one per set bit of `size`, highest bit first. */
  get hashes(): readonly Uint8Array[] {
    return this.#hashes;
  }

  /** Tree levels of the subtree roots, parallel to `hashes`. */
  get levels(): number[] {
    const levels: number[] = [];
    for (let level = bitLength(this.#size) - 1; level >= 0; level--) {
      if (bitAt(this.#size, level) === 1) levels.push(level);
    }
    return levels;
  }

  /** Appends one leaf hash, merging equal-height subtrees as a binary counter carries. */
  append(leafHash: Uint8Array): void {
    if (leafHash.length !== HASH_SIZE) throw new RangeError('leaf hash must be 32 bytes');
    let hash: Uint8Array = leafHash.slice();
    for (let size = this.#size; size % 2 === 1; size = Math.floor(size / 2)) {
      hash = nodeHash(this.#hashes.pop()!, hash);
    }
    this.#hashes.push(hash);
    this.#size++;
  }

  /** Appends many leaf hashes in order. */
  appendMany(leafHashes: Iterable<Uint8Array>): void {
    for (const h of leafHashes) this.append(h);
  }

  /**
   * For each subtree root i, the hash of the range from that subtree to the end of the tree. The
   * first is the tree root; the others are the "ephemeral" right-border nodes inclusion and
   * consistency proofs need when the tree is not a perfect binary tree.
   */
  rightFolds(): Uint8Array[] {
    const folds = new Array<Uint8Array>(this.#hashes.length);
    let acc: Uint8Array | undefined;
    for (let i = this.#hashes.length - 1; i >= 0; i--) {
      acc = acc ? nodeHash(this.#hashes[i]!, acc) : this.#hashes[i]!.slice();
      folds[i] = acc;
    }
    return folds;
  }

  /** RFC 9162 Merkle tree hash of the leaves [0, size). */
  root(): Uint8Array {
    return this.#hashes.length === 0 ? EMPTY_ROOT.slice() : this.rightFolds()[0]!;
  }
}
