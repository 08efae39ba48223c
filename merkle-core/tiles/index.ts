/** tiles: C2SP tlog-tiles paths and entry bundles, tile stores (memory, files), and TileLog, the log in tiles. */
export { FileTileStore } from './file-tile-store';
export { type AppendResult, TileLog } from './tile-log';
export { MemoryTileStore, type Tile, type TileStore } from './tile-store';
export {
  decodeEntryBundle,
  encodeEntryBundle,
  entryBundlePath,
  parseTilePath,
  TILE_WIDTH,
  type TileCoordinates,
  tilePath,
} from './tiles';
