/**
 * Where the log keeps its hashes: C2SP tiles. Any backend that can store a byte string under a key
 * (SQLite, MongoDB, plain files, object storage) can implement `TileStore`; methods may be synchronous
 * or return promises.
 */
import type { MaybePromise } from '../encoding/maybe-promise';
import { TILE_WIDTH, type TileCoordinates } from './tiles';

/** A tile's coordinates and its hashes: `width` × 32 bytes, concatenated in index order. */
export interface Tile extends TileCoordinates {
  readonly hashes: Uint8Array;
}

/** Storage for hash tiles. */
export interface TileStore {
  /**
   * The first `width` hashes of tile (`level`, `index`), or undefined when the store does not hold
   * that many. A store may answer from a wider tile: a partial tile is a prefix of every wider one.
   */
  getTile(level: number, index: number, width: number): MaybePromise<Uint8Array | undefined>;
  /**
   * Stores the tiles an integration produced (new full tiles and the grown partial tiles), ideally
   * atomically. The arrays must not be modified afterwards by either side: the log never rewrites a
   * stored hash, which lets in-memory stores keep them without copying.
   */
  putTiles(tiles: readonly Tile[]): MaybePromise<void>;
}

/**
 * In-memory tile store. It keeps the arrays it is given without copying, so with `TileLog` (which
 * hands over views of its own tile buffers) storing tiles costs no extra memory.
 */
export class MemoryTileStore implements TileStore {
  readonly #levels: Uint8Array[][] = [];

  getTile(level: number, index: number, width: number): Uint8Array | undefined {
    const stored = this.#levels[level]?.[index];
    if (!stored || stored.length < width * 32) return undefined;
    return stored.length === width * 32 ? stored : stored.subarray(0, width * 32);
  }

  putTiles(tiles: readonly Tile[]): void {
    for (const tile of tiles) {
      if (tile.hashes.length !== tile.width * 32 || tile.width < 1 || tile.width > TILE_WIDTH) {
        throw new RangeError(
          `tile ${tile.level}/${tile.index} has ${tile.hashes.length} bytes for width ${tile.width}`,
        );
      }
      let level = this.#levels[tile.level];
      if (!level) {
        level = [];
        this.#levels[tile.level] = level;
      }
      const existing = level[tile.index];
      if (!existing || existing.length < tile.hashes.length) level[tile.index] = tile.hashes;
    }
  }
}
