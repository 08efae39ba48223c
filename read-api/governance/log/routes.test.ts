/**
 * The public log endpoints over real HTTP, against a real TileLog and real signed checkpoints: every
 * head, proof, tile and bundle served must verify with merkle-core's own verifiers, and nothing past
 * the latest signed tree head may leak, even when the store behind it already holds more leaves.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  type JsonSth,
  leafDataOfRecord,
  leafHashOfRecord,
  sthFromCheckpointNote,
  timestampExtension,
  verifySth,
} from '../../../domain/log';
import { validateResponse } from '../../../event-schemas';
import {
  decodeEntryBundle,
  fromHex,
  generateKeyPair,
  leafHash,
  loadSignerKey,
  loadVerifierKey,
  type NoteSigner,
  signCheckpoint,
  TileLog,
  toHex,
  type VerifierKey,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
} from '../../../merkle-core';
import {
  type LeafType,
  type LeafView,
  type LogDescription,
  LogNotSignedError,
  type PublishedLog,
  type PublishedLogs,
  type PublishedTreeHead,
} from '../../../ports/log';
import { sendError } from '../../../runtime/http/errors';
import { type LogRoutesOptions, logRoutes, logsRoutes } from './routes';

const ORIGIN = 'gov.example/log';
const SIGNED_SIZE = 1000;
/** Integrated but never signed: the endpoints must not show these. */
const INTEGRATED_SIZE = 1100;
/** Sizes with a signed tree head (besides the latest). */
const SIGNED_SIZES = [1, 255, 256, 500, 777, SIGNED_SIZE];
const LEAF_TYPES: LeafType[] = [
  'GOV_GOVERNANCE_ENVELOPE_V1',
  'GOV_EXECUTION_TRACE_V1',
  'GOV_VARIANCE_RECORD_V1',
];

interface Fixture {
  tiles: TileLog;
  logKey: VerifierKey;
  verifierKey: string;
  heads: Map<number, PublishedTreeHead>;
  leaves: LeafView[];
}

function recordOf(i: number, log?: string): object {
  return {
    ...(log === undefined ? {} : { log }),
    type: LEAF_TYPES[i % 3],
    tenant_id: `ten_${i % 7}`,
    subject_id: `subject-${i}`,
    sequence: i,
    note: 'é ü — text beyond ASCII is hashed as UTF-8',
    ...(i % 2 === 0 ? { payload_uri: `https://payloads.example/${i}` } : {}),
  };
}

/** A log of `integrated` leaves with heads signed at `signedSizes` (the last the latest), under its own key. */
async function buildFixture(
  origin = ORIGIN,
  integrated = INTEGRATED_SIZE,
  signedSizes = SIGNED_SIZES,
  log?: string,
): Promise<Fixture> {
  const keys = generateKeyPair(origin);
  const signer: NoteSigner = loadSignerKey(keys.signerKey);
  const tiles = new TileLog();
  const records = Array.from({ length: integrated }, (_, i) => recordOf(i, log));
  for (let start = 0; start < integrated; start += 97) {
    await tiles.appendLeaves(records.slice(start, start + 97).map(leafDataOfRecord));
  }
  const heads = new Map<number, PublishedTreeHead>();
  for (const size of signedSizes) {
    const checkpoint = signCheckpoint(
      {
        origin,
        size,
        rootHash: tiles.root(size),
        extensions: [timestampExtension(new Date(Date.UTC(2025, 0, 1, 0, 0, size)))],
      },
      signer,
    );
    heads.set(size, { checkpoint, sth: sthFromCheckpointNote(checkpoint, keys.verifierKey) });
  }
  const leaves = records.map((record, i) => ({
    leaf_index: i,
    leaf_hash: toHex(leafHashOfRecord(record)),
    leaf_type: LEAF_TYPES[i % 3]!,
    tenant_id: `ten_${i % 7}`,
    subject_id: `subject-${i}`,
    artifact_hash: i % 3 === 0 ? toHex(leafHash(new Uint8Array([i & 255]))) : null,
    record,
    admitted_at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
  }));
  return { tiles, logKey: loadVerifierKey(keys.verifierKey), verifierKey: keys.verifierKey, heads, leaves };
}

/**
 * A deliberately lax PublishedLog: it answers from every integrated leaf, signed or not, so the
 * tests show that the routes themselves keep to the latest signed tree head.
 */
function laxPublishedLog(f: Fixture): PublishedLog {
  const byHash = new Map(f.leaves.map((leaf) => [leaf.leaf_hash, leaf]));
  const latest = f.heads.get(Math.max(...f.heads.keys()))!;
  return {
    verifierKey: f.verifierKey,
    latest: () => latest,
    caughtUp: async () => latest,
    treeHeadAt: async (size) => f.heads.get(size) ?? null,
    root: (size) => f.tiles.root(size),
    leafHash: (index) => f.tiles.leafHash(index),
    inclusionProof: (index, size) => f.tiles.inclusionProof(index, size),
    consistencyProof: (from, to) => f.tiles.consistencyProof(from, to),
    tile: (level, index, width) => f.tiles.tile(level, index, width),
    leafByHash: async (hash) => byHash.get(hash) ?? null,
    leafIndexByHash: (hash) => byHash.get(hash)?.leaf_index ?? null,
    leafByIndex: async (index) => f.leaves[index] ?? null,
  };
}

interface Server {
  url: string;
  close(): Promise<void>;
}

async function serve(log: PublishedLog, options?: LogRoutesOptions): Promise<Server> {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.correlationId = 'corr-test';
    next();
  });
  app.use('/gov/v1/log', logRoutes(log, options));
  app.use((req: express.Request, res: express.Response) => {
    sendError(res, 404, 'NOT_FOUND', `no route for ${req.method} ${req.path}`);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/gov/v1/log`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let fixture: Fixture;
let server: Server;
let sth: JsonSth;

beforeAll(async () => {
  fixture = await buildFixture();
  server = await serve(laxPublishedLog(fixture));
  sth = fixture.heads.get(SIGNED_SIZE)!.sth;
});
afterAll(() => server.close());

const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);
async function getJson<T = Record<string, unknown>>(path: string): Promise<T> {
  const res = await get(path);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return (await res.json()) as T;
}
const bytesOf = (hexes: readonly string[]) => hexes.map(fromHex);

interface ProofBody {
  leaf_index: number;
  leaf_hash: string;
  tree_size: number;
  root_hash: string;
  audit_path: string[];
}
interface ConsistencyBody {
  from: number;
  to: number;
  root_from: string;
  root_to: string;
  proof: string[];
}

async function expectInvalid(path: string, pointer: string, reason: RegExp): Promise<void> {
  const res = await get(path);
  expect(res.status).toBe(400);
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  const body = await res.json();
  expect(body).toEqual({
    error: 'INVALID_REQUEST',
    message: expect.any(String),
    fields: expect.arrayContaining([{ pointer, reason: expect.stringMatching(reason) }]),
    correlation_id: 'corr-test',
  });
  expect(body.message).toContain(pointer);
}

async function expectNotFound(path: string, message?: RegExp): Promise<void> {
  const res = await get(path);
  expect(res.status).toBe(404);
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  const body = await res.json();
  expect(body).toEqual({ error: 'NOT_FOUND', message: expect.any(String), correlation_id: 'corr-test' });
  if (message) expect(body.message).toMatch(message);
}

describe('given a log of 1000 signed leaves (and 100 more integrated but not yet signed)', () => {
  describe('GET /sth', () => {
    it('when asked for the latest head, then it answers the signed STH, which verifies with the log key', async () => {
      const res = await get('/sth');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const body = (await res.json()) as JsonSth;
      expect(body).toEqual({ log: 'shared', ...sth });
      expect(body.tree_size).toBe(SIGNED_SIZE);
      expect(body.log_id).toBe(fixture.verifierKey);
      expect(await verifySth(body, fixture.logKey)).toMatchObject({ ok: true });
    });

    it('when pinned with tree_size, then it answers the head signed at exactly that size', async () => {
      for (const size of [1, 256, 777]) {
        const body = await getJson<JsonSth>(`/sth?tree_size=${size}`);
        expect(body.tree_size).toBe(size);
        expect(body.root_hash).toBe(toHex(fixture.tiles.root(size)));
        expect(await verifySth(body, fixture.logKey)).toMatchObject({ ok: true });
      }
    });

    it('when pinned to a size never signed (or beyond the latest), then it answers 404', async () => {
      await expectNotFound('/sth?tree_size=501', /no tree head was signed at size 501/);
      await expectNotFound('/sth?tree_size=0');
      await expectNotFound('/sth?tree_size=1050');
    });
  });

  describe('GET /checkpoint', () => {
    it('when fetched, then it is the C2SP signed note as text/plain, verifying with the log key', async () => {
      const res = await get('/checkpoint');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const note = await res.text();
      expect(note).toBe(fixture.heads.get(SIGNED_SIZE)!.checkpoint);
      const verdict = await verifyCheckpoint(note, fixture.logKey);
      expect(verdict.ok).toBe(true);
      if (verdict.ok) {
        expect(verdict.checkpoint.size).toBe(SIGNED_SIZE);
        expect(toHex(verdict.checkpoint.rootHash)).toBe(sth.root_hash);
      }
    });
  });

  describe('GET /leaf', () => {
    it('when asked for an index, then it answers the leaf whose record hashes to its leaf hash', async () => {
      for (const index of [0, 1, 255, 256, 999]) {
        const leaf = fixture.leaves[index]!;
        const body = await getJson(`/leaf?index=${index}`);
        expect(body).toEqual({
          log: 'shared',
          leaf_index: index,
          leaf_hash: leaf.leaf_hash,
          leaf_type: leaf.leaf_type,
          artifact_hash: leaf.artifact_hash,
          payload_uri: index % 2 === 0 ? `https://payloads.example/${index}` : null,
          record: leaf.record,
          tree_size: SIGNED_SIZE,
        });
        expect(toHex(leafHashOfRecord(body.record))).toBe(leaf.leaf_hash);
      }
    });

    it('when the index is at or past the signed size, then it answers 404 even if the leaf is integrated', async () => {
      await expectNotFound('/leaf?index=1000', /indexes run from 0 to 999/);
      await expectNotFound('/leaf?index=1050');
      await expectNotFound(`/leaf?index=${Number.MAX_SAFE_INTEGER}`);
    });
  });

  describe('GET /proof', () => {
    it('when asked for a leaf hash, then the audit path verifies against the latest STH root', async () => {
      for (let index = 0; index < SIGNED_SIZE; index += 37) {
        const hash = fixture.leaves[index]!.leaf_hash;
        const body = await getJson<ProofBody>(`/proof?leaf_hash=${hash}`);
        expect(body).toMatchObject({ leaf_index: index, leaf_hash: hash, tree_size: SIGNED_SIZE });
        expect(body.root_hash).toBe(sth.root_hash);
        const verdict = verifyInclusion(
          index,
          SIGNED_SIZE,
          fromHex(hash),
          bytesOf(body.audit_path),
          fromHex(sth.root_hash),
        );
        expect(verdict).toEqual({ ok: true });
      }
    });

    it('when pinned to a tree size, then the proof verifies against the root signed at that size', async () => {
      for (const index of [0, 254, 255, 499]) {
        for (const size of SIGNED_SIZES.filter((s) => s > index)) {
          const hash = fixture.leaves[index]!.leaf_hash;
          const body = await getJson<ProofBody>(`/proof?leaf_hash=${hash}&tree_size=${size}`);
          const signedRoot = fixture.heads.get(size)!.sth.root_hash;
          expect(body.tree_size).toBe(size);
          expect(body.root_hash).toBe(signedRoot);
          expect(
            verifyInclusion(index, size, fromHex(hash), bytesOf(body.audit_path), fromHex(signedRoot)),
          ).toEqual({ ok: true });
        }
      }
    });

    it('when pinned to the smallest tree holding the leaf, then the proof verifies too', async () => {
      const index = 612;
      const hash = fixture.leaves[index]!.leaf_hash;
      const body = await getJson<ProofBody>(`/proof?leaf_hash=${hash}&tree_size=${index + 1}`);
      expect(body.root_hash).toBe(toHex(fixture.tiles.root(index + 1)));
      expect(
        verifyInclusion(index, index + 1, fromHex(hash), bytesOf(body.audit_path), fromHex(body.root_hash)),
      ).toEqual({ ok: true });
    });

    it('when the tree size cannot hold the leaf or exceeds the signed size, then it answers 400 naming the range', async () => {
      const hash = fixture.leaves[42]!.leaf_hash;
      for (const size of [0, 42, 1001]) {
        const res = await get(`/proof?leaf_hash=${hash}&tree_size=${size}`);
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(body).toEqual({
          error: 'INVALID_REQUEST',
          message: expect.stringContaining('between 43 and 1000'),
          fields: [{ pointer: 'query/tree_size', reason: 'must be between 43 and 1000' }],
          correlation_id: 'corr-test',
        });
      }
    });

    it('when the leaf hash is unknown, or known but not yet signed, then it answers 404', async () => {
      await expectNotFound(`/proof?leaf_hash=${'ab'.repeat(32)}`, /no leaf with hash/);
      await expectNotFound(`/proof?leaf_hash=${fixture.leaves[1050]!.leaf_hash}`);
      await expectNotFound(`/proof?leaf_hash=${fixture.leaves[1000]!.leaf_hash}&tree_size=1000`);
    });
  });

  describe('GET /consistency', () => {
    it('when asked between signed sizes, then each proof verifies between the two signed roots', async () => {
      const pairs: [number, number][] = [];
      for (const from of SIGNED_SIZES) for (const to of SIGNED_SIZES) if (from < to) pairs.push([from, to]);
      for (const [from, to] of pairs) {
        const body = await getJson<ConsistencyBody>(`/consistency?from=${from}&to=${to}`);
        const rootFrom = fixture.heads.get(from)!.sth.root_hash;
        const rootTo = fixture.heads.get(to)!.sth.root_hash;
        expect(body).toMatchObject({ from, to, root_from: rootFrom, root_to: rootTo });
        expect(verifyConsistency(from, to, bytesOf(body.proof), fromHex(rootFrom), fromHex(rootTo))).toEqual({
          ok: true,
        });
      }
    });

    it('when to is omitted, then it proves up to the latest signed size', async () => {
      for (const from of [1, 2, 3, 128, 511, 999]) {
        const body = await getJson<ConsistencyBody>(`/consistency?from=${from}`);
        expect(body.to).toBe(SIGNED_SIZE);
        expect(body.root_to).toBe(sth.root_hash);
        expect(body.root_from).toBe(toHex(fixture.tiles.root(from)));
        expect(
          verifyConsistency(
            from,
            SIGNED_SIZE,
            bytesOf(body.proof),
            fromHex(body.root_from),
            fromHex(sth.root_hash),
          ),
        ).toEqual({ ok: true });
      }
    });

    it('when from equals to, then the proof is empty and both roots are that size’s root', async () => {
      const body = await getJson<ConsistencyBody>('/consistency?from=777&to=777');
      const root = fixture.heads.get(777)!.sth.root_hash;
      expect(body).toEqual({ log: 'shared', from: 777, to: 777, root_from: root, root_to: root, proof: [] });
      expect(verifyConsistency(777, 777, [], fromHex(root), fromHex(root))).toEqual({ ok: true });
    });

    it('when the sizes are out of order or out of range, then it answers 400 saying which bound', async () => {
      await expectInvalid('/consistency?from=0&to=10', 'query/from', /at least 1.*empty tree/);
      await expectInvalid('/consistency?from=0', 'query/from', /at least 1/);
      await expectInvalid('/consistency?from=11&to=10', 'query/from', /must not exceed to \(10\)/);
      await expectInvalid('/consistency?from=5&to=1001', 'query/to', /at most 1000/);
      await expectInvalid('/consistency?from=1050', 'query/from', /must not exceed to \(1000\)/);
    });
  });

  describe('GET /keys', () => {
    it('when fetched, then it lists the log key', async () => {
      expect(await getJson('/keys')).toEqual({ log: fixture.verifierKey });
    });

    it('when more keys are configured, then they are listed beside the log key, which they cannot replace', async () => {
      const other = await serve(laxPublishedLog(fixture), {
        extraKeys: async () => ({ authority: 'authority+0000+key', log: 'forged', validators: ['v1'] }),
      });
      try {
        const res = await fetch(`${other.url}/keys`);
        expect(await res.json()).toEqual({
          log: fixture.verifierKey,
          authority: 'authority+0000+key',
          validators: ['v1'],
        });
      } finally {
        await other.close();
      }
    });
  });

  describe('GET /tile/… (C2SP tlog-tiles)', () => {
    async function getTile(path: string): Promise<{ res: Response; bytes: Uint8Array }> {
      const res = await get(`/${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
    }

    it('when a full tile is fetched, then it is the TileLog tile, cached as immutable', async () => {
      for (const index of [0, 1, 2]) {
        const { res, bytes } = await getTile(`tile/0/00${index}`);
        expect(toHex(bytes)).toBe(toHex(fixture.tiles.tile(0, index, 256)));
        expect(bytes.length).toBe(8192);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      }
    });

    it('when the partial tiles of the signed size are fetched, then they are the TileLog tiles, cached as immutable (the width is in the path)', async () => {
      // 1000 = 3·256 + 232 leaves: level 0 partial of width 232, level 1 partial of width 3.
      for (const [path, level, width] of [
        ['tile/0/003.p/232', 0, 232],
        ['tile/0/003.p/1', 0, 1],
        ['tile/1/000.p/3', 1, 3],
      ] as const) {
        const { res, bytes } = await getTile(path);
        const index = level === 0 ? 3 : 0;
        expect(toHex(bytes)).toBe(toHex(fixture.tiles.tile(level, index, width)));
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      }
    });

    it('when a tile reaches past the signed size, then it answers 404 although the leaves are integrated', async () => {
      await expectNotFound('/tile/0/003', /not covered by the latest signed tree \(size 1000\)/);
      await expectNotFound('/tile/0/003.p/233');
      await expectNotFound('/tile/0/004.p/1');
      await expectNotFound('/tile/1/000');
      await expectNotFound('/tile/1/000.p/4');
      await expectNotFound('/tile/2/000.p/1');
      await expectNotFound('/tile/0/x001/x234/067');
      await expectNotFound('/tile/entries/003');
      await expectNotFound('/tile/entries/003.p/233');
    });

    it('when a tile path is not canonical, then it answers 404 explaining the path form', async () => {
      for (const path of [
        '/tile/0/0',
        '/tile/0/3',
        '/tile/00/000',
        '/tile/0/x000/001',
        '/tile/0/001/',
        '/tile/0/000.p/256',
        '/tile/0/000.p/0',
        '/tile/0/000.p/010',
        '/tile/64/000',
        '/tile/0/%30%30%30',
        '/tile/entries',
        '/TILE/0/000',
      ]) {
        const res = await get(path);
        expect(res.status).toBe(404);
        expect(await res.json()).toMatchObject({ error: 'NOT_FOUND' });
      }
      await expectNotFound('/tile/0/00', /tile\/<L>\/<N>/);
    });

    it('when an entry bundle is fetched, then its entries are the records’ canonical JSON and hash to the level-0 tile', async () => {
      for (const [path, index, width] of [
        ['tile/entries/000', 0, 256],
        ['tile/entries/002', 2, 256],
        ['tile/entries/003.p/232', 3, 232],
        ['tile/entries/003.p/7', 3, 7],
      ] as const) {
        const { res, bytes } = await getTile(path);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        const entries = decodeEntryBundle(bytes);
        expect(entries).toHaveLength(width);
        const tile = fixture.tiles.tile(0, index, width);
        entries.forEach((entry, i) => {
          expect(toHex(entry)).toBe(toHex(leafDataOfRecord(fixture.leaves[index * 256 + i]!.record)));
          expect(toHex(leafHash(entry))).toBe(toHex(tile.subarray(i * 32, (i + 1) * 32)));
        });
      }
    });

    it('when the client accepts gzip, then entry bundles are gzipped; otherwise they are sent as is', async () => {
      const zipped = await get('/tile/entries/001', { headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
      const plain = await get('/tile/entries/001', { headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers.get('content-encoding')).toBeNull();
      // fetch inflates transparently: both spell the same bundle.
      expect(toHex(new Uint8Array(await zipped.arrayBuffer()))).toBe(
        toHex(new Uint8Array(await plain.arrayBuffer())),
      );
    });
  });

  describe('strict query parameters', () => {
    const badIntegers: [string, RegExp][] = [
      ['', /non-negative decimal integer.*\(it is empty\)/],
      ['-1', /non-negative decimal integer/],
      ['%2B1', /non-negative decimal integer.*"\+1"/],
      ['1e3', /non-negative decimal integer/],
      ['007', /leading zeros.*"007"/],
      ['1.0', /non-negative decimal integer/],
      ['0x10', /non-negative decimal integer/],
      ['%201', /non-negative decimal integer/],
      ['abc', /non-negative decimal integer/],
      ['9007199254740992', /at most 9007199254740991/],
      ['123456789012345678901234567890', /at most 9007199254740991/],
    ];

    it('when an integer parameter is malformed, then it answers 400 with the field and reason', async () => {
      for (const [value, reason] of badIntegers) {
        await expectInvalid(`/leaf?index=${value}`, 'query/index', reason);
        await expectInvalid(`/sth?tree_size=${value}`, 'query/tree_size', reason);
        await expectInvalid(`/consistency?from=${value}`, 'query/from', reason);
        await expectInvalid(`/consistency?from=1&to=${value}`, 'query/to', reason);
        await expectInvalid(
          `/proof?leaf_hash=${fixture.leaves[0]!.leaf_hash}&tree_size=${value}`,
          'query/tree_size',
          reason,
        );
      }
    });

    it('when the largest safe integer is given, then it is accepted as a number (and found absent)', async () => {
      await expectNotFound(`/sth?tree_size=${Number.MAX_SAFE_INTEGER}`);
    });

    it('when a leaf hash is malformed, then it answers 400', async () => {
      const good = fixture.leaves[0]!.leaf_hash;
      for (const value of [good.toUpperCase(), good.slice(1), `${good}0`, `${good.slice(1)}g`, '']) {
        await expectInvalid(`/proof?leaf_hash=${value}`, 'query/leaf_hash', /64 lowercase hexadecimal/);
      }
    });

    it('when a parameter is repeated, then it answers 400 even if both values agree', async () => {
      await expectInvalid('/leaf?index=1&index=1', 'query/index', /more than once/);
      await expectInvalid('/sth?tree_size=1&tree_size=256', 'query/tree_size', /more than once/);
      await expectInvalid('/consistency?from=1&to=5&to=5', 'query/to', /more than once/);
    });

    it('when a required parameter is missing, then it answers 400', async () => {
      await expectInvalid('/leaf', 'query/index', /is required/);
      await expectInvalid('/leaf?', 'query/index', /is required/);
      await expectInvalid('/proof?tree_size=5', 'query/leaf_hash', /is required/);
      await expectInvalid('/consistency?to=5', 'query/from', /is required/);
    });

    it('when an unknown parameter is given, then it answers 400 naming the accepted ones', async () => {
      await expectInvalid('/leaf?index=1&treesize=5', 'query/treesize', /takes index$/);
      await expectInvalid('/sth?size=5', 'query/size', /takes tree_size$/);
      await expectInvalid('/keys?x=1', 'query/x', /takes none/);
      await expectInvalid('/leaf?index[]=1', 'query/index[]', /not a parameter/);
      await expectInvalid('/leaf?a%2Fb=1&index=1', 'query/a~1b', /not a parameter/);
    });

    it('when percent-encoding is broken, then it answers 400', async () => {
      await expectInvalid('/leaf?index=%E0%A4%A', 'query/index', /percent-encoded/);
    });

    it('when several parameters are wrong, then every problem is listed', async () => {
      const res = await get('/consistency?from=x&to=-1&extra=1');
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.fields.map((f: { pointer: string }) => f.pointer).sort()).toEqual([
        'query/extra',
        'query/from',
        'query/to',
      ]);
    });

    it('when a well-formed value is percent-encoded, then it is read like the plain one', async () => {
      const body = await getJson('/leaf?index=%31%32');
      expect(body.leaf_index).toBe(12);
    });
  });

  describe('public access', () => {
    it('when a browser sends a CORS preflight, then any origin may GET', async () => {
      const res = await get('/proof', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://auditor.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'cache-control',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).toBe('cache-control');
    });

    it('when HEAD is asked for a tile, then it answers the headers without a body', async () => {
      const res = await get('/tile/0/000', { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe('8192');
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    });

    it('when a path under the log is unknown, then the app’s 404 answers, still with CORS', async () => {
      await expectNotFound('/nothing-here');
      await expectNotFound('/sth/');
    });
  });
});

describe('given a log with no signed leaves yet', () => {
  let empty: Server;
  beforeAll(async () => {
    const keys = generateKeyPair(ORIGIN);
    const tiles = new TileLog();
    const checkpoint = signCheckpoint(
      { origin: ORIGIN, size: 0, rootHash: tiles.root(0), extensions: [timestampExtension(new Date(0))] },
      loadSignerKey(keys.signerKey),
    );
    const head = { checkpoint, sth: sthFromCheckpointNote(checkpoint, keys.verifierKey) };
    const f: Fixture = {
      tiles,
      logKey: loadVerifierKey(keys.verifierKey),
      verifierKey: keys.verifierKey,
      heads: new Map([[0, head]]),
      leaves: [],
    };
    empty = await serve({ ...laxPublishedLog(f), latest: () => head, caughtUp: async () => head });
  });
  afterAll(() => empty.close());

  it('when any leaf, proof or tile is asked for, then nothing is found, and no consistency proof exists', async () => {
    const sthRes = await fetch(`${empty.url}/sth`);
    expect(((await sthRes.json()) as JsonSth).tree_size).toBe(0);
    const leaf = await fetch(`${empty.url}/leaf?index=0`);
    expect(leaf.status).toBe(404);
    expect((await leaf.json()).message).toMatch(/no signed leaves yet/);
    expect((await fetch(`${empty.url}/proof?leaf_hash=${'00'.repeat(32)}`)).status).toBe(404);
    expect((await fetch(`${empty.url}/tile/0/000.p/1`)).status).toBe(404);
    expect((await fetch(`${empty.url}/tile/entries/000.p/1`)).status).toBe(404);
    expect((await fetch(`${empty.url}/consistency?from=1`)).status).toBe(400);
  });
});

describe('given three logs, each with its own key and tree', () => {
  const PUBLIC_URL = 'https://gov.example';
  const DEDICATED = `dedicated-${'ab'.repeat(12)}`;
  /** name → its fixture and kind; the shared log is the 1000-leaf fixture above. */
  const logs = new Map<string, { fixture: Fixture; log: PublishedLog; kind: LogDescription['kind'] }>();
  const finds: string[] = [];
  /** A log created a moment ago, whose first head this process has not read yet (one test sets it). */
  let unsigned: LogDescription | null = null;
  let many: Server;
  let base: string;

  beforeAll(async () => {
    logs.set('shared', { fixture, log: laxPublishedLog(fixture), kind: 'shared' });
    const test = await buildFixture('gov.example/gov/v1/log/test', 300, [100, 300], 'test');
    logs.set('test', { fixture: test, log: laxPublishedLog(test), kind: 'test' });
    const dedicated = await buildFixture(`gov.example/gov/v1/log/${DEDICATED}`, 40, [1, 40], DEDICATED);
    logs.set(DEDICATED, { fixture: dedicated, log: laxPublishedLog(dedicated), kind: 'dedicated' });
    const published: PublishedLogs = {
      get: (name) => logs.get(name)?.log ?? null,
      find: async (name) => {
        finds.push(name);
        if (name === unsigned?.name) throw new LogNotSignedError(name);
        return logs.get(name)?.log ?? null;
      },
      list: async () => [
        ...[...logs].map(([name, { fixture: f, kind }]) => ({
          name,
          kind,
          origin: f.verifierKey.split('+')[0]!,
          verifierKey: f.verifierKey,
          tenantId: kind === 'dedicated' ? `ten_${'ab'.repeat(12)}` : null,
        })),
        ...(unsigned ? [unsigned] : []),
      ],
    };
    const routers = logsRoutes({
      log: logs.get('shared')!.log,
      logs: published,
      config: { publicUrl: PUBLIC_URL },
    });
    const app = express();
    app.use((_req, res, next) => {
      res.locals.correlationId = 'corr-test';
      next();
    });
    app.use('/gov/v1/log', routers.log);
    app.use('/gov/v1/logs', routers.logs);
    app.use((req: express.Request, res: express.Response) => {
      sendError(res, 404, 'NOT_FOUND', `no route for ${req.method} ${req.path}`);
    });
    const listening = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/gov/v1`;
    many = {
      url: base,
      close: () => new Promise<void>((resolve) => listening.close(() => resolve())),
    };
  });
  afterAll(() => many.close());
  beforeEach(() => {
    finds.length = 0;
  });

  const at = (name: string, path: string) => fetch(`${base}/logs/${name}${path}`);
  async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    return (await res.json()) as T;
  }

  it('GET /gov/v1/logs lists every log, shared first: name, kind, origin, key, URL and latest size', async () => {
    const res = await fetch(`${base}/logs`);
    const body = await json<{ logs: unknown[] }>(res);
    expect(validateResponse('log-list', body)).toMatchObject({ ok: true });
    expect(body.logs).toEqual([
      {
        name: 'shared',
        kind: 'shared',
        origin: ORIGIN,
        verifier_key: fixture.verifierKey,
        tenant_id: null,
        url: `${PUBLIC_URL}/gov/v1/log`,
        tree_size: SIGNED_SIZE,
      },
      {
        name: 'test',
        kind: 'test',
        origin: 'gov.example/gov/v1/log/test',
        verifier_key: logs.get('test')!.fixture.verifierKey,
        tenant_id: null,
        url: `${PUBLIC_URL}/gov/v1/logs/test`,
        tree_size: 300,
      },
      {
        name: DEDICATED,
        kind: 'dedicated',
        origin: `gov.example/gov/v1/log/${DEDICATED}`,
        verifier_key: logs.get(DEDICATED)!.fixture.verifierKey,
        tenant_id: `ten_${'ab'.repeat(12)}`,
        url: `${PUBLIC_URL}/gov/v1/logs/${DEDICATED}`,
        tree_size: 40,
      },
    ]);
  });

  it('each log’s STH and checkpoint name it and verify under its own key only', async () => {
    for (const [name, { fixture: f }] of logs) {
      const sthRes = await at(name, '/sth');
      expect(sthRes.headers.get('cache-control')).toBe('no-cache');
      const body = await json<JsonSth & { log: string }>(sthRes);
      expect(validateResponse('sth', body)).toMatchObject({ ok: true });
      expect(body.log).toBe(name);
      expect(body.log_id).toBe(f.verifierKey);
      expect(await verifySth(body, f.logKey)).toMatchObject({ ok: true });
      for (const [other, { fixture: o }] of logs)
        if (other !== name) expect(await verifySth(body, o.logKey)).toMatchObject({ ok: false });
      const pinned = await json<JsonSth & { log: string }>(
        await at(name, `/sth?tree_size=${Math.min(...f.heads.keys())}`),
      );
      expect(pinned.log).toBe(name);
      expect(await verifySth(pinned, f.logKey)).toMatchObject({ ok: true });
      const note = await (await at(name, '/checkpoint')).text();
      expect((await verifyCheckpoint(note, f.logKey)).ok).toBe(true);
      const keys = await json<{ log: string }>(await at(name, '/keys'));
      expect(keys.log).toBe(f.verifierKey);
    }
  });

  it('each log proves its own leaves against its own root, and knows no other log’s', async () => {
    for (const [name, { fixture: f }] of logs) {
      const size = Math.max(...f.heads.keys());
      const root = f.heads.get(size)!.sth.root_hash;
      const index = size - 1;
      const leaf = f.leaves[index]!;
      const proof = await json<ProofBody & { log: string }>(
        await at(name, `/proof?leaf_hash=${leaf.leaf_hash}`),
      );
      expect(validateResponse('log-proof', proof)).toMatchObject({ ok: true });
      expect(proof).toMatchObject({ log: name, leaf_index: index, tree_size: size, root_hash: root });
      expect(
        verifyInclusion(index, size, fromHex(leaf.leaf_hash), bytesOf(proof.audit_path), fromHex(root)),
      ).toEqual({ ok: true });
      const byIndex = await json<{ log: string; leaf_hash: string }>(await at(name, `/leaf?index=${index}`));
      expect(byIndex).toMatchObject({ log: name, leaf_hash: leaf.leaf_hash });
      const from = Math.min(...f.heads.keys());
      const consistency = await json<ConsistencyBody & { log: string }>(
        await at(name, `/consistency?from=${from}`),
      );
      expect(validateResponse('log-consistency', consistency)).toMatchObject({ ok: true });
      expect(consistency.log).toBe(name);
      expect(
        verifyConsistency(
          from,
          size,
          bytesOf(consistency.proof),
          fromHex(consistency.root_from),
          fromHex(root),
        ),
      ).toEqual({ ok: true });
      for (const other of logs.keys())
        if (other !== name) expect((await at(other, `/proof?leaf_hash=${leaf.leaf_hash}`)).status).toBe(404);
    }
  });

  it('each log serves its own C2SP tiles and entry bundles, cached as immutable', async () => {
    for (const [name, { fixture: f }] of logs) {
      const size = Math.max(...f.heads.keys());
      // The last, partial tile of the signed size, and its entry bundle.
      const tile = Math.floor(size / 256);
      const width = size % 256;
      const n = String(tile).padStart(3, '0');
      const res = await at(name, `/tile/0/${n}.p/${width}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(f.tiles.tile(0, tile, width));
      const bundle = decodeEntryBundle(
        new Uint8Array(await (await at(name, `/tile/entries/${n}.p/${width}`)).arrayBuffer()),
      );
      expect(bundle.map((entry) => toHex(leafHash(entry)))).toEqual(
        f.leaves.slice(tile * 256, tile * 256 + width).map((l) => l.leaf_hash),
      );
      // Beyond the signed size (for the shared log, integrated but not signed): not served.
      expect((await at(name, `/tile/0/${n}.p/${width + 1}`)).status).toBe(404);
    }
  });

  it('the shared log’s /gov/v1/log/* and /gov/v1/logs/shared/* are the same log', async () => {
    for (const path of [
      '/sth',
      '/checkpoint',
      '/keys',
      '/leaf?index=7',
      `/proof?leaf_hash=${fixture.leaves[5]!.leaf_hash}`,
      '/consistency?from=3',
      '/tile/0/001',
    ]) {
      const [old, named] = await Promise.all([fetch(`${base}/log${path}`), at('shared', path)]);
      expect([named.status, named.headers.get('content-type')]).toEqual([
        200,
        old.headers.get('content-type'),
      ]);
      expect(Buffer.from(await named.arrayBuffer())).toEqual(Buffer.from(await old.arrayBuffer()));
    }
  });

  it('the hot routes of a log this process serves look nothing up beyond memory', async () => {
    for (const name of logs.keys()) {
      await json(await at(name, '/sth'));
      expect((await at(name, '/checkpoint')).status).toBe(200);
      await json(await at(name, `/proof?leaf_hash=${logs.get(name)!.fixture.leaves[0]!.leaf_hash}`));
    }
    expect(finds).toEqual([]);
  });

  it('a log created a moment ago, of which no head is signed yet, is listed at size 0, and its routes answer 404 saying so (not 500)', async () => {
    const name = `dedicated-${'ef'.repeat(12)}`;
    const key = generateKeyPair(`gov.example/gov/v1/log/${name}`).verifierKey;
    unsigned = {
      name,
      kind: 'dedicated',
      origin: key.split('+')[0]!,
      verifierKey: key,
      tenantId: `ten_${'ef'.repeat(12)}`,
    };
    try {
      const body = await json<{ logs: Record<string, unknown>[] }>(await fetch(`${base}/logs`));
      expect(validateResponse('log-list', body)).toMatchObject({ ok: true });
      expect(body.logs.at(-1)).toMatchObject({ name, verifier_key: key, tree_size: 0 });
      for (const path of ['/sth', '/checkpoint', '/leaf?index=0']) {
        const res = await at(name, path);
        expect(res.status).toBe(404);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect((await res.json()).message).toMatch(new RegExp(`${name} has no signed tree head yet`));
      }
    } finally {
      unsigned = null;
    }
  });

  it('an unknown log answers 404 naming it and pointing to the list; a name no log can have is not looked for', async () => {
    const unknown = `dedicated-${'cd'.repeat(12)}`;
    for (const path of [
      '/sth',
      '/checkpoint',
      '/keys',
      '/leaf?index=0',
      '/consistency?from=1',
      '/tile/0/000',
      `/proof?leaf_hash=${'00'.repeat(32)}`,
    ]) {
      const res = await at(unknown, path);
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const body = await res.json();
      expect(body).toEqual({ error: 'NOT_FOUND', message: expect.any(String), correlation_id: 'corr-test' });
      expect(body.message).toContain(`"${unknown}"`);
      expect(body.message).toContain('GET /gov/v1/logs');
    }
    expect(new Set(finds)).toEqual(new Set([unknown]));
    finds.length = 0;
    const res = await at('Shared', '/sth');
    expect(res.status).toBe(404);
    expect((await res.json()).message).toContain('"Shared"');
    expect(finds).toEqual([]);
  });
});
