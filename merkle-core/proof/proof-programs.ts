/**
 * RFC 9162 proof verification algorithms, written once for both Node (synchronous hashing) and
 * browsers (WebCrypto, asynchronous hashing).
 *
 * Each algorithm is a generator that yields the pair of children it needs hashed and receives
 * SHA-256(0x01 ‖ left ‖ right) back; `runSync` and `runAsync` drive it with either kind of hasher.
 * The programs also cover subtree proofs (draft-ietf-plants-merkle-tree-certs §4.3–4.4), of which
 * RFC 9162 consistency is the special case start = 0.
 *
 * Size 0: a consistency proof *from* the empty tree proves nothing (every tree extends it), so
 * `consistencyProgram` rejects old size 0 as RFC 9162 and transparency-dev/merkle do. The witness
 * (witness.ts) handles its "old size 0, empty proof" rule itself before any proof is checked.
 */
import { bitCeil, bitLength, isIndex, popCount, shiftRight, xorBitLength } from '../encoding/bits';
import { bytesEqual } from '../encoding/bytes';
import { fail, OK, type Verdict } from './verdict';

/** Children whose interior node hash the program needs. */
type ChildrenRequest = readonly [left: Uint8Array, right: Uint8Array];

/** A verification algorithm that asks its driver for interior node hashes. */
export type HashProgram<T> = Generator<ChildrenRequest, T, Uint8Array>;

const HASH_SIZE = 32;

/** SHA-256 of the empty string: the root of the empty tree and the hash of an empty subtree. */
export const EMPTY_TREE_ROOT = new Uint8Array([
  0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae,
  0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
]);

/** Drives a program with a synchronous hasher. */
export function runSync<T>(
  program: HashProgram<T>,
  hashChildren: (l: Uint8Array, r: Uint8Array) => Uint8Array,
): T {
  let step = program.next();
  while (!step.done) {
    const [left, right] = step.value;
    step = program.next(hashChildren(left, right));
  }
  return step.value;
}

/** Drives a program with an asynchronous hasher (e.g. WebCrypto). */
export async function runAsync<T>(
  program: HashProgram<T>,
  hashChildren: (l: Uint8Array, r: Uint8Array) => Promise<Uint8Array>,
): Promise<T> {
  let step = program.next();
  while (!step.done) {
    const [left, right] = step.value;
    step = program.next(await hashChildren(left, right));
  }
  return step.value;
}

function badProofHash(proof: readonly Uint8Array[]): string | undefined {
  const index = proof.findIndex((h) => h.length !== HASH_SIZE);
  return index < 0 ? undefined : `proof hash ${index} is ${proof[index]!.length} bytes, not ${HASH_SIZE}`;
}

/** A half-open range [start, end) is a subtree when start is a multiple of BIT_CEIL(end - start). */
function isValidSubtree(start: number, end: number): boolean {
  return isIndex(start) && isIndex(end) && start < end && start % bitCeil(end - start) === 0;
}

/** RFC 9162 §2.1.3.2: computes the root implied by an inclusion proof, or explains why it cannot. */
export function* rootFromInclusionProgram(
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
): HashProgram<{ root: Uint8Array } | { error: string }> {
  if (!isIndex(index) || !isIndex(size))
    return { error: 'index and size must be non-negative safe integers' };
  if (index >= size) return { error: `index ${index} is not below tree size ${size}` };
  if (leafHash.length !== HASH_SIZE)
    return { error: `leaf hash is ${leafHash.length} bytes, not ${HASH_SIZE}` };
  const bad = badProofHash(proof);
  if (bad) return { error: bad };
  // Levels below the point where the paths to `index` and `size - 1` diverge need a sibling on either
  // side; above it every sibling is a left one, one per set bit of the remaining index.
  const inner = xorBitLength(index, size - 1);
  const border = popCount(shiftRight(index, inner));
  if (proof.length !== inner + border) {
    return { error: `proof has ${proof.length} hashes, a tree of size ${size} needs ${inner + border}` };
  }
  let hash = leafHash;
  for (let level = 0; level < inner; level++) {
    const sibling = proof[level]!;
    hash = shiftRight(index, level) % 2 === 0 ? yield [hash, sibling] : yield [sibling, hash];
  }
  for (let i = inner; i < proof.length; i++) hash = yield [proof[i]!, hash];
  return { root: hash };
}

/** RFC 9162 §2.1.3.2 inclusion proof verification. */
export function* inclusionProgram(
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): HashProgram<Verdict> {
  const result = yield* rootFromInclusionProgram(index, size, leafHash, proof);
  if ('error' in result) return fail(result.error);
  return bytesEqual(result.root, root) ? OK : fail('proof leads to a different root');
}

/** Inclusion of leaf `index` in the subtree [start, end) whose hash is `subtreeRoot` (MTC draft §4.3). */
export function* subtreeInclusionProgram(
  index: number,
  start: number,
  end: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  subtreeRoot: Uint8Array,
): HashProgram<Verdict> {
  if (!isIndex(index) || !isIndex(start) || !isIndex(end)) {
    return fail('index, start and end must be non-negative safe integers');
  }
  if (!isValidSubtree(start, end)) return fail(`[${start}, ${end}) is not a valid subtree`);
  if (index < start || index >= end) return fail(`index ${index} is outside the subtree [${start}, ${end})`);
  return yield* inclusionProgram(index - start, end - start, leafHash, proof, subtreeRoot);
}

/**
 * RFC 9162 §2.1.4.2 consistency proof verification between tree sizes `size1` ≤ `size2`.
 * Old size 0 is rejected: see the module comment.
 */
export function* consistencyProgram(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): HashProgram<Verdict> {
  if (!isIndex(size1) || !isIndex(size2)) return fail('sizes must be non-negative safe integers');
  if (size2 < size1) return fail(`new size ${size2} is smaller than old size ${size1}`);
  if (size1 === 0) return fail('a consistency proof from the empty tree proves nothing and is not accepted');
  if (size1 === size2) {
    if (proof.length > 0) return fail('equal sizes need an empty proof');
    return bytesEqual(root1, root2) ? OK : fail('equal sizes but different roots');
  }
  if (proof.length === 0) return fail('empty proof for different sizes');
  return yield* subtreeConsistencyProgram(0, size1, size2, proof, root1, root2);
}

/**
 * Consistency of the subtree [start, end), whose hash is `subtreeRoot`, with the tree of `size`
 * leaves whose root is `root` (MTC draft §4.4.3). An empty subtree (start = end) is contained in every
 * tree: it verifies with an empty proof when its hash is the empty-tree hash.
 */
export function* subtreeConsistencyProgram(
  start: number,
  end: number,
  size: number,
  proof: readonly Uint8Array[],
  subtreeRoot: Uint8Array,
  root: Uint8Array,
): HashProgram<Verdict> {
  if (!isIndex(start) || !isIndex(end) || !isIndex(size)) {
    return fail('start, end and size must be non-negative safe integers');
  }
  if (end > size) return fail(`subtree end ${end} is beyond tree size ${size}`);
  if (start === end) {
    if (proof.length > 0) return fail('an empty subtree needs an empty proof');
    return bytesEqual(subtreeRoot, EMPTY_TREE_ROOT) ? OK : fail('an empty subtree must hash to SHA-256("")');
  }
  if (!isValidSubtree(start, end)) return fail(`[${start}, ${end}) is not a valid subtree`);
  if (start === 0 && end === size) {
    if (proof.length > 0) return fail('the whole tree needs an empty proof');
    return bytesEqual(subtreeRoot, root) ? OK : fail('equal sizes but different roots');
  }
  if (proof.length === 0) return fail('empty proof');
  const bad = badProofHash(proof);
  if (bad) return fail(bad);

  // fn, sn and tn follow the subtree's first leaf, its last leaf and the tree's last leaf up the tree.
  let fn = start;
  let sn = end - 1;
  let tn = size - 1;
  const climb = (): void => {
    fn = shiftRight(fn, 1);
    sn = shiftRight(sn, 1);
    tn = shiftRight(tn, 1);
  };
  // Skip the levels that need no proof hash: all of them up to the subtree root when the subtree sits
  // on the tree's right edge, otherwise only while the subtree's last node is a right child.
  if (sn === tn) {
    while (fn !== sn) climb();
  } else {
    while (fn !== sn && sn % 2 === 1) climb();
  }
  // fr rebuilds the subtree hash and sr the tree root, from a shared seed: the subtree root itself when
  // it is a single node, otherwise the first proof hash.
  let next = 0;
  let fr = fn === sn ? subtreeRoot : proof[next++]!;
  let sr = fr;
  for (; next < proof.length; next++) {
    const c = proof[next]!;
    if (tn === 0) return fail(`proof has ${proof.length - next} hashes too many`);
    if (sn % 2 === 1 || sn === tn) {
      if (fn < sn) fr = yield [c, fr];
      sr = yield [c, sr];
      while (sn % 2 === 0) climb();
    } else {
      sr = yield [sr, c];
    }
    climb();
  }
  if (tn !== 0) return fail(`proof is too short: ${bitLength(tn)} more levels to climb`);
  if (!bytesEqual(fr, subtreeRoot)) return fail('proof does not match the old root');
  if (!bytesEqual(sr, root)) return fail('proof does not lead to the new root');
  return OK;
}
