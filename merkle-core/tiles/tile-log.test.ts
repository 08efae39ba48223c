/**
 * The tile log against the naive recursive RFC 9162 implementation: roots, inclusion and consistency
 * proofs agree for every size, proofs verify, and any single-bit change is rejected.
 */
import fc from 'fast-check';
import { toHex } from '../encoding/bytes';
import { verifyConsistency, verifyInclusion } from '../proof/verify';
import {
  refConsistencyProof,
  refConsistencyShape,
  refInclusionProof,
  refInclusionShape,
  refLeafHash,
  refRoot,
} from '../test/reference';
import { CompactRange } from '../tree/compact-range';
import { EMPTY_ROOT, leafHash } from '../tree/hash';
import { TileLog } from './tile-log';
import { MemoryTileStore } from './tile-store';

const MAX_SIZE = 2000;
const leafData = (i: number): Uint8Array => new TextEncoder().encode(`leaf ${i}`);
const hex = (hashes: readonly Uint8Array[]): string[] => hashes.map(toHex);

// One log and one reference leaf list of MAX_SIZE leaves, appended in uneven batches.
let log: TileLog;
const refLeaves: Uint8Array[] = [];

beforeAll(async () => {
  log = new TileLog();
  const data = Array.from({ length: MAX_SIZE }, (_, i) => leafData(i));
  for (let start = 0, batch = 1; start < MAX_SIZE; start += batch, batch = (batch * 7 + 3) % 300) {
    await log.appendLeaves(data.slice(start, start + batch));
  }
  refLeaves.push(...data.map(refLeafHash));
});

function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = bytes.slice();
  copy[Math.floor(bit / 8) % copy.length]! ^= 1 << (bit % 8);
  return copy;
}

describe('TileLog', () => {
  it('hashes leaves as SHA-256(0x00 ‖ data) and starts from the empty-tree root', () => {
    expect(toHex(leafHash(leafData(7)))).toBe(toHex(refLeafHash(leafData(7))));
    expect(toHex(new TileLog().root())).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(toHex(log.root(0))).toBe(toHex(EMPTY_ROOT));
  });

  it('computes the root at every size up to the current one', () => {
    for (let size = 0; size <= MAX_SIZE; size += size < 300 ? 1 : 37) {
      expect(toHex(log.root(size))).toBe(toHex(refRoot(refLeaves.slice(0, size))));
    }
    expect(toHex(log.root())).toBe(toHex(refRoot(refLeaves)));
  });

  it('agrees with the compact range built leaf by leaf', () => {
    const range = new CompactRange();
    for (let i = 0; i < 700; i++) {
      range.append(refLeaves[i]!);
      expect(toHex(range.root())).toBe(toHex(log.root(i + 1)));
    }
    expect(hex(log.compactRange(700).hashes)).toEqual(hex(range.hashes));
  });

  it('produces the RFC 9162 inclusion proof, which verifies, for random (index, size)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_SIZE }).chain((size) => fc.tuple(fc.constant(size), fc.nat(size - 1))),
        ([size, index]) => {
          const proof = log.inclusionProof(index, size);
          const leaves = refLeaves.slice(0, size);
          expect(hex(proof)).toEqual(hex(refInclusionProof(index, leaves)));
          expect(verifyInclusion(index, size, log.leafHash(index), proof, refRoot(leaves))).toEqual({
            ok: true,
          });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('produces the RFC 9162 consistency proof, which verifies, for random (m, n)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: MAX_SIZE })
          .chain((n) => fc.tuple(fc.integer({ min: 1, max: n }), fc.constant(n))),
        ([m, n]) => {
          const proof = log.consistencyProof(m, n);
          expect(hex(proof)).toEqual(hex(refConsistencyProof(m, refLeaves.slice(0, n))));
          expect(verifyConsistency(m, n, proof, log.root(m), log.root(n))).toEqual({ ok: true });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('rejects an inclusion proof after a bit flip in any hash, the leaf, the root, the index or the size', () => {
    const flips = fc.nat(255);
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: MAX_SIZE }).chain((size) => fc.tuple(fc.constant(size), fc.nat(size - 1))),
        flips,
        fc.nat(),
        fc.nat(52),
        ([size, index], bit, which, numberBit) => {
          const proof = log.inclusionProof(index, size);
          const leaf = log.leafHash(index);
          const root = log.root(size);
          expect(verifyInclusion(index, size, leaf, proof, root).ok).toBe(true);
          const tampered = proof.map((h, i) => (i === which % proof.length ? flipBit(h, bit) : h));
          expect(verifyInclusion(index, size, leaf, tampered, root).ok).toBe(false);
          expect(verifyInclusion(index, size, flipBit(leaf, bit), proof, root).ok).toBe(false);
          expect(verifyInclusion(index, size, leaf, proof, flipBit(root, bit)).ok).toBe(false);
          const otherIndex = index ^ (2 ** (numberBit % 12));
          if (otherIndex !== index)
            expect(verifyInclusion(otherIndex, size, leaf, proof, root).ok).toBe(false);
          // RFC 9162 binds the size only through the proof's shape (the signed checkpoint binds size and
          // root together), so a flipped size is rejected exactly when it changes that shape.
          const otherSize = size ^ (2 ** (numberBit % 12));
          const sameShape =
            otherSize > index && refInclusionShape(index, otherSize) === refInclusionShape(index, size);
          expect(verifyInclusion(index, otherSize, leaf, proof, root).ok).toBe(sameShape);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects a consistency proof after a bit flip in any hash, either root or either size', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: MAX_SIZE })
          .chain((n) => fc.tuple(fc.integer({ min: 1, max: n - 1 }), fc.constant(n))),
        fc.nat(255),
        fc.nat(),
        fc.nat(52),
        ([m, n], bit, which, numberBit) => {
          const proof = log.consistencyProof(m, n);
          const [root1, root2] = [log.root(m), log.root(n)];
          const tampered = proof.map((h, i) => (i === which % proof.length ? flipBit(h, bit) : h));
          expect(verifyConsistency(m, n, tampered, root1, root2).ok).toBe(false);
          expect(verifyConsistency(m, n, proof, flipBit(root1, bit), root2).ok).toBe(false);
          expect(verifyConsistency(m, n, proof, root1, flipBit(root2, bit)).ok).toBe(false);
          const delta = 2 ** (numberBit % 12);
          const shape = refConsistencyShape(m, n);
          const [m2, n2] = [m ^ delta, n ^ delta];
          const sameOld = m2 > 0 && m2 < n && refConsistencyShape(m2, n) === shape;
          const sameNew = n2 > m && refConsistencyShape(m, n2) === shape;
          expect(verifyConsistency(m2, n, proof, root1, root2).ok).toBe(sameOld);
          expect(verifyConsistency(m, n2, proof, root1, root2).ok).toBe(sameNew);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects proofs for indices or sizes beyond the log', () => {
    expect(() => log.inclusionProof(MAX_SIZE, MAX_SIZE)).toThrow(RangeError);
    expect(() => log.inclusionProof(0, MAX_SIZE + 1)).toThrow(RangeError);
    expect(() => log.consistencyProof(5, 4)).toThrow(RangeError);
    expect(log.consistencyProof(0, 10)).toEqual([]);
  });

  it('stores exactly the C2SP tiles: level-0 leaf hashes and level-1 subtree roots', async () => {
    const store = new MemoryTileStore();
    const big = new TileLog(store);
    const size = 256 * 256 + 300;
    const hashes = Array.from({ length: size }, (_, i) => refLeafHash(leafData(i)));
    await big.appendLeafHashes(hashes.slice(0, 1000));
    await big.appendLeafHashes(hashes.slice(1000));
    const tile0 = store.getTile(0, 256, 44)!;
    expect(hex([tile0.subarray(0, 32), tile0.subarray(43 * 32)])).toEqual(
      hex([hashes[65536]!, hashes[65579]!]),
    );
    expect(store.getTile(0, 257, 45)).toBeUndefined();
    const tile1 = store.getTile(1, 0, 256)!;
    expect(toHex(tile1.subarray(255 * 32))).toBe(toHex(refRoot(hashes.slice(255 * 256, 256 * 256))));
    expect(toHex(store.getTile(1, 1, 1)!)).toBe(toHex(refRoot(hashes.slice(65536, 65536 + 256))));
    expect(toHex(store.getTile(2, 0, 1)!)).toBe(toHex(refRoot(hashes.slice(0, 65536))));
    expect(store.getTile(2, 0, 2)).toBeUndefined();
    const reopened = await TileLog.open(store, size);
    expect(toHex(reopened.root())).toBe(toHex(big.root()));
    expect(hex(reopened.inclusionProof(12345))).toEqual(hex(big.inclusionProof(12345)));
  });

  it('refuses to reopen from a store whose upper tiles disagree with the leaves', async () => {
    const store = new MemoryTileStore();
    const small = new TileLog(store);
    await small.appendLeaves(Array.from({ length: 600 }, (_, i) => leafData(i)));
    const forged = store.getTile(1, 0, 2)!.slice();
    forged[0]! ^= 1;
    const tampered = new MemoryTileStore();
    for (const index of [0, 1, 2]) {
      const width = index < 2 ? 256 : 88;
      tampered.putTiles([{ level: 0, index, width, hashes: store.getTile(0, index, width)! }]);
    }
    tampered.putTiles([{ level: 1, index: 0, width: 2, hashes: forged }]);
    await expect(TileLog.open(tampered, 600)).rejects.toThrow(/does not match/);
    await expect(TileLog.open(store, 600)).resolves.toBeInstanceOf(TileLog);
  });
});
