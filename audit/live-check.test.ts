/**
 * The live check against a small log server in this test: the real public log routes over a TileLog
 * and checkpoints signed with merkle-core, served over real HTTP. A consistent server passes; each way
 * a server can be wrong (a tampered tile, a wrong root, a bad proof, a missing head, …) is reported
 * with its code and place; an unreachable or flaky server is reported or retried.
 */
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { leafHashOfRecord, sthFromCheckpointNote, timestampExtension } from '../domain/log';
import {
  CompactRange,
  generateKeyPair,
  loadSignerKey,
  type NoteSigner,
  signCheckpoint,
  TileLog,
  toHex,
} from '../merkle-core';
import type { LeafView, PublishedLog, PublishedTreeHead } from '../ports/log';
import { logRoutes } from '../read-api/governance/log/routes';
import { sendError } from '../runtime/http/errors';
import {
  type LiveCheckReport,
  LiveLogCheck,
  type LiveLogCheckOptions,
  liveLogOf,
  logUrlOf,
} from './live-check';

const ORIGIN = 'audit.example/log';
const LEAVES = 600;
/** Sizes at which the "events" record a signed tree head, in order (as the sequencer signs them). */
const HEAD_SIZES = [0, 1, 100, 256, 300, 512, 600];

interface Recorded {
  size: number;
  root: Uint8Array;
  checkpoint: string;
}

/** The log as the events record it: leaf hashes, and each head with its recomputed root. */
interface Fixture {
  signer: NoteSigner;
  verifierKey: string;
  leafHashes: Uint8Array[];
  tree: TileLog;
  heads: Recorded[];
}

async function buildFixture(): Promise<Fixture> {
  const keys = generateKeyPair(ORIGIN);
  const signer = loadSignerKey(keys.signerKey);
  const leafHashes = Array.from({ length: LEAVES }, (_, i) =>
    leafHashOfRecord({ type: 'GOV_GOVERNANCE_ENVELOPE_V1', sequence: i, note: `record ${i}` }),
  );
  const tree = new TileLog();
  await tree.appendLeafHashes(leafHashes);
  // The auditor's roots come from its own compact range, not from the server's tree.
  const range = new CompactRange();
  const heads = HEAD_SIZES.map((size) => {
    while (range.size < size) range.append(leafHashes[range.size]!);
    const root = range.root();
    return { size, root, checkpoint: sign(signer, size, root) };
  });
  return { signer, verifierKey: keys.verifierKey, leafHashes, tree, heads };
}

function sign(signer: NoteSigner, size: number, root: Uint8Array, second = 0): string {
  const time = new Date(Date.UTC(2025, 0, 1) + size * 1000 + second);
  return signCheckpoint(
    { origin: ORIGIN, size, rootHash: root, extensions: [timestampExtension(time)] },
    signer,
  );
}

function published(f: Fixture, checkpoint: string): PublishedTreeHead {
  return { checkpoint, sth: sthFromCheckpointNote(checkpoint, f.verifierKey) };
}

/** How the test server departs from the truth. */
interface Tampering {
  /** The latest head (default: the head at 600). */
  latest?: PublishedTreeHead;
  headAt?: (size: number, honest: PublishedTreeHead | null) => PublishedTreeHead | null;
  tile?: (index: number, width: number, honest: Uint8Array) => Uint8Array;
  inclusionProof?: (index: number, size: number, honest: Uint8Array[]) => Uint8Array[];
  consistencyProof?: (from: number, to: number, honest: Uint8Array[]) => Uint8Array[];
}

function publishedLog(f: Fixture, t: Tampering = {}): PublishedLog {
  const heads = new Map(f.heads.map((h) => [h.size, published(f, h.checkpoint)]));
  const latest = t.latest ?? heads.get(LEAVES)!;
  const leaves = new Map<string, LeafView>(
    f.leafHashes.map((hash, i) => [
      toHex(hash),
      {
        leaf_index: i,
        leaf_hash: toHex(hash),
        leaf_type: 'GOV_GOVERNANCE_ENVELOPE_V1',
        tenant_id: 'ten_1',
        subject_id: 'model-1',
        artifact_hash: null,
        record: {},
        admitted_at: '2025-01-01T00:00:00.000Z',
      },
    ]),
  );
  return {
    verifierKey: f.verifierKey,
    latest: () => latest,
    caughtUp: async () => latest,
    treeHeadAt: async (size) => {
      const honest = size === latest.sth.tree_size ? latest : (heads.get(size) ?? null);
      return t.headAt ? t.headAt(size, honest) : honest;
    },
    root: (size) => f.tree.root(size),
    leafHash: (index) => f.tree.leafHash(index),
    inclusionProof: (index, size) => {
      const honest = f.tree.inclusionProof(index, size);
      return t.inclusionProof ? t.inclusionProof(index, size, honest) : honest;
    },
    consistencyProof: (from, to) => {
      const honest = f.tree.consistencyProof(from, to);
      return t.consistencyProof ? t.consistencyProof(from, to, honest) : honest;
    },
    tile: (level, index, width) => {
      const honest = f.tree.tile(level, index, width);
      return t.tile && level === 0 ? t.tile(index, width, honest) : honest;
    },
    leafByHash: async (hash) => leaves.get(hash) ?? null,
    leafIndexByHash: (hash) => leaves.get(hash)?.leaf_index ?? null,
    leafByIndex: async (index) => leaves.get(toHex(f.leafHashes[index]!)) ?? null,
  };
}

interface TestServer {
  url: string;
  /** Requests seen, by path and query. */
  requests: string[];
  /** Most requests in progress at once. */
  maxInFlight: number;
  close(): Promise<void>;
}

interface ServeOptions {
  /** Runs before the log routes; may answer the request itself (return true). */
  intercept?: (req: express.Request, res: express.Response) => boolean;
  /** Delay every answer by this many milliseconds. */
  delayMs?: number;
  /** Where the log is served (default: the shared log's /gov/v1/log). */
  mount?: string;
}

async function serve(log: PublishedLog, options: ServeOptions = {}): Promise<TestServer> {
  const app = express();
  const state = { inFlight: 0 };
  const handle: TestServer = { url: '', requests: [], maxInFlight: 0, close: async () => {} };
  app.use((req, res, next) => {
    handle.requests.push(req.url);
    state.inFlight++;
    handle.maxInFlight = Math.max(handle.maxInFlight, state.inFlight);
    res.on('close', () => state.inFlight--);
    if (options.intercept?.(req, res)) return;
    if (options.delayMs) setTimeout(next, options.delayMs);
    else next();
  });
  app.use(options.mount ?? '/gov/v1/log', logRoutes(log));
  app.use((req: express.Request, res: express.Response) => {
    sendError(res, 404, 'NOT_FOUND', `no route for ${req.method} ${req.path}`);
  });
  const server: HttpServer = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  handle.url = `http://127.0.0.1:${port}`;
  handle.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return handle;
}

/** Feeds the check as the audit engine does: leaves in order, each head after the leaves it covers. */
async function feed(check: LiveLogCheck, f: Fixture, leafCount = LEAVES, lastHead = LEAVES): Promise<void> {
  let next = 0;
  for (const head of f.heads) {
    if (head.size > lastHead) break;
    for (; next < Math.min(head.size, leafCount); next++) await check.onLeaf(next, f.leafHashes[next]!);
    await check.onTreeHead(head.size, head.root, head.checkpoint);
  }
  for (; next < leafCount; next++) await check.onLeaf(next, f.leafHashes[next]!);
}

let fixture: Fixture;
const servers: TestServer[] = [];

beforeAll(async () => {
  fixture = await buildFixture();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(tampering?: Tampering, options?: ServeOptions): Promise<TestServer> {
  const server = await serve(publishedLog(fixture, tampering), options);
  servers.push(server);
  return server;
}

function checkOf(server: { url: string }, options: Partial<LiveLogCheckOptions> = {}): LiveLogCheck {
  return new LiveLogCheck({
    serverUrl: server.url,
    trust: { logVerifierKeys: [fixture.verifierKey] },
    proofEvery: 100,
    backoffMs: 5,
    ...options,
  });
}

/** Runs a whole check: begin, feed, finish. */
async function audit(
  server: { url: string },
  options: Partial<LiveLogCheckOptions> = {},
  leafCount = LEAVES,
  lastHead = LEAVES,
): Promise<LiveCheckReport> {
  const check = checkOf(server, options);
  await check.begin();
  await feed(check, fixture, leafCount, lastHead);
  return check.finish();
}

const flipped = (hash: Uint8Array): Uint8Array => {
  const copy = hash.slice();
  copy[0]! ^= 0xff;
  return copy;
};

describe('LiveLogCheck against a consistent server', () => {
  it('finds no discrepancy and reports every tile, sampled proof, head and consistency proof compared', async () => {
    const server = await start();
    const report = await audit(server);
    expect(report.discrepancies).toEqual([]);
    expect(report.notices).toEqual([]);
    expect(report.server).toEqual({
      tree_size: LEAVES,
      root_hash: toHex(fixture.tree.root()),
      timestamp: '2025-01-01T00:10:00.000Z',
      published_log_key: fixture.verifierKey,
      verified_by: fixture.verifierKey,
    });
    expect(report.compared).toEqual({
      tiles: 3, // 0/000 and 0/001 full, 0/002.p/88
      leaves: LEAVES,
      proofs: 7, // leaves 0, 100, …, 500 and the last one, 599
      tree_heads: HEAD_SIZES.length,
      consistency_proofs: HEAD_SIZES.length - 2, // none from the empty tree
      latest_root_matches: true,
      anchors: 0,
    });
    expect(report.local).toEqual({ leaves: LEAVES, tree_heads: HEAD_SIZES.length });
    expect(report.log_url).toBe(`${server.url}/gov/v1/log`);
    expect(server.requests).toEqual(
      expect.arrayContaining([
        '/gov/v1/log/tile/0/000',
        '/gov/v1/log/tile/0/002.p/88',
        `/gov/v1/log/proof?leaf_hash=${toHex(fixture.leafHashes[599]!)}&tree_size=600`,
        '/gov/v1/log/sth?tree_size=256',
        '/gov/v1/log/consistency?from=256&to=300',
      ]),
    );
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const server = await start({}, { delayMs: 15 });
    const report = await audit(server, { concurrency: 2, proofEvery: 50 });
    expect(report.discrepancies).toEqual([]);
    expect(server.maxInFlight).toBe(2);
  });

  it('retries answers that may pass (503 with Retry-After) and then succeeds', async () => {
    const failures = new Map<string, number>();
    const server = await start(
      {},
      {
        intercept: (req, res) => {
          const seen = failures.get(req.url) ?? 0;
          if (seen >= 2) return false;
          failures.set(req.url, seen + 1);
          res.setHeader('Retry-After', '0');
          sendError(res, 503, 'SERVICE_UNAVAILABLE', 'warming up');
          return true;
        },
      },
    );
    const report = await audit(server, { retries: 2 });
    expect(report.discrepancies).toEqual([]);
    expect(report.compared.tiles).toBe(3);
    expect([...failures.values()].every((n) => n === 2)).toBe(true);
  });
});

describe('LiveLogCheck against a server that departs from the events', () => {
  it('reports a tampered tile at the first leaf that differs', async () => {
    const server = await start({
      tile: (index, _width, honest) => {
        if (index !== 1) return honest;
        const tampered = honest.slice();
        tampered.set(flipped(honest.subarray(44 * 32, 45 * 32)), 44 * 32); // leaf 300
        return tampered;
      },
    });
    const report = await audit(server);
    expect(report.discrepancies).toEqual([
      {
        position: null,
        event_id: null,
        event_type: null,
        leaf_index: 300,
        tree_size: LEAVES,
        check: 'live-tile-mismatch',
        message: expect.stringMatching(
          /^tile\/0\/001: 1 of the 256 leaf hashes compared differ .* at leaf 300 \(server /,
        ),
      },
    ]);
  });

  it('reports a latest signed root that is not the root of the events (and the proofs against it)', async () => {
    const wrong = published(fixture, sign(fixture.signer, LEAVES, fixture.tree.root(LEAVES - 1)));
    const report = await audit(await start({ latest: wrong }));
    const at600 = report.discrepancies.filter((d) => d.check === 'live-root-mismatch');
    expect(at600).toHaveLength(2); // the latest head, and the recorded head at 600 it is served for
    for (const d of at600) {
      expect(d.tree_size).toBe(LEAVES);
      expect(d.message).toContain(toHex(fixture.tree.root(LEAVES)));
    }
    expect(report.compared.latest_root_matches).toBe(false);
    // Honest audit paths no longer lead to the signed root.
    expect(report.discrepancies.filter((d) => d.check === 'live-proof-invalid')).toHaveLength(7);
    expect(report.discrepancies).toHaveLength(9);
  });

  it('reports a historical head whose root differs, at its size only', async () => {
    const wrong = published(fixture, sign(fixture.signer, 256, fixture.tree.root(255)));
    const report = await audit(await start({ headAt: (size, honest) => (size === 256 ? wrong : honest) }));
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-root-mismatch',
        tree_size: 256,
        message: expect.stringContaining(
          `the server's signed root at size 256 is ${toHex(fixture.tree.root(255))}`,
        ),
      }),
    ]);
  });

  it('reports an inclusion proof that does not verify against the signed root', async () => {
    const server = await start({
      inclusionProof: (index, _size, honest) =>
        index === 300 ? [flipped(honest[0]!), ...honest.slice(1)] : honest,
    });
    const report = await audit(server);
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-proof-invalid',
        leaf_index: 300,
        tree_size: LEAVES,
        message: expect.stringContaining('does not verify against the signed root'),
      }),
    ]);
    expect(report.compared.proofs).toBe(7);
  });

  it('reports a consistency proof that does not verify between the recomputed roots', async () => {
    const server = await start({
      consistencyProof: (from, to, honest) => (from === 256 && to === 300 ? honest.map(flipped) : honest),
    });
    const report = await audit(server);
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-consistency-invalid',
        tree_size: 300,
        message: expect.stringMatching(/^consistency proof from size 256 to 300: it does not verify/),
      }),
    ]);
  });

  it('reports a recorded head the server does not serve', async () => {
    const report = await audit(await start({ headAt: (size, honest) => (size === 100 ? null : honest) }));
    expect(report.discrepancies).toEqual([
      expect.objectContaining({ check: 'live-head-missing', tree_size: 100 }),
    ]);
  });

  it('reports a head re-signed at the same size with the same root but another timestamp', async () => {
    const resigned = published(fixture, sign(fixture.signer, 512, fixture.tree.root(512), 7));
    const report = await audit(await start({ headAt: (size, honest) => (size === 512 ? resigned : honest) }));
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-checkpoint-mismatch',
        tree_size: 512,
        message: expect.stringContaining('is not the recorded checkpoint, though its root is the same'),
      }),
    ]);
  });

  it('lists the first findings of a check and counts the rest', async () => {
    const server = await start({ tile: (_index, _width, honest) => honest.map((b) => b ^ 1) });
    const report = await audit(server, { maxPerCheck: 2 });
    expect(report.discrepancies.map((d) => d.check)).toEqual([
      'live-tile-mismatch',
      'live-tile-mismatch',
      'live-tile-mismatch',
    ]);
    expect(report.discrepancies[2]!.message).toBe(
      "1 more 'live-tile-mismatch' discrepancy was found but not listed (only the first 2 are)",
    );
  });
});

describe('LiveLogCheck trust and reachability', () => {
  it('trusts only the configured keys: a checkpoint under another key stops the check', async () => {
    const stranger = generateKeyPair(ORIGIN).verifierKey;
    const server = await start();
    const report = await audit(server, { trust: { logVerifierKeys: [stranger] } });
    expect(report.server).toBeNull();
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-checkpoint-invalid',
        message: expect.stringContaining('does not verify: no trusted log key verifies it'),
      }),
    ]);
    expect(report.notices).toEqual([expect.stringContaining('which is not among the trusted log keys')]);
    expect(report.compared).toMatchObject({ tiles: 0, proofs: 0, tree_heads: 0 });
    expect(report.local.leaves).toBe(LEAVES);
  });

  it('accepts a checkpoint signed by a retired key that is still trusted', async () => {
    const current = generateKeyPair(ORIGIN).verifierKey;
    const report = await audit(await start(), { trust: { logVerifierKeys: [current, fixture.verifierKey] } });
    expect(report.discrepancies).toEqual([]);
    expect(report.server?.verified_by).toBe(fixture.verifierKey);
  });

  it('reports an unreachable server with the URL and what failed', async () => {
    const gone = await serve(publishedLog(fixture));
    await gone.close();
    const report = await audit(gone, { retries: 1 });
    expect(report.server).toBeNull();
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-unreachable',
        message: expect.stringMatching(
          new RegExp(`^GET ${gone.url}/gov/v1/log/checkpoint failed after 2 attempts: .*ECONNREFUSED`),
        ),
      }),
    ]);
    expect(report.notices).toEqual([
      expect.stringContaining("the server's published keys could not be read"),
    ]);
  });

  it('says when the URL does not lead to a public log', async () => {
    const server = await start();
    const report = await audit({ url: `${server.url}/elsewhere` });
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-unreachable',
        message: `GET ${server.url}/elsewhere/gov/v1/log/checkpoint answered HTTP 404: no route for GET /elsewhere/gov/v1/log/checkpoint (is ${server.url}/elsewhere/gov/v1/log the public log of a gov server?); nothing was compared`,
      }),
    ]);
  });

  it('times out a request that hangs and reports it at the tile it was for', async () => {
    const server = await start({}, { intercept: (req) => req.url === '/gov/v1/log/tile/0/001' });
    const report = await audit(server, { timeoutMs: 200, retries: 0 });
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-unreachable',
        leaf_index: 256,
        message: `GET ${server.url}/gov/v1/log/tile/0/001 failed after 1 attempt: no answer within 200 ms`,
      }),
    ]);
    expect(report.compared.tiles).toBe(2);
  });

  it('stops asking a server that keeps failing, and says how much was skipped', async () => {
    const server = await start(
      {},
      {
        intercept: (req, res) => {
          // The latest head reads fine; everything after it fails.
          if (['/gov/v1/log/keys', '/gov/v1/log/checkpoint', '/gov/v1/log/sth'].includes(req.url))
            return false;
          sendError(res, 500, 'INTERNAL_ERROR', 'disk on fire');
          return true;
        },
      },
    );
    const report = await audit(server, { retries: 0, concurrency: 1, giveUpAfter: 2 });
    expect(report.discrepancies.map((d) => d.check)).toEqual([
      'live-unreachable',
      'live-unreachable',
      'live-unreachable',
    ]);
    expect(report.discrepancies[0]!.message).toMatch(
      /^GET .*\/sth\?tree_size=0 failed after 1 attempt: HTTP 500: disk on fire$/,
    );
    expect(report.discrepancies[2]!.message).toMatch(
      /stopped asking .* after 2 requests in a row failed; \d+ comparisons were skipped/,
    );
    expect(server.requests.length).toBeLessThan(8);
  });
});

describe('LiveLogCheck when the server and the events cover different sizes', () => {
  it('compares what both have when the server is ahead, and names what it could not compare', async () => {
    const report = await audit(await start(), {}, 400, 300);
    expect(report.discrepancies).toEqual([]);
    expect(report.compared).toMatchObject({
      tiles: 2,
      leaves: 400,
      tree_heads: 5,
      latest_root_matches: null,
    });
    expect(report.notices).toEqual([
      expect.stringContaining('has 600 leaves but the audited events give 400: leaves 400–599'),
    ]);
  });

  it('still finds a tampered leaf in the tile the events stop inside', async () => {
    const server = await start({
      tile: (index, _width, honest) => (index === 1 ? flipped(honest) : honest), // leaf 256
    });
    const report = await audit(server, {}, 300, 300);
    expect(report.discrepancies).toEqual([
      expect.objectContaining({ check: 'live-tile-mismatch', leaf_index: 256 }),
    ]);
  });

  it('compares up to the server size when the events go further, and names the heads beyond it', async () => {
    const at300 = published(fixture, fixture.heads.find((h) => h.size === 300)!.checkpoint);
    const server = await start({ latest: at300 });
    const report = await audit(server);
    expect(report.discrepancies).toEqual([]);
    expect(report.server?.tree_size).toBe(300);
    expect(report.compared).toEqual({
      tiles: 2, // 0/000 and 0/001.p/44
      leaves: 300,
      proofs: 4, // 0, 100, 200 and 299
      tree_heads: 5,
      consistency_proofs: 3,
      latest_root_matches: true,
      anchors: 0,
    });
    expect(report.notices).toEqual([
      expect.stringContaining('leaves 300–599 were not compared'),
      expect.stringContaining('2 recorded tree heads (sizes 512–600) are beyond'),
    ]);
  });
});

describe('LiveLogCheck usage', () => {
  it('refuses hooks before begin() and leaves out of order', async () => {
    const check = checkOf(await start());
    expect(() => check.onLeaf(0, fixture.leafHashes[0]!)).toThrow('call begin() first');
    await check.begin();
    await check.onLeaf(0, fixture.leafHashes[0]!);
    expect(() => check.onLeaf(2, fixture.leafHashes[2]!)).toThrow('leaf 2 arrived where leaf 1 was due');
  });

  it('refuses a trusted key that is not a verifier key, naming it', () => {
    expect(() =>
      checkOf({ url: 'http://127.0.0.1:1' }, { trust: { logVerifierKeys: ['nonsense'] } }),
    ).toThrow(/trusted log key #1 \(nonsense\) is not a valid verifier key/);
  });

  it.each([
    ['https://gov.example', 'https://gov.example/gov/v1/log'],
    ['https://gov.example/', 'https://gov.example/gov/v1/log'],
    ['http://10.0.0.1:8080/behind/proxy/', 'http://10.0.0.1:8080/behind/proxy/gov/v1/log'],
    ['https://gov.example/gov/v1/log/', 'https://gov.example/gov/v1/log'],
  ])('reads the log of %s at %s', (given, expected) => {
    expect(logUrlOf(given)).toBe(expected);
  });

  it.each([
    ['gov.example', /is not a URL/],
    ['ftp://gov.example', /is not an http\(s\) URL/],
    ['https://gov.example/?x=1', /has a query or fragment/],
  ])('refuses %s as a server URL', (given, message) => {
    expect(() => logUrlOf(given)).toThrow(message);
  });

  it.each([
    ['https://gov.example', undefined, 'https://gov.example/gov/v1/log', 'shared'],
    ['https://gov.example', 'shared', 'https://gov.example/gov/v1/log', 'shared'],
    ['https://gov.example/', 'test', 'https://gov.example/gov/v1/logs/test', 'test'],
    ['https://gov.example/gov/v1/logs/test/', undefined, 'https://gov.example/gov/v1/logs/test', 'test'],
    ['https://gov.example/gov/v1/logs/shared', undefined, 'https://gov.example/gov/v1/logs/shared', 'shared'],
  ])('reads the log of %s (log %s) at %s: log %s', (given, log, url, name) => {
    expect(liveLogOf(given, log)).toEqual({ logUrl: url, log: name });
  });

  it.each([
    ['https://gov.example/gov/v1/logs/test', 'shared', /is the URL of log test, not of log shared/],
    ['https://gov.example/gov/v1/logs/Nope', undefined, /names log 'Nope', which is not a log name/],
    ['https://gov.example', 'dedicated-12', /'dedicated-12' is not a log name/],
  ])('refuses %s for log %s', (given, log, message) => {
    expect(() => liveLogOf(given, log)).toThrow(message);
  });
});

describe('LiveLogCheck of a log other than the shared one', () => {
  /** The fixture served as the test log, checked with no trusted key of its own. */
  async function auditTestLog(confirmed: string | null) {
    const server = await start({}, { mount: '/gov/v1/logs/test' });
    const check = checkOf(server, { log: 'test', trust: { logVerifierKeys: [] } });
    await check.begin();
    await feed(check, fixture);
    check.confirmLogKey(confirmed);
    return { server, report: await check.finish() };
  }

  it('given the key of its LogCreated, when checked at /gov/v1/logs/test, then it verifies with the key the server publishes and is clean', async () => {
    const { server, report } = await auditTestLog(fixture.verifierKey);
    expect(report).toMatchObject({
      log: 'test',
      log_url: `${server.url}/gov/v1/logs/test`,
      discrepancies: [],
    });
    expect(report.server).toMatchObject({ tree_size: LEAVES, verified_by: fixture.verifierKey });
    expect(report.compared).toMatchObject({
      tiles: 3,
      tree_heads: HEAD_SIZES.length,
      latest_root_matches: true,
    });
    expect(server.requests.every((path) => path.startsWith('/gov/v1/logs/test/'))).toBe(true);
  });

  it('given another key in its LogCreated, or none, when checked, then the key the server publishes is reported', async () => {
    const other = generateKeyPair('audit.example/log/test').verifierKey;
    const { report } = await auditTestLog(other);
    expect(report.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-log-key',
        message: expect.stringContaining(`its LogCreated event gives ${other}`),
      }),
    ]);
    const { report: none } = await auditTestLog(null);
    expect(none.discrepancies).toEqual([
      expect.objectContaining({
        check: 'live-log-key',
        message: expect.stringContaining('no LogCreated event'),
      }),
    ]);
  });
});
