/** C2SP tlog-tiles paths, entry bundles and the plain-files tile store. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toHex } from '../encoding/bytes';
import { FileTileStore } from './file-tile-store';
import { TileLog } from './tile-log';
import { decodeEntryBundle, encodeEntryBundle, entryBundlePath, parseTilePath, tilePath } from './tiles';

describe('tile paths', () => {
  it('encodes the index in x-prefixed 3-digit groups and partial widths as .p/<W>', () => {
    expect(tilePath({ level: 0, index: 0, width: 256 })).toBe('tile/0/000');
    expect(tilePath({ level: 1, index: 1234067, width: 256 })).toBe('tile/1/x001/x234/067');
    expect(tilePath({ level: 2, index: 1000, width: 7 })).toBe('tile/2/x001/000.p/7');
    expect(entryBundlePath(5, 255)).toBe('tile/entries/005.p/255');
  });

  it('parses canonical paths and rejects everything else', () => {
    expect(parseTilePath('tile/1/x001/x234/067')).toEqual({
      level: 1,
      index: 1234067,
      width: 256,
      entries: false,
    });
    expect(parseTilePath('tile/entries/005.p/3')).toEqual({ level: 0, index: 5, width: 3, entries: true });
    for (const bad of [
      'tile/0/1',
      'tile/0/x000/001',
      'tile/0/000.p/256',
      'tile/0/000.p/0',
      'tile/00/000',
      '../tile/0/000',
    ]) {
      expect(parseTilePath(bad)).toBeUndefined();
    }
  });

  it('round-trips entry bundles with uint16 length prefixes', () => {
    const entries = ['a', '', 'hello'].map((s) => new TextEncoder().encode(s));
    const bundle = encodeEntryBundle(entries);
    expect(toHex(bundle)).toBe('0001610000000568656c6c6f');
    expect(decodeEntryBundle(bundle).map(toHex)).toEqual(entries.map(toHex));
    expect(() => decodeEntryBundle(bundle.subarray(0, 7))).toThrow(/truncated/);
  });
});

describe('FileTileStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tiles-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the static tile layout and reopens the log from it', async () => {
    const store = new FileTileStore(dir);
    const log = new TileLog(store);
    const leaves = Array.from({ length: 600 }, (_, i) => new TextEncoder().encode(`leaf ${i}`));
    await log.appendLeaves(leaves.slice(0, 300));
    await log.appendLeaves(leaves.slice(300));
    expect((await readFile(path.join(dir, 'tile/0/001'))).length).toBe(256 * 32);
    expect((await readFile(path.join(dir, 'tile/0/001.p/44'))).length).toBe(44 * 32);
    expect(toHex(await readFile(path.join(dir, 'tile/0/002.p/88')))).toBe(toHex(log.tile(0, 2, 88)));
    expect(toHex(await readFile(path.join(dir, 'tile/1/000.p/2')))).toBe(toHex(log.tile(1, 0, 2)));
    expect(toHex((await store.getTile(0, 0, 17))!)).toBe(toHex(log.tile(0, 0, 17)));
    const reopened = await TileLog.open(new FileTileStore(dir), 600);
    expect(toHex(reopened.root())).toBe(toHex(log.root()));
    await expect(TileLog.open(new FileTileStore(dir), 601)).rejects.toThrow(/lacks tile/);
  });
});
