/**
 * `gov rebuild` of a store with three logs: every log's read models (its leaves and size, its anchors
 * in the shared log, its signed tree heads and their cosignatures) are documents of the governance and
 * tree-heads projections, so one in-place rebuild replays them all, document for document, and the
 * summary gives each log's figures. There is no rebuild of one log alone: `--log` is refused, saying so.
 */
import path from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { checkpointNoteFromSth, type JsonSth, treeHeadStreamOf } from '../domain/log';
import {
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
} from '../merkle-core';
import { type GovRun, runGov } from './support/children';
import { setTier, startTestServer, type TestServer, validEvidence } from './support/governance-client';
import { readModels } from './support/read-models';
import { until } from './support/service-processes';

function gov(dataDir: string, ...args: string[]): Promise<GovRun> {
  return runGov(args, { dataDir });
}

describe('gov rebuild of a store with the shared, test and a dedicated log, anchors and a cosignature', () => {
  let t: TestServer;
  let dedicated: string;
  const witness = generateKeyPair('witness.rebuild.example', SIGNATURE_TYPE_COSIGNATURE_V1);

  beforeAll(async () => {
    t = await startTestServer('gov-rebuild-logs', { env: { GOV_WITNESS_KEYS: witness.verifierKey } });
    const live = await t.client.register();
    await t.client.admit(live.api_key, validEvidence('shared-1'));
    const testMode = await t.client.register({ mode: 'test' });
    await t.client.admit(testMode.api_key, validEvidence('test-1'));
    await t.client.admit(testMode.api_key, validEvidence('test-2'));
    const l4 = await t.client.register();
    await setTier(t.server, l4.tenant_id, 'L4');
    dedicated = `dedicated-${l4.tenant_id.slice('ten_'.length)}`;
    const head: JsonSth = (await t.client.admit(l4.api_key, validEvidence('dedicated-1'))).sth;
    const cosigned = await t.client.post(`/gov/v1/logs/${dedicated}/witness-signatures`, {
      tree_size: head.tree_size,
      cosignature: cosignatureLine(
        checkpointNoteFromSth(head),
        loadSignerKey(witness.signerKey),
        Math.floor(Date.now() / 1000),
      ),
    });
    expect(cosigned.status).toBe(200);
    expect((await t.server.anchorer.anchorOnce()).map((a) => a.head.log).sort()).toEqual(
      [dedicated, 'test'].sort(),
    );
    for (const [log, size] of [
      ['test', 2],
      [dedicated, 1],
    ] as const)
      await until(
        async () => (await t.client.get(`/gov/v1/logs/${log}/anchor?tree_size=${size}`)).status === 200,
        `the anchor of ${log} under a shared tree head`,
        15_000,
      );
    await t.stop();
  }, 60_000);
  afterAll(async () => {
    await t?.dispose();
  });

  /** Each log's signed tree heads in the store. */
  async function headsInStore(logs: readonly string[]): Promise<Record<string, number>> {
    const store = new SqliteEventStore({ file: path.join(t.dataDir, 'events.db') });
    try {
      const counts: Record<string, number> = {};
      for (const log of logs) {
        counts[log] = 0;
        for await (const _ of store.readStream(treeHeadStreamOf(log))) counts[log]++;
      }
      return counts;
    } finally {
      await store.close();
    }
  }

  it('when gov rebuild runs in place, then every log’s read models are replayed as they were, and the JSON gives each log’s leaves, anchors and tree heads', async () => {
    const before = await readModels(t.dataDir);
    // Each log has documents to rebuild: leaves of three logs, two anchors, a cosigned dedicated head.
    const logsOf = (documents: { data: unknown }[]) =>
      [...new Set(documents.map((d) => (d.data as { log?: string }).log))].sort();
    expect(logsOf(before['governance/leaves']!)).toEqual([dedicated, 'shared', 'test'].sort());
    expect(logsOf(before['governance/log_anchors']!)).toEqual([dedicated, 'test'].sort());
    expect(
      before['tree-heads/tree_heads']!.filter(
        (d) => (d.data as { cosignatures: unknown[] }).cosignatures.length > 0,
      ),
    ).toEqual([expect.objectContaining({ data: expect.objectContaining({ log: dedicated }) })]);

    const run = await gov(t.dataDir, 'rebuild', '--json');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const every = JSON.parse(run.stdout) as Array<{ projection: string; events: number; logs?: unknown[] }>;
    // The clearinghouse's projections; the agent platform's have no events in this store.
    const results = every.filter((r) => ['tenants', 'governance', 'tree-heads'].includes(r.projection));
    for (const result of results) expect(result.events).toBeGreaterThan(0);
    const heads = await headsInStore(['shared', 'test', dedicated]);
    expect(Object.fromEntries(results.map((r) => [r.projection, r.logs]))).toEqual({
      tenants: undefined,
      // The shared log: one admission and the two anchors; the test log was created at the first start.
      governance: [
        { log: 'shared', leaves: 3 },
        { log: 'test', leaves: 2, anchors: 1 },
        { log: dedicated, leaves: 1, anchors: 1 },
      ],
      'tree-heads': [
        { log: 'shared', tree_heads: heads.shared },
        { log: 'test', tree_heads: heads.test },
        { log: dedicated, tree_heads: heads[dedicated] },
      ],
    });
    expect(await readModels(t.dataDir)).toEqual(before);
  });

  it('when gov rebuild prints its summary, then each projection holding logs is followed by a line per log', async () => {
    const run = await gov(t.dataDir, 'rebuild', 'governance', 'tree-heads');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        [
          'governance: generation 1 serving; .*',
          '  shared: 3 leaves',
          '  test: 2 leaves, 1 anchor',
          `  ${dedicated}: 1 leaf, 1 anchor`,
          'tree-heads: generation 1 serving; .*',
          '  shared: \\d+ tree heads',
          '  test: \\d+ tree heads',
          `  ${dedicated}: \\d+ tree heads`,
        ].join('\n'),
      ),
    );
  });

  it('when asked to rebuild one log (--log), then exit 2 saying that a rebuild replays every log, and nothing is changed', async () => {
    const before = await readModels(t.dataDir);
    const run = await gov(t.dataDir, 'rebuild', '--log', 'test');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /gov rebuild has no --log: .*all logs at once.*gov audit --log test checks one log/,
    );
    expect(await readModels(t.dataDir)).toEqual(before);
  });
});
