/**
 * Level-0 tiles of a tree of a given size (C2SP tlog-tiles: 256 leaf hashes per full tile, one
 * partial tile at the end) built from recomputed leaf hashes arriving in order, and their comparison
 * with the tiles a server serves. Only one tile is held at a time: memory stays flat whatever the size.
 */
import { HASH_SIZE, TILE_WIDTH } from '../merkle-core';

/** Recomputed leaf hashes of one level-0 tile of the server's tree. */
export interface LocalTile {
  /** Tile index: the tile holds leaves [index·256, index·256 + width). */
  readonly index: number;
  /** Hashes the server's tile holds at the compared tree size (256, or fewer for the last tile). */
  readonly width: number;
  /** Leaf hashes recomputed so far, `have` × 32 bytes; `have < width` only when the stream ended early. */
  readonly hashes: Uint8Array;
  readonly have: number;
}

/** A difference between a served tile and the recomputed one. */
export interface TileDifference {
  /** Index of the first leaf whose hash differs. */
  readonly firstLeaf: number;
  /** How many of the compared leaves differ. */
  readonly leaves: number;
}

/** Width of level-0 tile `index` in a tree of `treeSize` leaves (0 when the tile is beyond it). */
export function tileWidth(index: number, treeSize: number): number {
  return Math.max(0, Math.min(TILE_WIDTH, treeSize - index * TILE_WIDTH));
}

/**
 * Compares the first `local.have` hashes of a served tile with the recomputed ones. The served tile
 * must be exactly `local.width` hashes; a tile of another length is reported as a whole.
 */
export function compareTile(local: LocalTile, served: Uint8Array): TileDifference | string | null {
  if (served.length !== local.width * HASH_SIZE) {
    return `the server's tile has ${served.length} bytes, not ${local.width} hashes of ${HASH_SIZE} bytes`;
  }
  let first = -1;
  let leaves = 0;
  for (let i = 0; i < local.have; i++) {
    const at = i * HASH_SIZE;
    for (let b = 0; b < HASH_SIZE; b++) {
      if (served[at + b] !== local.hashes[at + b]) {
        if (first < 0) first = i;
        leaves++;
        break;
      }
    }
  }
  return first < 0 ? null : { firstLeaf: local.index * TILE_WIDTH + first, leaves };
}

/**
 * Collects recomputed leaf hashes, in leaf order, into the level-0 tiles of a tree of `treeSize`
 * leaves; leaves at or beyond `treeSize` are not part of it and are ignored.
 */
export class TileAccumulator {
  #index = 0;
  #have = 0;
  #hashes: Uint8Array;

  constructor(readonly treeSize: number) {
    this.#hashes = new Uint8Array(tileWidth(0, treeSize) * HASH_SIZE);
  }

  /** Adds the hash of leaf `leafIndex` (the next one); returns the tile it completes, if any. */
  add(leafIndex: number, leafHash: Uint8Array): LocalTile | null {
    if (leafIndex >= this.treeSize) return null;
    const expected = this.#index * TILE_WIDTH + this.#have;
    if (leafIndex !== expected)
      throw new RangeError(`leaf ${leafIndex} arrived where leaf ${expected} was due`);
    this.#hashes.set(leafHash.subarray(0, HASH_SIZE), this.#have * HASH_SIZE);
    this.#have++;
    const width = tileWidth(this.#index, this.treeSize);
    if (this.#have < width) return null;
    const tile: LocalTile = { index: this.#index, width, hashes: this.#hashes, have: width };
    this.#index++;
    this.#have = 0;
    this.#hashes = new Uint8Array(tileWidth(this.#index, this.treeSize) * HASH_SIZE);
    return tile;
  }

  /** The tile the stream stopped inside (fewer hashes than the server's width), or null. */
  takeIncomplete(): LocalTile | null {
    if (this.#have === 0) return null;
    const width = tileWidth(this.#index, this.treeSize);
    const tile: LocalTile = { index: this.#index, width, hashes: this.#hashes, have: this.#have };
    this.#have = 0;
    return tile;
  }
}

/**
 * Whether leaf `index` of a tree of `treeSize` leaves gets its inclusion proof spot-checked: every
 * `every`-th leaf from leaf 0, plus the last leaf.
 */
export function isProofSample(index: number, treeSize: number, every: number): boolean {
  return index < treeSize && (index % every === 0 || index === treeSize - 1);
}
