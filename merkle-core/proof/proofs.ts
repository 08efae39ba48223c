/**
 * RFC 9162 proof generation (§2.1.3.1 inclusion, §2.1.4.1 consistency) over any source of node
 * hashes. Only complete nodes are read, plus at most one "ephemeral" node per proof: the incomplete
 * node on the right border, whose hash the source computes from the tree's compact range.
 * A proof is one allocation: the hashes are copied into a single buffer and returned as 32-byte views.
 *
 * MEASURED FAST PATH: the slab allocator and the word-by-word copies below exist because a proof is
 * built in a few microseconds (bench/merkle.bench.ts) and one typed-array allocation costs about one.
 * Do not copy these patterns elsewhere: plain arrays and `slice()` are the right tools off this path.
 */
import { popCount, shiftRight, trailingZeros, xorBitLength } from '../encoding/bits';

const HASH_SIZE = 32;

/**
 * Where proofs read hashes. Hashes are copied as eight 32-bit words (`out` views the proof's bytes),
 * which is four times fewer steps than copying bytes on the proof hot path.
 */
export interface NodeSource {
  /** Copies the hash of the complete node at `level` over leaves [index·2^level, (index+1)·2^level). */
  copyNode(level: number, index: number, out: Int32Array, wordOffset: number): void;
  /** Copies the hash of the incomplete node at `level` holding leaf `size - 1` in a tree of `size` leaves. */
  copyBorderNode(level: number, size: number, out: Int32Array, wordOffset: number): void;
}

const WORDS = HASH_SIZE / 4;
/** 2^level for every tree level (avoids Math.pow on the hot path). */
const POW2 = Array.from({ length: 64 }, (_, level) => 2 ** level);

function views(bytes: Uint8Array): Uint8Array[] {
  const proof = new Array<Uint8Array>(bytes.length / HASH_SIZE);
  for (let i = 0; i < proof.length; i++) proof[i] = bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE);
  return proof;
}

/**
 * Sibling hashes on the path from the node at `fromLevel` above leaf `leafIndex` to the root of the
 * tree of `size` leaves, lowest first, written after `skip` hash slots of a new buffer.
 */
function pathToRoot(leafIndex: number, size: number, fromLevel: number, skip: number): Uint8Array {
  // Below `inner` the paths to leafIndex and to the last leaf differ, so siblings sit on either side;
  // only the sibling at level inner - 1 can be incomplete (it holds the last leaf). Above it the path
  // runs along the right border: a left sibling wherever the node is a right child.
  const inner = xorBitLength(leafIndex, size - 1);
  const count = skip + Math.max(0, inner - fromLevel) + popCount(shiftRight(leafIndex, inner));
  return allocateProof(count * HASH_SIZE);
}

/**
 * Proof buffers are carved out of shared 16 KiB slabs, as Node's Buffer pool does: V8 keeps typed
 * arrays over 64 bytes off-heap, and allocating one costs about a microsecond — more than building a
 * whole proof. A slab lives as long as any proof cut from it.
 */
const SLAB_BYTES = 16 * 1024;
let slab = new ArrayBuffer(SLAB_BYTES);
let slabOffset = 0;

function allocateProof(bytes: number): Uint8Array {
  if (bytes > SLAB_BYTES / 4) return new Uint8Array(bytes);
  if (slabOffset + bytes > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabOffset = 0;
  }
  const out = new Uint8Array(slab, slabOffset, bytes);
  slabOffset += bytes; // a multiple of 32, so every proof stays word-aligned
  return out;
}

/** The proof's words (hashes are copied 8 words at a time). */
function wordsOf(out: Uint8Array): Int32Array {
  return new Int32Array(out.buffer, out.byteOffset, out.length / 4);
}

function fillPath(
  out: Int32Array,
  slot: number,
  leafIndex: number,
  size: number,
  fromLevel: number,
  source: NodeSource,
): void {
  const inner = xorBitLength(leafIndex, size - 1);
  let offset = slot * WORDS;
  for (let level = fromLevel; level < inner; level++, offset += WORDS) {
    const index = shiftRight(leafIndex, level);
    const sibling = index % 2 === 0 ? index + 1 : index - 1;
    if (level === inner - 1 && (sibling + 1) * POW2[level]! > size)
      source.copyBorderNode(level, size, out, offset);
    else source.copyNode(level, sibling, out, offset);
  }
  for (
    let level = inner, index = shiftRight(leafIndex, inner);
    index > 0;
    level++, index = Math.floor(index / 2)
  ) {
    if (index % 2 === 1) {
      source.copyNode(level, index - 1, out, offset);
      offset += WORDS;
    }
  }
}

/** RFC 9162 inclusion proof of leaf `index` in the tree of `size` leaves (0 ≤ index < size). */
export function inclusionProof(index: number, size: number, source: NodeSource): Uint8Array[] {
  return views(inclusionProofBytes(index, size, source));
}

/** The inclusion proof's hashes concatenated in one buffer (32 bytes each, lowest level first). */
export function inclusionProofBytes(index: number, size: number, source: NodeSource): Uint8Array {
  const out = pathToRoot(index, size, 0, 0);
  fillPath(wordsOf(out), 0, index, size, 0, source);
  return out;
}

/** RFC 9162 consistency proof from `size1` to `size2` leaves (0 < size1 ≤ size2). */
export function consistencyProof(size1: number, size2: number, source: NodeSource): Uint8Array[] {
  if (size1 === size2) return [];
  // The old tree's rightmost perfect subtree, of height `shift`, is where the two trees part; its hash
  // opens the proof unless it is the whole old tree (whose root the verifier already has). The rest is
  // the path from that subtree to the new root.
  const shift = trailingZeros(size1);
  const last = size1 - 1;
  const withSeed = size1 !== 2 ** shift ? 1 : 0;
  const out = pathToRoot(last, size2, shift, withSeed);
  const words = wordsOf(out);
  if (withSeed) source.copyNode(shift, shiftRight(last, shift), words, 0);
  fillPath(words, withSeed, last, size2, shift, source);
  return views(out);
}
