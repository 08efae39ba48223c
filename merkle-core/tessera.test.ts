/**
 * Interoperability with transparency-dev/tessera: a 15-entry log in the C2SP tlog-tiles POSIX layout.
 * Every root is recomputed from the entries, every level-0 tile reproduced byte for byte, every
 * checkpoint verified with the published key, and re-signing with the published test key reproduces
 * every checkpoint byte for byte. The log is a copy kept in merkle-core/testdata (see its README).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { toBase64 } from './encoding/bytes';
import { verifyCheckpoint } from './index';
import { parseCheckpoint } from './note/checkpoint';
import { loadSignerKey, loadVerifierKey } from './note/keys';
import { parseNote } from './note/note';
import { signCheckpoint } from './note/signing';
import { verifyConsistency, verifyInclusion } from './proof/verify';
import { TileLog } from './tiles/tile-log';
import { MemoryTileStore } from './tiles/tile-store';
import { decodeEntryBundle, entryBundlePath, tilePath } from './tiles/tiles';

const LOG = path.resolve(__dirname, 'testdata/tessera-log');
const VERIFIER_KEY = 'example.com/log/testdata+33d7b496+AeHTu4Q3hEIMHNqc6fASMsq3rKNx280NI+oO5xCFkkSx';
const SIGNER_KEY =
  'PRIVATE+KEY+example.com/log/testdata+33d7b496+AeymY/SZAX0jZcJ8enZ5FY1Dz+wTML2yWSkK+9DSF3eg';
const WORDS = 'one two three four five six seven eit nain ten ileven twelf threeten fourten fivten'.split(
  ' ',
);

const read = (relative: string): Buffer => readFileSync(path.join(LOG, relative));
const sizes = readdirSync(LOG)
  .filter((name) => /^checkpoint\.\d+$/.test(name))
  .map((name) => Number(name.split('.')[1]))
  .sort((a, b) => a - b);

describe('Tessera log', () => {
  let log: TileLog;
  const store = new MemoryTileStore();

  beforeAll(async () => {
    const entries = decodeEntryBundle(read(entryBundlePath(0, Math.max(...sizes))));
    expect(entries.map((e) => Buffer.from(e).toString('ascii'))).toEqual(WORDS);
    log = new TileLog(store);
    // Integrate in the same steps Tessera published, so every partial tile is written.
    for (let size = 1; size <= entries.length; size++) await log.appendLeaves(entries.slice(size - 1, size));
  });

  it('has a checkpoint for every size from 0 to 15', () => {
    expect(sizes).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it.each(sizes)('recomputes the root of checkpoint.%i from the entries', (size) => {
    const checkpoint = parseCheckpoint(parseNote(read(`checkpoint.${size}`).toString('utf8')).text);
    expect(checkpoint.size).toBe(size);
    expect(toBase64(log.root(size))).toBe(toBase64(checkpoint.rootHash));
  });

  it.each(sizes.filter((s) => s > 0))('reproduces level-0 tile %i byte for byte', (width) => {
    const published = read(tilePath({ level: 0, index: 0, width }));
    expect(Buffer.from(store.getTile(0, 0, width)!).equals(published)).toBe(true);
    expect(Buffer.from(log.tile(0, 0, width)).equals(published)).toBe(true);
  });

  it('verifies every checkpoint with the published verifier key', async () => {
    const key = loadVerifierKey(VERIFIER_KEY);
    for (const size of sizes) {
      const verdict = await verifyCheckpoint(read(`checkpoint.${size}`).toString('utf8'), key);
      expect(verdict.ok && verdict.checkpoint.size).toBe(size);
    }
    const latest = await verifyCheckpoint(read('checkpoint').toString('utf8'), key);
    expect(latest.ok).toBe(true);
  });

  it('re-signs every checkpoint byte for byte with the published test key', () => {
    const signer = loadSignerKey(SIGNER_KEY);
    expect(signer.verifierKey).toBe(VERIFIER_KEY);
    for (const size of sizes) {
      const published = read(`checkpoint.${size}`).toString('utf8');
      expect(signCheckpoint(parseCheckpoint(parseNote(published).text), signer)).toBe(published);
    }
  });

  it('rejects a checkpoint whose text or signature was altered', async () => {
    const key = loadVerifierKey(VERIFIER_KEY);
    const published = read('checkpoint.7').toString('utf8');
    const lines = published.split('\n');
    const alteredSize = [lines[0], '8', ...lines.slice(2)].join('\n');
    expect((await verifyCheckpoint(alteredSize, key)).ok).toBe(false);
    const signature = lines[4]!;
    const flipped = signature.slice(0, -3) + (signature.at(-3) === 'A' ? 'B' : 'A') + signature.slice(-2);
    expect((await verifyCheckpoint([...lines.slice(0, 4), flipped, ''].join('\n'), key)).ok).toBe(false);
  });

  it('proves every entry and every checkpoint against the published roots', () => {
    const roots = sizes.map((size) =>
      parseCheckpoint(parseNote(read(`checkpoint.${size}`).toString('utf8')).text),
    );
    for (const { size, rootHash } of roots.slice(1)) {
      for (let index = 0; index < size; index++) {
        expect(
          verifyInclusion(index, size, log.leafHash(index), log.inclusionProof(index, size), rootHash).ok,
        ).toBe(true);
      }
      for (const older of roots.slice(1, size + 1)) {
        const proof = log.consistencyProof(older.size, size);
        expect(verifyConsistency(older.size, size, proof, older.rootHash, rootHash).ok).toBe(true);
      }
    }
  });
});
