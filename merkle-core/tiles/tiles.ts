/**
 * C2SP tlog-tiles layout. A tile at level L holds up to 256 consecutive hashes of Merkle tree level
 * 8·L (level 0: leaf hashes; level 1: roots of 256-leaf subtrees, …); a partial tile holds only the
 * complete nodes (width W < 256). Paths are `tile/<L>/<N>[.p/<W>]`, where N is written in 3-digit
 * groups, every group but the last prefixed with `x` (1234067 → x001/x234/067). Entry bundles live
 * at `tile/entries/<N>[.p/<W>]`: each entry is a big-endian uint16 length followed by its bytes.
 */
import { isIndex } from '../encoding/bits';

/** log2 of the tile width. */
export const TILE_HEIGHT = 8;
/** Hashes (or entries) in a full tile. */
export const TILE_WIDTH = 256;

/** Coordinates of one tile: its level, its index along that level, and how many hashes it holds. */
export interface TileCoordinates {
  readonly level: number;
  readonly index: number;
  /** 1..256; 256 is a full tile. */
  readonly width: number;
}

function encodeIndex(index: number): string {
  if (!isIndex(index)) throw new RangeError(`tile index ${index} is not a non-negative safe integer`);
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, '0'));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

function encodeWidth(width: number): string {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH)
    throw new RangeError(`bad tile width ${width}`);
  return width === TILE_WIDTH ? '' : `.p/${width}`;
}

/** `tile/<L>/<N>[.p/<W>]` for a hash tile. */
export function tilePath({ level, index, width }: TileCoordinates): string {
  if (!Number.isInteger(level) || level < 0 || level > 63) throw new RangeError(`bad tile level ${level}`);
  return `tile/${level}/${encodeIndex(index)}${encodeWidth(width)}`;
}

/** `tile/entries/<N>[.p/<W>]` for an entry bundle. */
export function entryBundlePath(index: number, width: number): string {
  return `tile/entries/${encodeIndex(index)}${encodeWidth(width)}`;
}

const TILE_PATH = /^tile\/(entries|\d{1,2})\/((?:x\d{3}\/)*)(\d{3})(?:\.p\/(\d{1,3}))?$/;

/**
 * Parses a tile or entry bundle path; returns undefined for anything that is not a canonical path
 * (so a static file server can use it to reject requests).
 */
export function parseTilePath(p: string): (TileCoordinates & { readonly entries: boolean }) | undefined {
  const match = TILE_PATH.exec(p);
  if (!match) return undefined;
  const [, levelText, prefix, last, widthText] = match;
  const entries = levelText === 'entries';
  const level = entries ? 0 : Number(levelText);
  if (!entries && (level > 63 || String(level) !== levelText)) return undefined;
  const groups = [
    ...(prefix ?? '')
      .split('/')
      .filter(Boolean)
      .map((g) => g.slice(1)),
    last ?? '',
  ];
  if (groups.length > 1 && groups[0] === '000') return undefined;
  const index = groups.reduce((acc, g) => acc * 1000 + Number(g), 0);
  if (!Number.isSafeInteger(index)) return undefined;
  const width = widthText === undefined ? TILE_WIDTH : Number(widthText);
  if (widthText !== undefined && (width < 1 || width >= TILE_WIDTH || String(width) !== widthText)) {
    return undefined;
  }
  return { level, index, width, entries };
}

/** Serialises entries as a tlog-tiles entry bundle (uint16 big-endian length prefixes). */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const e of entries) {
    if (e.length > 0xffff) throw new RangeError('entry longer than 65535 bytes');
    length += 2 + e.length;
  }
  const out = new Uint8Array(length);
  let offset = 0;
  for (const e of entries) {
    out[offset] = e.length >> 8;
    out[offset + 1] = e.length & 0xff;
    out.set(e, offset + 2);
    offset += 2 + e.length;
  }
  return out;
}

/** Splits an entry bundle into its entries; throws on a truncated bundle. */
export function decodeEntryBundle(bundle: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  let offset = 0;
  while (offset < bundle.length) {
    if (offset + 2 > bundle.length) throw new Error('entry bundle: truncated length prefix');
    const length = (bundle[offset]! << 8) | bundle[offset + 1]!;
    if (offset + 2 + length > bundle.length) throw new Error('entry bundle: truncated entry');
    entries.push(bundle.subarray(offset + 2, offset + 2 + length));
    offset += 2 + length;
  }
  return entries;
}
