/**
 * An append-only RFC 9162 Merkle tree whose hashes live in C2SP tiles.
 *
 * Memory layout: for every tile the log keeps one contiguous "expanded tile" buffer with all eight
 * tree levels the tile spans — 256 hashes of its own level, then 128, 64, … 2 of the levels above
 * (510 hashes, 16,320 bytes). The first 256 hashes are exactly the C2SP tile, so tiles are handed to
 * the store as zero-copy views; the other 254 are the interior nodes C2SP leaves out, kept so an
 * inclusion proof is ~20 array reads instead of re-hashing up to 255 nodes per tile. That is about
 * 64 bytes per leaf for the whole tree. Appending hashes straight from and into these buffers, so
 * integration allocates nothing per leaf.
 *
 * MEASURED FAST PATH: the buffer layout, the word views and the inlined index arithmetic below are
 * what bench/merkle.bench.ts measures (tree building, proofs, memory per leaf). Do not copy these
 * patterns elsewhere: outside the log, plain objects and arrays read better and cost nothing that
 * matters.
 */
import { bitAt, bitLength, isIndex, shiftRight } from '../encoding/bits';
import { bytesEqual } from '../encoding/bytes';
import { hashChildrenInto } from '../encoding/hand-written-sha256';
import { consistencyProof, inclusionProof, inclusionProofBytes, type NodeSource } from '../proof/proofs';
import { CompactRange } from '../tree/compact-range';
import { EMPTY_ROOT, HASH_SIZE, hashLeafInto } from '../tree/hash';
import { MemoryTileStore, type Tile, type TileStore } from './tile-store';
import { TILE_HEIGHT, TILE_WIDTH } from './tiles';

/** Offsets, in hashes, of each of the eight levels inside an expanded tile buffer. */
const LEVEL_OFFSETS = [0, 256, 384, 448, 480, 496, 504, 508] as const;
const EXPANDED_TILE_BYTES = 510 * HASH_SIZE;
const RANGE_CACHE_SIZE = 16;
/** 2^level for every tree level, to test node completeness without Math.pow on the hot path. */
const POW2 = Array.from({ length: 64 }, (_, level) => 2 ** level);

/** Where an append landed. */
export interface AppendResult {
  /** Index of the first appended leaf. */
  readonly firstIndex: number;
  /** Tree size after the append. */
  readonly size: number;
}

interface RangeFolds {
  readonly levels: readonly number[];
  readonly folds: readonly Uint8Array[];
  /** The folds as word views, made once per cached size (proofs copy them 8 words at a time). */
  readonly foldWords: readonly Int32Array[];
}

export class TileLog implements NodeSource {
  readonly store: TileStore;
  #size = 0;
  /** #tiles[tileLevel][tileIndex]: expanded tile buffers. */
  readonly #tiles: Uint8Array[][] = [];
  /** Compact-range folds of recently used sizes: roots and right-border nodes. */
  readonly #ranges = new Map<number, RangeFolds>();
  /** Word views of the expanded tiles, parallel to #tiles (proofs copy hashes as 8 words). */
  readonly #tileWords: Int32Array[][] = [];
  /** Buffer found by the last #locate call (avoids allocating a tuple on the hot path). */
  #found: Uint8Array = new Uint8Array(0);

  /** An empty log writing its tiles to `store` (in memory by default). */
  constructor(store: TileStore = new MemoryTileStore()) {
    this.store = store;
  }

  /**
   * Reopens a log of `size` leaves from its tiles: reads every level-0 tile, rebuilds the interior
   * hashes (O(size) hashing) and checks the stored upper-level tiles against them.
   */
  static async open(store: TileStore, size: number): Promise<TileLog> {
    if (!isIndex(size)) throw new RangeError(`bad log size ${size}`);
    const log = new TileLog(store);
    for (let index = 0; index * TILE_WIDTH < size; index++) {
      const width = Math.min(TILE_WIDTH, size - index * TILE_WIDTH);
      const hashes = await store.getTile(0, index, width);
      if (!hashes || hashes.length !== width * HASH_SIZE)
        throw new Error(`store lacks tile 0/${index} (width ${width})`);
      for (let i = 0; i < width; i++) log.#integrateHash(hashes, i * HASH_SIZE);
    }
    for (const tile of log.#tilesBetween(0, size)) {
      if (tile.level === 0) continue;
      const stored = await store.getTile(tile.level, tile.index, tile.width);
      if (!stored || !bytesEqual(stored, tile.hashes)) {
        throw new Error(`stored tile ${tile.level}/${tile.index} does not match the hashes of its leaves`);
      }
    }
    return log;
  }

  /** Number of leaves. */
  get size(): number {
    return this.#size;
  }

  /** Appends leaves given as data (hashed as SHA-256(0x00 ‖ data)) and stores the changed tiles. */
  async appendLeaves(leafData: readonly Uint8Array[]): Promise<AppendResult> {
    const firstIndex = this.#size;
    for (const data of leafData) {
      const offset = this.#locate(0, this.#size, true);
      hashLeafInto(data, this.#found, offset);
      this.#propagate(this.#size);
      this.#size++;
    }
    await this.#persist(firstIndex);
    return { firstIndex, size: this.#size };
  }

  /** Appends precomputed leaf hashes and stores the changed tiles. */
  async appendLeafHashes(leafHashes: readonly Uint8Array[]): Promise<AppendResult> {
    if (leafHashes.some((h) => h.length !== HASH_SIZE)) throw new RangeError('leaf hashes must be 32 bytes');
    const firstIndex = this.#size;
    for (const hash of leafHashes) this.#integrateHash(hash, 0);
    await this.#persist(firstIndex);
    return { firstIndex, size: this.#size };
  }

  /** RFC 9162 root of the first `size` leaves (default: all). */
  root(size = this.#size): Uint8Array {
    this.#checkSize(size);
    return size === 0 ? EMPTY_ROOT.slice() : this.#rangeFolds(size).folds[0]!.slice();
  }

  /** Inclusion proof of leaf `index` in the tree of the first `size` leaves (default: all). */
  inclusionProof(index: number, size = this.#size): Uint8Array[] {
    this.#checkSize(size);
    if (!isIndex(index) || index >= size)
      throw new RangeError(`leaf ${index} is not in a tree of size ${size}`);
    return inclusionProof(index, size, this);
  }

  /** The same inclusion proof as one buffer of concatenated hashes (no per-hash objects: fastest). */
  inclusionProofBytes(index: number, size = this.#size): Uint8Array {
    this.#checkSize(size);
    if (!isIndex(index) || index >= size)
      throw new RangeError(`leaf ${index} is not in a tree of size ${size}`);
    return inclusionProofBytes(index, size, this);
  }

  /**
   * Consistency proof from tree size `size1` to `size2` (default: all). From size 0 the proof is
   * empty: RFC 9162 verifiers reject it, the witness protocol accepts it.
   */
  consistencyProof(size1: number, size2 = this.#size): Uint8Array[] {
    this.#checkSize(size2);
    if (!isIndex(size1) || size1 > size2)
      throw new RangeError(`cannot prove size ${size1} against size ${size2}`);
    return size1 === 0 ? [] : consistencyProof(size1, size2, this);
  }

  /** Hash of leaf `index`. */
  leafHash(index: number): Uint8Array {
    return this.node(0, index);
  }

  /** Hash of the complete node at `level` over leaves [index·2^level, (index+1)·2^level). */
  node(level: number, index: number): Uint8Array {
    const out = new Uint8Array(HASH_SIZE);
    this.copyNode(level, index, new Int32Array(out.buffer), 0);
    return out;
  }

  /** Copies the hash of the complete node (`level`, `index`) as 8 words into `out` at `wordOffset`. */
  copyNode(level: number, index: number, out: Int32Array, wordOffset: number): void {
    if (!(index >= 0 && (index + 1) * POW2[level]! <= this.#size)) {
      throw new RangeError(`node ${level}/${index} is not complete in a tree of size ${this.#size}`);
    }
    // Inline #locate with shifts: this runs ~20 times per proof.
    const levelInTile = level & 7;
    const shift = TILE_HEIGHT - levelInTile;
    const tileIndex = index < 0x80000000 ? index >>> shift : Math.floor(index / POW2[shift]!);
    const words = this.#tileWords[level >>> 3]![tileIndex]!;
    let from = (LEVEL_OFFSETS[levelInTile]! + index - tileIndex * POW2[shift]!) << 3;
    for (let i = wordOffset; i < wordOffset + 8; i++) out[i] = words[from++]!;
  }

  /** Copies the incomplete node at `level` holding leaf `size - 1` (from the compact range of `size`). */
  copyBorderNode(level: number, size: number, out: Int32Array, wordOffset: number): void {
    const { levels, foldWords } = this.#rangeFolds(size);
    // A plain loop and cached views: this runs on about half of all proofs, so it must not allocate.
    let first = 0;
    while (first < levels.length && levels[first]! >= level) first++;
    if (first === levels.length)
      throw new RangeError(`no incomplete node at level ${level} for size ${size}`);
    const words = foldWords[first]!;
    for (let i = 0; i < 8; i++) out[wordOffset + i] = words[i]!;
  }

  /**
   * The hashes of tile (`level`, `index`) with `width` hashes, as a view (do not modify). Serves the
   * log as static tiles without going through the store.
   */
  tile(level: number, index: number, width: number): Uint8Array {
    const complete = Math.floor(this.#size / TILE_WIDTH ** level);
    if (!isIndex(index) || width < 1 || width > TILE_WIDTH || index * TILE_WIDTH + width > complete) {
      throw new RangeError(`tile ${level}/${index} of width ${width} is not available at size ${this.#size}`);
    }
    return this.#tiles[level]![index]!.subarray(0, width * HASH_SIZE);
  }

  /** The compact range (right frontier) of the first `size` leaves. */
  compactRange(size = this.#size): CompactRange {
    this.#checkSize(size);
    const hashes: Uint8Array[] = [];
    for (let level = bitLength(size) - 1; level >= 0; level--) {
      if (bitAt(size, level) === 1) hashes.push(this.node(level, shiftRight(size, level) - 1));
    }
    return new CompactRange(size, hashes);
  }

  #checkSize(size: number): void {
    if (!isIndex(size) || size > this.#size)
      throw new RangeError(`size ${size} is beyond the log size ${this.#size}`);
  }

  /** Byte offset of node (level, index) in its expanded tile, which is left in #found. */
  #locate(level: number, index: number, create: boolean): number {
    const tileLevel = level >>> 3;
    const levelInTile = level & 7;
    const perTile = TILE_WIDTH >>> levelInTile;
    const tileIndex = Math.floor(index / perTile);
    let row = this.#tiles[tileLevel];
    if (!row) {
      row = [];
      this.#tiles[tileLevel] = row;
      this.#tileWords[tileLevel] = [];
    }
    let buffer = row[tileIndex];
    if (!buffer) {
      if (!create) throw new RangeError(`node ${level}/${index} is not stored`);
      buffer = new Uint8Array(EXPANDED_TILE_BYTES);
      row[tileIndex] = buffer;
      this.#tileWords[tileLevel]![tileIndex] = new Int32Array(buffer.buffer);
    }
    this.#found = buffer;
    return (LEVEL_OFFSETS[levelInTile]! + index - tileIndex * perTile) * HASH_SIZE;
  }

  /** Stores a leaf hash read from `source` at `sourceOffset` as the next leaf. */
  #integrateHash(source: Uint8Array, sourceOffset: number): void {
    const offset = this.#locate(0, this.#size, true);
    this.#found.set(source.subarray(sourceOffset, sourceOffset + HASH_SIZE), offset);
    this.#propagate(this.#size);
    this.#size++;
  }

  /** Hashes every node that leaf `leafIndex` completes: one per trailing 1 bit of the index. */
  #propagate(leafIndex: number): void {
    let level = 0;
    let index = leafIndex;
    while (index % 2 === 1) {
      const rightOffset = this.#locate(level, index, false);
      const children = this.#found;
      const parent = (index - 1) / 2;
      const parentOffset = this.#locate(level + 1, parent, true);
      hashChildrenInto(children, rightOffset - HASH_SIZE, children, rightOffset, this.#found, parentOffset);
      level++;
      index = parent;
    }
  }

  /** Tiles whose width grew between sizes `from` and `to`. */
  #tilesBetween(from: number, to: number): Tile[] {
    const tiles: Tile[] = [];
    for (let level = 0; TILE_WIDTH ** level <= to; level++) {
      const before = Math.floor(from / TILE_WIDTH ** level);
      const after = Math.floor(to / TILE_WIDTH ** level);
      for (let index = Math.floor(before / TILE_WIDTH); index * TILE_WIDTH < after; index++) {
        const width = Math.min(TILE_WIDTH, after - index * TILE_WIDTH);
        if (index * TILE_WIDTH + width <= before) continue;
        const hashes = this.#tiles[level]![index]!.subarray(0, width * HASH_SIZE);
        tiles.push({ level, index, width, hashes });
      }
    }
    return tiles;
  }

  async #persist(from: number): Promise<void> {
    if (from === this.#size) return;
    await this.store.putTiles(this.#tilesBetween(from, this.#size));
  }

  #rangeFolds(size: number): RangeFolds {
    let entry = this.#ranges.get(size);
    if (!entry) {
      const range = this.compactRange(size);
      const folds = range.rightFolds();
      const foldWords = folds.map((fold) => new Int32Array(fold.buffer, fold.byteOffset, 8));
      entry = { levels: range.levels, folds, foldWords };
      if (this.#ranges.size >= RANGE_CACHE_SIZE) this.#ranges.delete(this.#ranges.keys().next().value!);
      this.#ranges.set(size, entry);
    }
    return entry;
  }
}
