/**
 * The pure parts of the live check: tile building and comparison, proof sampling, retry delays,
 * answer parsing, bounded concurrency and the capped list of findings.
 */
import { leafHash, TILE_WIDTH, toHex } from '../merkle-core';
import { AnswerFormatError, parseJsonBody, parseProofAnswer, parseSthAnswer } from './live-answers';
import { LiveFindings } from './live-findings';
import { isRetryableStatus, retryDelayMs, serverMessage } from './live-http';
import { TaskPool } from './live-pool';
import { compareTile, isProofSample, type LocalTile, TileAccumulator, tileWidth } from './live-tiles';

const hashOf = (i: number) => leafHash(new Uint8Array([i & 255, i >> 8]));
const utf8 = (text: string) => new TextEncoder().encode(text);

/** The server's tile for leaves [index·256, index·256 + width) of the test hashes. */
function servedTile(index: number, width: number): Uint8Array {
  const out = new Uint8Array(width * 32);
  for (let i = 0; i < width; i++) out.set(hashOf(index * TILE_WIDTH + i), i * 32);
  return out;
}

describe('level-0 tiles', () => {
  it('are 256 wide but for the last, partial one; none lies beyond the tree', () => {
    expect([tileWidth(0, 600), tileWidth(1, 600), tileWidth(2, 600), tileWidth(3, 600)]).toEqual([
      256, 256, 88, 0,
    ]);
    expect(tileWidth(0, 256)).toBe(256);
    expect(tileWidth(1, 256)).toBe(0);
  });

  it('are handed out as each fills up, ignoring leaves beyond the tree size', () => {
    const tiles = new TileAccumulator(300);
    const done: LocalTile[] = [];
    for (let i = 0; i < 310; i++) {
      const tile = tiles.add(i, hashOf(i));
      if (tile) done.push(tile);
    }
    expect(done.map(({ index, width, have }) => ({ index, width, have }))).toEqual([
      { index: 0, width: 256, have: 256 },
      { index: 1, width: 44, have: 44 },
    ]);
    expect(compareTile(done[1]!, servedTile(1, 44))).toBeNull();
    expect(tiles.takeIncomplete()).toBeNull();
  });

  it('leave the tile the stream stopped inside for a prefix comparison', () => {
    const tiles = new TileAccumulator(600);
    for (let i = 0; i < 270; i++) tiles.add(i, hashOf(i));
    const incomplete = tiles.takeIncomplete()!;
    expect({ index: incomplete.index, width: incomplete.width, have: incomplete.have }).toEqual({
      index: 1,
      width: 256,
      have: 14,
    });
    const served = servedTile(1, 256);
    expect(compareTile(incomplete, served)).toBeNull();
    served[13 * 32 + 5]! ^= 1; // leaf 269: compared
    served[20 * 32]! ^= 1; // leaf 276: not in the stream, not compared
    expect(compareTile(incomplete, served)).toEqual({ firstLeaf: 269, leaves: 1 });
  });

  it('refuse leaves out of order', () => {
    const tiles = new TileAccumulator(600);
    tiles.add(0, hashOf(0));
    expect(() => tiles.add(2, hashOf(2))).toThrow('leaf 2 arrived where leaf 1 was due');
  });

  it('report every differing leaf, the first by index, and a tile of the wrong length as a whole', () => {
    const tiles = new TileAccumulator(256);
    let local: LocalTile | null = null;
    for (let i = 0; i < 256; i++) local = tiles.add(i, hashOf(i));
    const served = servedTile(0, 256);
    served[200 * 32]! ^= 1;
    served[7 * 32 + 31]! ^= 1;
    expect(compareTile(local!, served)).toEqual({ firstLeaf: 7, leaves: 2 });
    expect(compareTile(local!, servedTile(0, 255))).toBe(
      "the server's tile has 8160 bytes, not 256 hashes of 32 bytes",
    );
  });
});

describe('proof sampling', () => {
  it('takes every n-th leaf from leaf 0, plus the last leaf of the tree', () => {
    const sampled = Array.from({ length: 2600 }, (_, i) => i).filter((i) => isProofSample(i, 2501, 1000));
    expect(sampled).toEqual([0, 1000, 2000, 2500]);
  });
});

describe('retries', () => {
  it('retry network-level and server-side failures only', () => {
    expect([408, 425, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 404, 501].some(isRetryableStatus)).toBe(false);
  });

  it('back off exponentially, honour a longer Retry-After and never wait beyond the cap', () => {
    expect([0, 1, 2, 3].map((retry) => retryDelayMs(retry, 250, 10_000))).toEqual([250, 500, 1000, 2000]);
    expect(retryDelayMs(0, 250, 10_000, '3')).toBe(3000);
    expect(retryDelayMs(2, 250, 10_000, '0')).toBe(1000);
    expect(retryDelayMs(0, 250, 10_000, 'Wed, 21 Oct 2015 07:28:00 GMT')).toBe(250);
    expect(retryDelayMs(9, 250, 10_000, '120')).toBe(10_000);
  });

  it("quote the API's error message, or the start of any other body", () => {
    expect(serverMessage(utf8('{"error":"NOT_FOUND","message":"no such tile"}'))).toBe(': no such tile');
    expect(serverMessage(utf8('<html>\n  Bad   gateway </html>'))).toBe(': <html> Bad gateway </html>');
    expect(serverMessage(new Uint8Array())).toBe('');
  });
});

describe('answers', () => {
  const hex = toHex(hashOf(1));

  it('parse a proof answer into hashes', () => {
    const proof = parseProofAnswer(
      parseJsonBody(
        utf8(
          JSON.stringify({
            leaf_index: 3,
            leaf_hash: hex,
            tree_size: 9,
            root_hash: hex,
            audit_path: [hex, hex],
          }),
        ),
      ),
    );
    expect(proof.audit_path.map(toHex)).toEqual([hex, hex]);
  });

  it.each([
    ['a body that is not JSON', 'not JSON', 'the answer is not JSON'],
    ['an array', '[1]', 'the proof answer is not a JSON object'],
    [
      'a negative index',
      JSON.stringify({ leaf_index: -1 }),
      'leaf_index is missing or not a non-negative integer',
    ],
    [
      'a path hash that is not hex',
      JSON.stringify({ leaf_index: 1, leaf_hash: hex, tree_size: 2, root_hash: hex, audit_path: ['ABC'] }),
      'audit_path[0] is not 64 lowercase hex digits',
    ],
  ])('refuse a proof answer with %s', (_what, body, message) => {
    expect(() => parseProofAnswer(parseJsonBody(utf8(body)))).toThrow(new AnswerFormatError(message).message);
  });

  it('refuse an STH without its witness signatures', () => {
    expect(() =>
      parseSthAnswer({ log_id: 'x', tree_size: 1, root_hash: hex, timestamp: 't', log_signature: 's' }),
    ).toThrow('the STH has no witness_signatures array');
  });
});

describe('TaskPool', () => {
  it('runs at most `limit` tasks at once and makes the producer wait when full', async () => {
    const pool = new TaskPool(2);
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    };
    expect(pool.start(task)).toBeUndefined();
    expect(pool.start(task)).toBeUndefined();
    const waiting = pool.start(task);
    expect(waiting).toBeInstanceOf(Promise);
    await waiting;
    expect(pool.active).toBe(2);
    for (let i = 0; i < 10; i++) await pool.start(task);
    await pool.drain();
    expect(most).toBe(2);
    expect(pool.active).toBe(0);
  });

  it('surfaces a task that throws when drained', async () => {
    const pool = new TaskPool(1);
    pool.start(async () => {
      throw new Error('bug in a check');
    });
    await expect(pool.drain()).rejects.toThrow('bug in a check');
  });
});

describe('LiveFindings', () => {
  it('lists the first findings of each check and sums up the rest', () => {
    const findings = new LiveFindings(2);
    for (let i = 0; i < 5; i++) findings.add('live-tile-mismatch', `tile ${i}`, { leaf_index: i * 256 });
    findings.add('live-root-mismatch', 'root', { tree_size: 9 });
    expect(findings.count).toBe(6);
    expect(findings.countOf('live-tile-mismatch')).toBe(5);
    expect(findings.list()).toEqual([
      {
        position: null,
        event_id: null,
        event_type: null,
        leaf_index: 0,
        check: 'live-tile-mismatch',
        message: 'tile 0',
      },
      {
        position: null,
        event_id: null,
        event_type: null,
        leaf_index: 256,
        check: 'live-tile-mismatch',
        message: 'tile 1',
      },
      {
        position: null,
        event_id: null,
        event_type: null,
        tree_size: 9,
        check: 'live-root-mismatch',
        message: 'root',
      },
      {
        position: null,
        event_id: null,
        event_type: null,
        check: 'live-tile-mismatch',
        message: "3 more 'live-tile-mismatch' discrepancies were found but not listed (only the first 2 are)",
      },
    ]);
  });
});
