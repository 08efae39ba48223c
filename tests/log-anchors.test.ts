/**
 * Over HTTP, anchoring: a test-mode tenant's leaves go to the test log, the shared log's sequencer
 * anchors the test log's checkpoint in the shared log (every GOV_ANCHOR_INTERVAL_MS, short here), and
 * GET /gov/v1/logs/test/anchor gives the anchor leaf with a proof that verifies, with merkle-core's
 * verifier, into the shared log's STH; the checkpoint it holds verifies under the test log's key.
 * An unchanged log is not anchored again, not even after a restart; the audit of it all is clean.
 */
import path from 'node:path';
import { type JsonSth, leafHashOfRecord, verifySth } from '../domain/log';
import { fromHex, loadVerifierKey, toHex, verifyCheckpoint, verifyInclusion } from '../merkle-core';
import { readLogKey } from '../runtime/keys/log-keys';
import { auditDataDir } from './support/audit-data-dir';
import { startTestServer, type TestServer, validEvidence } from './support/governance-client';

interface AnchorAnswer {
  log: string;
  tree_size: number;
  anchor: {
    leaf_index: number;
    leaf_hash: string;
    record: { record_type: string; log: string; tree_size: number; root_hash: string; checkpoint: string };
  };
  shared: {
    sth: JsonSth & { log: string };
    inclusion_proof: { leaf_index: number; tree_size: number; root_hash: string; audit_path: string[] };
  };
}

describe('anchoring the test log in the shared log', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('gov-anchors', { env: { GOV_ANCHOR_INTERVAL_MS: '100' } });
  });
  afterAll(async () => {
    await t?.dispose();
  });
  const keysDir = () => path.join(t.dataDir, 'keys');
  const anchorOf = (log: string, size: number | string) =>
    t.client.get<AnchorAnswer & { error: string; message: string }>(
      `/gov/v1/logs/${log}/anchor?tree_size=${size}`,
    );

  /** The anchor of the test log covering `size`, once the anchorer has made it (or a failed expectation). */
  async function anchorCovering(size: number): Promise<AnchorAnswer> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const answer = await anchorOf('test', size);
      if (answer.status === 200) return answer.body;
      expect(answer.status).toBe(404);
      if (Date.now() > deadline) throw new Error(`no anchor of size ${size} within 15 s: ${answer.text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  let anchored: AnchorAnswer;

  it('given a test-mode tenant’s leaves, then the test log is anchored in the shared log, and the anchor’s proof verifies into the shared log’s STH', async () => {
    const tenant = await t.client.register({ mode: 'test' });
    await t.client.admit(tenant.api_key, validEvidence('anchored-1'));
    const second = await t.client.admit(tenant.api_key, validEvidence('anchored-2'));
    const size = second.sth.tree_size;
    expect((second.sth as JsonSth & { log?: string }).log).toBe('test');

    anchored = await anchorCovering(size);
    const { anchor, shared } = anchored;
    expect(anchored.log).toBe('test');
    expect(anchored.tree_size).toBeGreaterThanOrEqual(size);
    expect(anchor.record).toMatchObject({
      record_type: 'GOV_LOG_ANCHOR_V1',
      log: 'test',
      tree_size: anchored.tree_size,
    });
    expect(anchor.leaf_hash).toBe(toHex(leafHashOfRecord(anchor.record)));

    // The checkpoint is one the test log signed, under its key.
    const testKey = loadVerifierKey(readLogKey(keysDir(), 'test')!.verifierKey);
    expect(await verifyCheckpoint(anchor.record.checkpoint, testKey)).toMatchObject({ ok: true });
    const signedThen = await t.client.get<JsonSth>(`/gov/v1/logs/test/sth?tree_size=${anchored.tree_size}`);
    expect(signedThen.body.root_hash).toBe(anchor.record.root_hash);

    // The shared log's STH verifies under the shared key, and the anchor leaf is in its tree.
    const sharedKey = loadVerifierKey(t.server.sequencer.verifierKey);
    expect(shared.sth.log).toBe('shared');
    expect(await verifySth(shared.sth, sharedKey)).toMatchObject({ ok: true });
    const proof = shared.inclusion_proof;
    expect(proof).toMatchObject({
      leaf_index: anchor.leaf_index,
      tree_size: shared.sth.tree_size,
      root_hash: shared.sth.root_hash,
    });
    expect(
      verifyInclusion(
        anchor.leaf_index,
        shared.sth.tree_size,
        fromHex(anchor.leaf_hash),
        proof.audit_path.map(fromHex),
        fromHex(shared.sth.root_hash),
      ),
    ).toEqual({ ok: true });
    // …and is served as the shared log's leaf at that index, with its record.
    const leaf = await t.client.get<{ leaf_type: string; record: unknown }>(
      `/gov/v1/log/leaf?index=${anchor.leaf_index}`,
    );
    expect(leaf.body).toMatchObject({ leaf_type: 'GOV_LOG_ANCHOR_V1', record: anchor.record });

    // The lag from the head's signature to its anchor is measured, by log.
    expect((await t.client.get('/v1/metrics')).text).toMatch(
      /^gov_anchor_lag_seconds_count\{log="test"\} [1-9]/m,
    );

    // A smaller size is covered by the same (first) anchor at or after it.
    expect((await anchorOf('test', 1)).body.anchor.leaf_index).toBeLessThanOrEqual(anchor.leaf_index);
  });

  it('given the test log unchanged, then no anchor is added, even across a restart', async () => {
    const sharedSize = () => t.server.sequencer.latest().sth.tree_size;
    const before = sharedSize();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await t.server.anchorer.anchorOnce()).toEqual([]);
    expect(sharedSize()).toBe(before);
    await t.restart();
    expect(await t.server.anchorer.anchorOnce()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(t.server.sequencer.latest().sth.tree_size).toBe(before);
    expect((await anchorOf('test', anchored.tree_size)).body.anchor).toEqual(anchored.anchor);
  });

  it('answers 404 where no anchor covers the size, for the shared log and for a log there is not, and 400 for a bad query', async () => {
    const beyond = await anchorOf('test', anchored.tree_size + 1);
    expect([beyond.status, beyond.body.error]).toEqual([404, 'NOT_FOUND']);
    expect(beyond.body.message).toMatch(/GOV_ANCHOR_INTERVAL_MS/);
    const shared = await anchorOf('shared', 1);
    expect([shared.status, shared.body.message]).toEqual([404, expect.stringContaining('not anchored')]);
    const unknown = await anchorOf(`dedicated-${'0'.repeat(24)}`, 1);
    expect([unknown.status, unknown.body.message]).toEqual([
      404,
      expect.stringContaining('GET /gov/v1/logs'),
    ]);
    expect((await t.client.get('/gov/v1/logs/test/anchor')).status).toBe(400);
    expect((await anchorOf('test', '-1')).status).toBe(400);
  });

  it('given the store with its anchors, when audited, then it is clean', async () => {
    await t.stop();
    const report = await auditDataDir(t.dataDir, { checks: 'all' });
    expect(report.discrepancies).toEqual([]);
    expect(report.notices).toEqual([]);
    const shared = report.logs.find((log) => log.log === 'shared')!;
    expect(shared.leaves).toBeGreaterThanOrEqual(1);
  });
});
