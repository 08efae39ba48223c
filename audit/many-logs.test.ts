/**
 * The audit of a stream with three logs (shared, test, an L4 tenant's dedicated log), as issue 32's
 * contract writes them: each log's tree and heads apart, its heads under its own key, one LogCreated
 * per log, no leaf in two logs, every envelope bound to its own log.
 */
import path from 'node:path';
import { from } from '../adapters/ndjson/importable-store.contract';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import type { TreeHeadSigned } from '../event-schemas';
import { signCheckpoint, toHex } from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { tempDir } from '../tests/support/temp-dir';
import { type AuditReport, eventsAuditSource, runAudit, sqliteAuditSource } from '.';
import type { AuditScope } from './event-checks';
import { SyntheticLog } from './synthetic-log';

const DEDICATED = `dedicated-${'ab'.repeat(12)}`;
const L4_TENANT = `ten_${'ab'.repeat(12)}`;
const SCOPES: AuditScope[] = ['all', 'log'];

/** [position, check, log] of every discrepancy. */
const found = (report: AuditReport) => report.discrepancies.map((d) => [d.position, d.check, d.log]);

function audit(log: SyntheticLog, checks: AuditScope = 'all', only?: string, events = log.events) {
  return runAudit(eventsAuditSource(events, { chunkEvents: 5 }), {
    trust: log.trust,
    workers: 0,
    checks,
    ...(only !== undefined && { log: only }),
  });
}

/**
 * Shared, test and dedicated logs with interleaved admissions (a closed loop in the dedicated one) and
 * heads, the dedicated log created mid-stream, as when a tenant becomes L4.
 */
async function threeLogs() {
  const log = new SyntheticLog();
  const shared1 = await log.admitEvidence('tnt_a');
  log.createLog('test');
  const test1 = await log.admitEvidence('tnt_t', 'model-t', undefined, { log: 'test' });
  log.signTreeHead();
  log.createLog(DEDICATED);
  const auth = await log.admitEvidence(L4_TENANT, 'model-4', undefined, { log: DEDICATED });
  await log.admitEvidence('tnt_a', 'model-2');
  log.signTreeHead('test');
  log.execute(auth, 'EXECUTED');
  const dedicatedHead = log.signTreeHead(DEDICATED);
  await log.admitEvidence('tnt_t', 'model-t', undefined, { log: 'test' });
  const sharedHead = log.signTreeHead();
  const testHead = log.signTreeHead('test');
  return { log, shared1, test1, auth, sharedHead, testHead, dedicatedHead };
}

/** The log an event names (its data's `log` member). */
const logOf = (event: RecordedEvent) => (event.data as { log?: string }).log;

const rootOf = (head: RecordedEvent<TreeHeadSigned>) => head.data.root_hash;

describe('an audit of a stream of three logs', () => {
  it.each(SCOPES)(
    'given three clean logs, when audited (checks %s), then each log is replayed apart and the report gives its figures',
    async (checks) => {
      const { log, sharedHead, testHead, dedicatedHead } = await threeLogs();
      const report = await audit(log, checks);
      expect(found(report)).toEqual([]);
      expect(report.notices).toEqual([]);
      expect(report).toMatchObject({
        log: null,
        leaves: 7,
        tree_heads: 5,
        tree_size: 2,
        root_hash: rootOf(sharedHead),
      });
      expect(report.logs).toEqual([
        expect.objectContaining({
          log: 'shared',
          kind: 'shared',
          leaves: 2,
          tree_heads: 2,
          tree_size: 2,
          root_hash: rootOf(sharedHead),
          signatures: 0,
        }),
        expect.objectContaining({
          log: DEDICATED,
          kind: 'dedicated',
          origin: `audit.example/log/${DEDICATED}`,
          verifier_key: log.signerOf(DEDICATED).verifierKey,
          leaves: 3,
          tree_heads: 1,
          tree_size: 3,
          root_hash: rootOf(dedicatedHead),
          signatures: 1,
        }),
        expect.objectContaining({
          log: 'test',
          kind: 'test',
          leaves: 2,
          tree_heads: 2,
          tree_size: 2,
          root_hash: rootOf(testHead),
          signatures: 2,
        }),
      ]);
      // Two shared heads checked by the threads, three of the other logs here.
      expect(report.signatures).toBeGreaterThanOrEqual(5);
    },
  );

  it.each(SCOPES)(
    "given a head of the test log signed with the dedicated log's key, when audited (checks %s), then that head is reported",
    async (checks) => {
      const { log } = await threeLogs();
      await log.admitEvidence('tnt_t', 'model-t', undefined, { log: 'test' });
      const forged = log.signTreeHead('test', log.signerOf(DEDICATED));
      const report = await audit(log, checks);
      // The key signs its own origin only: the checkpoint names the dedicated log, not the test log.
      expect(found(report)).toEqual([
        [forged.position, 'sth-checkpoint-mismatch', 'test'],
        [forged.position, 'sth-signature', 'test'],
      ]);
      expect(report.discrepancies[1]!.message).toMatch(/does not verify under the key of log test/);
    },
  );

  it.each(SCOPES)(
    "given a head of the shared log signed with the test log's key, when audited (checks %s), then that head is reported",
    async (checks) => {
      const { log } = await threeLogs();
      await log.admitEvidence('tnt_a');
      const forged = log.signTreeHead('shared', log.signerOf('test'));
      expect(found(await audit(log, checks))).toEqual([[forged.position, 'sth-signature', undefined]]);
    },
  );

  it.each(SCOPES)(
    'given a leaf of the shared log admitted again to the dedicated log, when audited (checks %s), then the second one is in two logs',
    async (checks) => {
      const { log, shared1 } = await threeLogs();
      const again = log.readmit(shared1, DEDICATED);
      log.signTreeHead(DEDICATED);
      const report = await audit(log, checks);
      const wanted = [again.position, 'leaf-in-two-logs', DEDICATED];
      expect(
        checks === 'all' ? found(report).filter((d) => d[1] === 'leaf-in-two-logs') : found(report),
      ).toEqual([wanted]);
      expect(report.discrepancies.find((d) => d.check === 'leaf-in-two-logs')!.message).toMatch(
        `leaf hash ${shared1.data.leaf_hash} is already a leaf of log shared`,
      );
      // The full audit also sees an envelope bound to the shared log in the dedicated log.
      if (checks === 'all')
        expect(found(report)).toContainEqual([again.position, 'envelope-log-binding', DEDICATED]);
    },
  );

  it.each(SCOPES)(
    'given a forked head of the dedicated log (validly signed, another root), when audited (checks %s), then its root is reported',
    async (checks) => {
      const { log, dedicatedHead } = await threeLogs();
      await log.admitEvidence(L4_TENANT, 'model-4', undefined, { log: DEDICATED });
      const fork = log.signTreeHead(DEDICATED);
      const forkedRoot = new Uint8Array(32).fill(7);
      fork.data.root_hash = toHex(forkedRoot);
      fork.data.checkpoint = signCheckpoint(
        {
          origin: fork.data.origin,
          size: fork.data.tree_size,
          rootHash: forkedRoot,
          extensions: [`timestamp ${fork.data.timestamp}`],
        },
        log.signerOf(DEDICATED),
      );
      const report = await audit(log, checks);
      expect(found(report)).toEqual([[fork.position, 'root-mismatch', DEDICATED]]);
      expect(dedicatedHead.position).toBeLessThan(fork.position);
    },
  );

  it('given evidence in the dedicated log bound to the shared log, and shared evidence bound to the test log, when audited, then both bindings are reported', async () => {
    const { log } = await threeLogs();
    const wrongDedicated = await log.admitEvidence(L4_TENANT, 'model-5', undefined, {
      log: DEDICATED,
      bindTo: 'shared',
    });
    const wrongShared = await log.admitEvidence('tnt_a', 'model-6', undefined, { bindTo: 'test' });
    log.signTreeHead(DEDICATED);
    log.signTreeHead();
    const report = await audit(log);
    expect(found(report)).toEqual([
      [wrongDedicated.position, 'envelope-log-binding', DEDICATED],
      [wrongShared.position, 'envelope-log-binding', undefined],
    ]);
    expect(report.discrepancies[0]!.message).toMatch(`not to the key of log ${DEDICATED}`);
  });

  it.each(SCOPES)(
    'given a LogCreated with a foreign origin, a second one, a head in another stream and an admission before its log exists, when audited (checks %s), then each is reported',
    async (checks) => {
      const { log } = await threeLogs();
      const early = await log.admitEvidence('tnt_t', 'model-t', undefined, { log: 'test' });
      const events = log.events.filter((e) => e.type !== 'LogCreated' || logOf(e) !== 'test');
      // The test log's LogCreated moved after its first admissions; the dedicated one's origin changed.
      const created = log.events.find((e) => e.type === 'LogCreated' && logOf(e) === 'test')!;
      const dedicated = log.events.find((e) => e.type === 'LogCreated' && logOf(e) === DEDICATED)!;
      (dedicated.data as { origin: string }).origin = 'elsewhere.example/log';
      const firstTest = log.events.find((e) => e.type === 'EvidenceAdmitted' && logOf(e) === 'test')!;
      const renumbered = [
        ...events,
        { ...created, position: 1000, revision: 0 },
        { ...created, id: 'again', position: 1001, revision: 1 },
      ];
      const report = await audit(log, checks, undefined, renumbered);
      const logChecks = found(report).filter((d) => String(d[1]).startsWith('log-'));
      const testHeads = log.events
        .filter((e) => e.type === 'TreeHeadSigned' && logOf(e) === 'test')
        .map((e) => e.position);
      expect(logChecks).toEqual([
        [firstTest.position, 'log-unknown', 'test'],
        [dedicated.position, 'log-created', DEDICATED],
        [testHeads[0], 'log-unknown', 'test'],
        [testHeads[1], 'log-unknown', 'test'],
        [1001, 'log-created', 'test'],
      ]);
      expect(
        report.discrepancies.find((d) => d.check === 'log-created' && d.log === DEDICATED)!.message,
      ).toMatch(
        /its origin is elsewhere.example\/log, not audit.example\/log\/dedicated-.*its verifier key is named/,
      );
      expect(early.position).toBeGreaterThan(0);
    },
  );

  it.each(SCOPES)(
    "given a head of the test log appended to the shared log's stream, when audited (checks %s), then its stream is reported",
    async (checks) => {
      const { log, testHead } = await threeLogs();
      const moved = log.events.map((e) => (e === testHead ? { ...e, stream: 'merkle-log', revision: 2 } : e));
      const report = await audit(log, checks, undefined, moved);
      expect(found(report).filter((d) => d[1] === 'log-stream')).toEqual([
        [testHead.position, 'log-stream', 'test'],
      ]);
    },
  );

  it.each(SCOPES)(
    'given --log test, when audited (checks %s), then only the test log is replayed and reported',
    async (checks) => {
      const { log, testHead } = await threeLogs();
      // A fault in the dedicated log, outside what is audited.
      await log.admitEvidence(L4_TENANT, 'model-4', undefined, { log: DEDICATED });
      const dedicated = log.signTreeHead(DEDICATED, log.signerOf('test'));
      const onlyTest = await audit(log, checks, 'test');
      expect(found(onlyTest)).toEqual([]);
      expect(onlyTest).toMatchObject({
        log: 'test',
        leaves: 2,
        tree_heads: 2,
        tree_size: 2,
        root_hash: rootOf(testHead),
      });
      expect(onlyTest.logs.map((l) => l.log)).toEqual(['test']);
      const onlyDedicated = await audit(log, checks, DEDICATED);
      expect(found(onlyDedicated)).toEqual([
        [dedicated.position, 'sth-checkpoint-mismatch', DEDICATED],
        [dedicated.position, 'sth-signature', DEDICATED],
      ]);
      const missing = await audit(log, checks, 'dedicated-000000000000000000000000');
      expect(missing.notices).toEqual([expect.stringMatching(/log dedicated-0+ is not in the stream/)]);
    },
  );

  it.each(SCOPES)(
    'given the three logs in the embedded store file, when audited from it (checks %s), then it is clean with the same figures as from memory',
    async (checks) => {
      const { log } = await threeLogs();
      const temp = tempDir('gov-audit-logs');
      try {
        const file = path.join(temp.dir, 'events.db');
        const store = new SqliteEventStore({ file });
        await store.importEvents(from(log.events));
        await store.close();
        const fromFile = await runAudit(sqliteAuditSource(file, { chunkEvents: 4 }), {
          trust: log.trust,
          workers: 0,
          checks,
        });
        const fromMemory = await audit(log, checks);
        expect(found(fromFile)).toEqual([]);
        expect(fromFile.logs).toEqual(fromMemory.logs);
      } finally {
        temp.remove();
      }
    },
  );

  it.each(SCOPES)(
    'given an admission naming a log that is no log name, when audited (checks %s), then it is reported and its leaf taken to be in the shared log',
    async (checks) => {
      const { log } = await threeLogs();
      const odd = await log.admitEvidence('tnt_a', 'model-9');
      (odd.data as { log?: string }).log = 'Test';
      log.signTreeHead();
      const report = await audit(log, checks);
      expect(found(report)).toEqual([[odd.position, 'event-schema', undefined]]);
      expect(report.logs[0]).toMatchObject({ log: 'shared', leaves: 3 });
    },
  );
});
