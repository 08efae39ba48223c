/**
 * Acceptance: the live log check against a real server. More than a full tile of evidence is admitted
 * over HTTP; the auditor's side is recomputed straight from the server's event store (each admitted
 * record hashed with RFC 9162 / RFC 8785, leaves in the order the signed tree heads integrate them,
 * roots from a compact range) and fed to LiveLogCheck, which reads only the public log endpoints and
 * trusts only the log keys on disk. The honest server must show no discrepancy.
 */
import path from 'node:path';
import { type AuditReport, runAudit, sqliteAuditSource, trustFromPublishedKeys } from '../audit';
import { type LiveCheckReport, LiveLogCheck, type LiveLogCheckOptions } from '../audit/live-check';
import { leafHashOfRecord, logOfEvent, SHARED_LOG_NAME } from '../domain/log';
import type { TreeHeadSigned } from '../event-schemas';
import { CompactRange, toHex } from '../merkle-core';
import type { EventStore } from '../ports/event-store';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { runGov } from './support/children';
import { inParallel, startTestServer, type TestServer, testConfig } from './support/governance-client';
import { unlimitedInSharedLog } from './support/unlimited-tenant';

/** Leaves beyond one full tile (256), so a full and a partial tile are both compared. */
const ADMISSIONS = 300;

/** The member of each admission event that holds the leaf record. */
const LEAF_RECORD: Readonly<Record<string, string>> = {
  EvidenceAdmitted: 'envelope',
  ExecutionAdmitted: 'trace',
  VarianceRecorded: 'record',
};

interface RecomputedHead {
  size: number;
  root: Uint8Array;
  checkpoint: string;
}

/** The log as the events give it: leaf hashes in leaf order and every signed head with its root. */
interface Recomputed {
  leafHashes: Uint8Array[];
  heads: RecomputedHead[];
}

/**
 * Reads the whole event store for the shared log (the one the check compares): admission records are
 * hashed as they come; each TreeHeadSigned takes its leaves in `leaf_positions` order, and its root is
 * recomputed from them. Other logs' events (the test log's heads) are left out.
 */
async function recompute(store: EventStore): Promise<Recomputed> {
  const pending = new Map<number, Uint8Array>();
  const leafHashes: Uint8Array[] = [];
  const heads: RecomputedHead[] = [];
  const range = new CompactRange();
  for await (const event of store.readAll()) {
    if (logOfEvent(event.data) !== SHARED_LOG_NAME) continue;
    const member = LEAF_RECORD[event.type];
    if (member) {
      pending.set(event.position, leafHashOfRecord((event.data as Record<string, unknown>)[member]));
      continue;
    }
    if (event.type !== 'TreeHeadSigned') continue;
    const head = event.data as TreeHeadSigned;
    expect(head.first_leaf_index).toBe(range.size);
    for (const position of head.leaf_positions) {
      const hash = pending.get(position);
      if (!hash) throw new Error(`tree head ${head.tree_size} integrates position ${position}, no admission`);
      pending.delete(position);
      leafHashes.push(hash);
      range.append(hash);
    }
    expect(range.size).toBe(head.tree_size);
    heads.push({ size: head.tree_size, root: range.root(), checkpoint: head.checkpoint });
  }
  return { leafHashes, heads };
}

/**
 * Feeds the check as the audit engine does: leaves in order, each head after the leaves it covers,
 * with the root recomputed from the leaf hashes fed.
 */
async function feed(check: LiveLogCheck, log: Recomputed, leafHashes = log.leafHashes): Promise<void> {
  const range = new CompactRange();
  for (const head of log.heads) {
    while (range.size < head.size) {
      const hash = leafHashes[range.size]!;
      await check.onLeaf(range.size, hash);
      range.append(hash);
    }
    await check.onTreeHead(head.size, range.root(), head.checkpoint);
  }
}

describe('gov audit --server: the live log check against a running server', () => {
  let t: TestServer;
  let log: Recomputed;
  let options: LiveLogCheckOptions;

  beforeAll(async () => {
    t = await startTestServer('gov-audit-live');
    const tenant = await t.client.register({ email: 'live-audit@example.com' });
    await unlimitedInSharedLog(t.server, tenant.tenant_id);
    await inParallel(
      Array.from({ length: ADMISSIONS }, (_, i) => i),
      16,
      async () => {
        await t.client.admit(tenant.api_key);
      },
    );
    const store = t.server.services.eventStore;
    // Historical heads are served from a read model: let it catch up with the last one signed.
    await t.server.supervisor.waitForPosition(await store.headPosition(), ['TreeHeadSigned']);
    log = await recompute(store);
    options = {
      serverUrl: t.server.url,
      // Trust comes from the keys on disk, never from what the server publishes.
      trust: {
        logVerifierKeys: readPublishedKeys(path.join(t.dataDir, 'keys')).log.map((k) => k.verifier_key),
      },
      proofEvery: 50,
    };
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('finds no discrepancy, having compared every leaf, sampled proof and signed tree head', async () => {
    expect(log.leafHashes).toHaveLength(ADMISSIONS);
    const check = new LiveLogCheck(options);
    await check.begin();
    await feed(check, log);
    const report = await check.finish();
    expect(report.discrepancies).toEqual([]);
    expect(report.notices).toEqual([]);
    expect(report.server).toMatchObject({
      tree_size: ADMISSIONS,
      root_hash: toHex(log.heads.at(-1)!.root),
      verified_by: options.trust.logVerifierKeys[0],
    });
    expect(report.compared).toEqual({
      tiles: 2, // tile/0/000 and tile/0/001.p/44
      leaves: ADMISSIONS,
      proofs: 7, // leaves 0, 50, …, 250 and 299
      tree_heads: log.heads.length,
      consistency_proofs: log.heads.length - 2, // between consecutive heads, none from the empty tree
      latest_root_matches: true,
      anchors: 0,
    });
  });

  it('reports the first leaf whose recomputed hash the server does not have, and the roots after it', async () => {
    const leafHashes = [...log.leafHashes];
    leafHashes[270] = leafHashOfRecord({ forged: true });
    const check = new LiveLogCheck(options);
    await check.begin();
    await feed(check, log, leafHashes);
    const report = await check.finish();
    expect(report.discrepancies.filter((d) => d.check === 'live-tile-mismatch')).toEqual([
      expect.objectContaining({
        leaf_index: 270,
        message: expect.stringContaining('tile/0/001.p/44: 1 of the 44'),
      }),
    ]);
    const firstHeadAfter = log.heads.find((h) => h.size > 270)!.size;
    const roots = report.discrepancies.filter((d) => d.check === 'live-root-mismatch');
    expect(Math.min(...roots.map((d) => d.tree_size!))).toBe(firstHeadAfter);
    expect(report.compared.latest_root_matches).toBe(false);
  });

  it("plugs into runAudit over the server's own store file: neither finds anything wrong", async () => {
    const keys = readPublishedKeys(path.join(t.dataDir, 'keys'));
    const check = new LiveLogCheck(options);
    await check.begin();
    const audit = await runAudit(sqliteAuditSource(testConfig(t.dataDir).eventStoreFile), {
      trust: trustFromPublishedKeys(keys),
      workers: 0,
      ...check.hooks,
    });
    const live = await check.finish();
    expect(audit.discrepancies).toEqual([]);
    expect(live.discrepancies).toEqual([]);
    expect(live.notices).toEqual([]);
    // The live check compares the shared log: its heads, as the store gives them (the audit counts every log's).
    expect(live.local).toEqual({ leaves: audit.leaves, tree_heads: log.heads.length });
    expect(live.compared).toMatchObject({
      leaves: ADMISSIONS,
      tree_heads: log.heads.length,
      latest_root_matches: true,
    });
    expect(live.server?.root_hash).toBe(audit.root_hash);
  });

  /** `gov audit --json` over the server's own store and keys, comparing with the log at `server`. */
  const auditThroughCli = (server: string) =>
    runGov([
      'audit',
      '--server',
      server,
      '--store',
      t.server.services.config.eventStoreFile,
      '--keys-dir',
      path.join(t.dataDir, 'keys'),
      '--json',
    ]);

  it('through the CLI, `gov audit --server` on the same store and keys exits 0 with a clean live report', async () => {
    const run = await auditThroughCli(t.server.url);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(run.stdout) as AuditReport & { live: LiveCheckReport };
    expect(report.discrepancies).toEqual([]);
    expect(report.leaves).toBe(ADMISSIONS);
    expect(report.live.discrepancies).toEqual([]);
    expect(report.live.compared).toMatchObject({ leaves: ADMISSIONS, latest_root_matches: true });
    expect(report.live.server?.root_hash).toBe(report.root_hash);
  });

  it('through the CLI, a server that cannot be reached exits 1 and a --server that is not a URL exits 2', async () => {
    // Port 1 is on fetch's blocked-port list: the request fails at once, retried, as if refused.
    const unreachable = await auditThroughCli('http://127.0.0.1:1');
    expect(unreachable.code).toBe(1);
    const { live } = JSON.parse(unreachable.stdout) as { live: LiveCheckReport };
    expect(live.server).toBeNull();
    expect(live.discrepancies).toEqual([expect.objectContaining({ check: 'live-unreachable' })]);

    const notAUrl = await auditThroughCli('not-a-url');
    expect(notAUrl.code).toBe(2);
    expect(notAUrl.stderr).toContain('"not-a-url" is not a URL');
    expect(notAUrl.stdout).toBe('');
  });

  it('compares what it can when the server has signed more since the events were read', async () => {
    const tenant = await t.client.register({ email: 'live-audit-later@example.com' });
    await t.client.admit(tenant.api_key);
    const check = new LiveLogCheck(options);
    await check.begin();
    await feed(check, log);
    const report = await check.finish();
    expect(report.discrepancies).toEqual([]);
    expect(report.server?.tree_size).toBe(ADMISSIONS + 1);
    expect(report.compared).toMatchObject({ leaves: ADMISSIONS, latest_root_matches: null });
    expect(report.notices).toEqual([
      expect.stringContaining(`has ${ADMISSIONS + 1} leaves but the audited events give ${ADMISSIONS}`),
    ]);
  });
});
