/**
 * The live audit's anchor checks against a real server with three logs: the test log anchored twice and
 * a dedicated log once in the shared log. For each anchor the events hold, `gov audit --server` asks
 * `GET /gov/v1/logs/<log>/anchor?tree_size=N`, verifies the inclusion proof into the shared STH under
 * the trusted shared key, and compares the log's own head at N with the anchored checkpoint: the
 * honest server is clean, in the shared log's check (every log's anchors) and in one log's (its own).
 * A proxy in front of it then forges the answers (a broken proof, an STH under another key, another
 * head of the log at the anchored size, an anchor not served), and anchors the server never made are
 * fed to the check: each is reported, with its code and log.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runAudit, sqliteAuditSource, trustFromPublishedKeys } from '../audit';
import { type LiveCheckReport, LiveLogCheck } from '../audit/live-check';
import { leafHashOfRecord, SHARED_LOG_NAME } from '../domain/log';
import { generateKeyPair } from '../merkle-core';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { runGov } from './support/children';
import {
  setTier,
  startTestServer,
  type TestServer,
  testConfig,
  validEvidence,
} from './support/governance-client';
import { until } from './support/service-processes';

/** Rewrites the answer to a GET (path with query) of the server behind the proxy, or leaves it. */
type Tamper = (url: string, status: number, body: Buffer) => { status: number; body: string } | null;

/** An HTTP proxy to `target` whose answers `tamper` may rewrite. */
async function tamperingProxy(
  target: string,
  tamper: Tamper,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const upstream = await fetch(`${target}${req.url}`);
    // Bytes as they came: tiles are binary.
    const bytes = Buffer.from(await upstream.arrayBuffer());
    const changed = tamper(req.url ?? '/', upstream.status, bytes);
    res
      .writeHead(changed?.status ?? upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      })
      .end(changed?.body ?? bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The members of an anchor answer the forgeries change. */
interface AnchorBody {
  shared: { sth: { log_id: string }; inclusion_proof: { audit_path: string[] } };
}

/** A JSON answer rewritten by `edit` when the path (without query) ends with `suffix`. */
function editJson<T>(suffix: string, edit: (body: T, url: string) => void): Tamper {
  return (url, status, body) => {
    if (status !== 200 || !url.split('?')[0]!.endsWith(suffix)) return null;
    const parsed = JSON.parse(body.toString('utf8')) as T;
    edit(parsed, url);
    return { status, body: JSON.stringify(parsed) };
  };
}

describe('gov audit --server: the anchors of the test and a dedicated log', () => {
  let t: TestServer;
  let dedicated: string;
  /** The dedicated log's anchored size. */
  let dedicatedSize: number;

  /** Anchors the logs changed since the last anchoring and waits for each under a shared head. */
  async function anchorNow(): Promise<void> {
    const appended = await t.server.anchorer.anchorOnce();
    for (const { head } of appended)
      await until(
        async () =>
          (await t.client.get(`/gov/v1/logs/${head.log}/anchor?tree_size=${head.tree_size}`)).status === 200,
        `the anchor of ${head.log} at ${head.tree_size} under a shared head`,
        15_000,
      );
  }

  beforeAll(async () => {
    t = await startTestServer('gov-audit-live-anchors');
    const live = await t.client.register();
    await t.client.admit(live.api_key, validEvidence('shared-1'));
    const testMode = await t.client.register({ mode: 'test' });
    await t.client.admit(testMode.api_key, validEvidence('test-1'));
    await t.client.admit(testMode.api_key, validEvidence('test-2'));
    const l4 = await t.client.register();
    await setTier(t.server, l4.tenant_id, 'L4');
    dedicated = `dedicated-${l4.tenant_id.slice('ten_'.length)}`;
    await t.client.admit(l4.api_key, validEvidence('dedicated-1'));
    dedicatedSize = (await t.client.admit(l4.api_key, validEvidence('dedicated-2'))).sth.tree_size;
    await anchorNow();
    await t.client.admit(testMode.api_key, validEvidence('test-3'));
    await anchorNow();
    const store = t.server.services.eventStore;
    // Historical heads are served from a read model: let it catch up with the last one signed.
    await t.server.supervisor.waitForPosition(await store.headPosition(), ['TreeHeadSigned']);
  }, 60_000);
  afterAll(async () => {
    await t?.dispose();
  });

  const trust = () => trustFromPublishedKeys(readPublishedKeys(path.join(t.dataDir, 'keys')));

  /** The live check of `log` at `serverUrl`, fed by an audit of the server's own store, as the CLI runs it. */
  async function liveAudit(serverUrl: string, log?: string, extra?: (check: LiveLogCheck) => Promise<void>) {
    const check = new LiveLogCheck({ serverUrl, trust: trust(), ...(log && { log }), retries: 0 });
    await check.begin();
    const audit = await runAudit(sqliteAuditSource(testConfig(t.dataDir).eventStoreFile), {
      trust: trust(),
      workers: 0,
      ...(log && { log }),
      hooksLog: check.log,
      ...check.hooks,
    });
    if (check.log !== SHARED_LOG_NAME)
      check.confirmLogKey(audit.logs.find((figures) => figures.log === check.log)?.verifier_key ?? null);
    await extra?.(check);
    return { audit, live: await check.finish() };
  }

  const checksOf = (live: LiveCheckReport) => live.discrepancies.map((d) => [d.check, d.log, d.tree_size]);

  it('given the honest server, when the shared log is checked, then every log’s anchors are fetched and prove, and nothing differs', async () => {
    const { audit, live } = await liveAudit(t.server.url);
    expect(audit.discrepancies).toEqual([]);
    expect(live.discrepancies).toEqual([]);
    expect(live.notices).toEqual([]);
    expect(live.compared).toMatchObject({ anchors: 3, latest_root_matches: true });
  });

  it('given the honest server, when one log is checked (--log), then its own anchors alone are fetched and prove', async () => {
    const test = await liveAudit(t.server.url, 'test');
    expect([test.live.discrepancies, test.live.notices]).toEqual([[], []]);
    expect(test.live.compared).toMatchObject({ anchors: 2, latest_root_matches: true });
    const own = await liveAudit(t.server.url, dedicated);
    expect([own.live.discrepancies, own.live.notices]).toEqual([[], []]);
    expect(own.live.compared).toMatchObject({ anchors: 1, latest_root_matches: true });
  });

  it('through the CLI, gov audit --server --log <dedicated log> exits 0 having compared its anchor', async () => {
    const run = await runGov([
      'audit',
      '--server',
      t.server.url,
      '--store',
      t.server.services.config.eventStoreFile,
      '--keys-dir',
      path.join(t.dataDir, 'keys'),
      '--log',
      dedicated,
      '--json',
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const { live } = JSON.parse(run.stdout) as { live: LiveCheckReport };
    expect(live.compared.anchors).toBe(1);
    expect(live.discrepancies).toEqual([]);
  });

  describe('given a server that forges its anchor answers', () => {
    let proxy: Awaited<ReturnType<typeof tamperingProxy>> | null = null;
    afterEach(async () => {
      await proxy?.close();
      proxy = null;
    });
    const through = async (tamper: Tamper, log?: string) => {
      proxy = await tamperingProxy(t.server.url, tamper);
      return (await liveAudit(proxy.url, log)).live;
    };

    it('when an inclusion proof is altered, then each anchor is reported as not proving (live-anchor-invalid)', async () => {
      const live = await through(
        editJson<AnchorBody>('/anchor', (body) => {
          const path = body.shared.inclusion_proof.audit_path;
          path[0] = `${path[0]![0] === '0' ? '1' : '0'}${path[0]!.slice(1)}`;
        }),
      );
      expect(checksOf(live)).toEqual([
        // In event order: the first anchoring appends the logs by name.
        ['live-anchor-invalid', dedicated, dedicatedSize],
        ['live-anchor-invalid', 'test', 2],
        ['live-anchor-invalid', 'test', 3],
      ]);
      expect(live.discrepancies[0]!.message).toMatch(
        /inclusion proof into the shared log's STH of size \d+ does not verify/,
      );
    });

    it('when the shared STH an anchor is proved into is not signed by a trusted key, then that is reported', async () => {
      const other = generateKeyPair('another.example/log');
      const live = await through(
        editJson<AnchorBody>('/anchor', (body) => {
          body.shared.sth.log_id = other.verifierKey;
        }),
        'test',
      );
      expect(checksOf(live)).toEqual([
        ['live-anchor-invalid', 'test', 2],
        ['live-anchor-invalid', 'test', 3],
      ]);
      expect(live.discrepancies[0]!.message).toMatch(
        /STH it is proved into does not verify: .*not a trusted key/,
      );
    });

    it('when the server shows another head of the dedicated log at the anchored size, then the shared log’s check reports the fork (live-anchor-mismatch)', async () => {
      const live = await through(
        editJson<{ root_hash: string }>(`/logs/${dedicated}/sth`, (body, url) => {
          if (url.includes(`tree_size=${dedicatedSize}`)) body.root_hash = 'ab'.repeat(32);
        }),
      );
      expect(checksOf(live)).toEqual([['live-anchor-mismatch', dedicated, dedicatedSize]]);
      expect(live.discrepancies[0]!.message).toMatch(/two trees of one log/);
    });

    it('when the server does not serve the test log’s anchors, though its shared log holds them, then each is missing (live-anchor-missing)', async () => {
      const live = await through((url) =>
        url.startsWith('/gov/v1/logs/test/anchor')
          ? { status: 404, body: JSON.stringify({ error: 'NOT_FOUND', message: 'no anchor' }) }
          : null,
      );
      expect(checksOf(live)).toEqual([
        ['live-anchor-missing', 'test', 2],
        ['live-anchor-missing', 'test', 3],
      ]);
    });
  });

  it('given anchors the server never made, then one of a size it anchored otherwise is a mismatch, and one whose leaf its shared log lacks is a notice', async () => {
    const record = (size: number) => ({
      record_type: 'GOV_LOG_ANCHOR_V1',
      log: 'test',
      tree_size: size,
      forged: true,
    });
    const { live } = await liveAudit(t.server.url, 'test', async (check) => {
      const answer = (
        await t.client.get<{ anchor: { record: { root_hash: string; checkpoint: string } } }>(
          '/gov/v1/logs/test/anchor?tree_size=3',
        )
      ).body.anchor.record;
      await check.onAnchor({
        log: 'test',
        treeSize: 3,
        rootHash: answer.root_hash,
        checkpoint: answer.checkpoint,
        leafHash: leafHashOfRecord(record(3)),
      });
      await check.onAnchor({
        log: 'test',
        treeSize: 9,
        rootHash: 'cd'.repeat(32),
        checkpoint: answer.checkpoint,
        leafHash: leafHashOfRecord(record(9)),
      });
    });
    expect(checksOf(live)).toEqual([['live-anchor-mismatch', 'test', 3]]);
    expect(live.discrepancies[0]!.message).toMatch(/another anchor record of that size/);
    expect(live.notices).toEqual([
      expect.stringMatching(/^1 anchor of the events is not under the server's signed shared tree/),
    ]);
  });
});
