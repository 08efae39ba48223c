/**
 * Tiles as plain files in the tlog-tiles layout (`<root>/tile/<L>/<N>[.p/<W>]`), so a static web
 * server pointed at `root` serves the log. Writes go to a temporary file renamed into place, so
 * readers never see a half-written tile.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Tile, TileStore } from './tile-store';
import { TILE_WIDTH, tilePath } from './tiles';

export class FileTileStore implements TileStore {
  constructor(readonly root: string) {}

  async getTile(level: number, index: number, width: number): Promise<Uint8Array | undefined> {
    // The exact partial tile first, then the full tile, whose prefix is every partial one.
    const candidates = width === TILE_WIDTH ? [TILE_WIDTH] : [width, TILE_WIDTH];
    for (const w of candidates) {
      const bytes = await this.#read(tilePath({ level, index, width: w }));
      if (bytes && bytes.length >= width * 32) return bytes.subarray(0, width * 32);
    }
    return undefined;
  }

  async putTiles(tiles: readonly Tile[]): Promise<void> {
    await Promise.all(tiles.map((tile) => this.#write(tilePath(tile), tile.hashes)));
  }

  async #read(relative: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(path.join(this.root, relative)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async #write(relative: string, bytes: Uint8Array): Promise<void> {
    const target = path.join(this.root, relative);
    await mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    await writeFile(temporary, bytes);
    await rename(temporary, target);
  }
}
