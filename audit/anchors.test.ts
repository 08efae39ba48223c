/**
 * The audit of anchors: shared-log leaves (LogAnchored, record GOV_LOG_ANCHOR_V1) holding another log's
 * checkpoint. Each must hold a head its log signed — under the log's key, of a size and root the log
 * signed a TreeHeadSigned of before it — and a log's anchors never go back in size.
 */
import type { TreeHeadSigned } from '../event-schemas';
import {
  generateKeyPair,
  loadSignerKey,
  parseCheckpoint,
  parseNote,
  signCheckpoint,
  toHex,
} from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { type AuditReport, eventsAuditSource, runAudit } from '.';
import type { AuditScope } from './event-checks';
import { SyntheticLog } from './synthetic-log';

const DEDICATED = `dedicated-${'cd'.repeat(12)}`;
const SCOPES: AuditScope[] = ['all', 'log'];

/** [position, check, log] of every discrepancy. */
const found = (report: AuditReport) => report.discrepancies.map((d) => [d.position, d.check, d.log]);

function audit(log: SyntheticLog, checks: AuditScope = 'all', only?: string) {
  return runAudit(eventsAuditSource(log.events, { chunkEvents: 4 }), {
    trust: log.trust,
    workers: 0,
    checks,
    ...(only !== undefined && { log: only }),
  });
}

/** A shared, a test and a dedicated log; the test log signed at sizes 1 and 2, the dedicated at 1. */
async function logs() {
  const log = new SyntheticLog();
  await log.admitEvidence('tnt_a');
  log.createLog('test');
  log.createLog(DEDICATED);
  await log.admitEvidence('tnt_t', 'model-t', undefined, { log: 'test' });
  const test1 = log.signTreeHead('test');
  await log.admitEvidence('ten_x', 'model-4', undefined, { log: DEDICATED });
  const dedicated1 = log.signTreeHead(DEDICATED);
  await log.admitEvidence('tnt_t', 'model-t2', undefined, { log: 'test' });
  const test2 = log.signTreeHead('test');
  return { log, test1, test2, dedicated1 };
}

/** The checkpoint of `head` signed again by a key the log does not have, under the log's origin. */
function forgedCheckpoint(head: RecordedEvent<TreeHeadSigned>, rootHash?: Uint8Array): string {
  const checkpoint = parseCheckpoint(parseNote(head.data.checkpoint).text);
  const forger = loadSignerKey(generateKeyPair(head.data.origin).signerKey);
  return signCheckpoint({ ...checkpoint, ...(rootHash && { rootHash }) }, forger);
}

describe('an audit of anchors', () => {
  it.each(SCOPES)(
    'given anchors of two logs, each of a head its log signed, when audited (checks %s), then it is clean and the anchors are shared leaves',
    async (checks) => {
      const { log, test1, test2, dedicated1 } = await logs();
      log.anchor(test1);
      log.anchor(dedicated1);
      log.signTreeHead();
      log.anchor(test2);
      log.signTreeHead();
      const report = await audit(log, checks);
      expect(found(report)).toEqual([]);
      expect(report.notices).toEqual([]);
      expect(report.logs.find((l) => l.log === 'shared')).toMatchObject({ leaves: 4, tree_size: 4 });
      // Each anchor's checkpoint is verified under its log's key: the test log's two heads and two anchors.
      expect(report.logs.find((l) => l.log === 'test')?.signatures).toBe(4);
    },
  );

  it.each(SCOPES)(
    'given an anchor whose checkpoint is forged (the size and root the log signed, another key), when audited (checks %s), then the anchor is reported',
    async (checks) => {
      const { log, test2 } = await logs();
      const forged = log.anchor(test2, { checkpoint: forgedCheckpoint(test2) });
      log.signTreeHead();
      const report = await audit(log, checks);
      expect(found(report)).toEqual([[forged.position, 'log-anchor', 'test']]);
      expect(report.discrepancies[0]!.message).toMatch(
        /the anchor of log test at size 2 holds a checkpoint its log did not sign/,
      );
      // Also when auditing the anchored log alone, or the shared log alone.
      for (const only of ['test', 'shared'])
        expect(found(await audit(log, checks, only))).toEqual([[forged.position, 'log-anchor', 'test']]);
      // Not when auditing another log.
      expect(found(await audit(log, checks, DEDICATED))).toEqual([]);
    },
  );

  it('given an anchor of a fork (a root the log never signed at that size, under a forged key), when audited, then it is reported as such', async () => {
    const { log, test2 } = await logs();
    const root = new Uint8Array(32).fill(7);
    const fork = log.anchor(test2, { checkpoint: forgedCheckpoint(test2, root), root_hash: toHex(root) });
    log.signTreeHead();
    const report = await audit(log);
    expect(found(report)).toEqual([
      [fork.position, 'log-anchor', 'test'],
      [fork.position, 'log-anchor', 'test'],
    ]);
    const messages = report.discrepancies.map((d) => d.message).join('\n');
    expect(messages).toMatch(/did not sign/);
    expect(messages).toMatch(/two trees of one size, a fork of log test/);
  });

  it('given an anchor whose record says another size than its checkpoint, when audited, then it is reported', async () => {
    const { log, test2 } = await logs();
    const lying = log.anchor(test2, { tree_size: 1 });
    log.signTreeHead();
    const report = await audit(log);
    expect(found(report).map(([, check]) => check)).toContain('log-anchor');
    expect(report.discrepancies.every((d) => d.position === lying.position)).toBe(true);
    expect(report.discrepancies.map((d) => d.message).join('\n')).toMatch(/tree size 2 \(record: 1\)/);
  });

  it.each(SCOPES)(
    "given a log's anchors going back in size, when audited (checks %s), then the smaller one is reported",
    async (checks) => {
      const { log, test1, test2 } = await logs();
      log.anchor(test2);
      const back = log.anchor(test1);
      log.signTreeHead();
      expect(found(await audit(log, checks))).toEqual([[back.position, 'log-anchor-order', 'test']]);
    },
  );

  it('given an anchor of a head not signed before it, when audited, then it is reported', async () => {
    const log = new SyntheticLog();
    log.createLog('test');
    await log.admitEvidence('tnt_t', 'model-t', undefined, { log: 'test' });
    const head = log.signTreeHead('test');
    // The anchor comes first in the stream: move the head after it.
    log.events.splice(log.events.indexOf(head), 1);
    const early = log.anchor(head);
    log.events.push({ ...head, position: log.events.length + 1 });
    log.signTreeHead();
    const report = await audit(log);
    expect(found(report)).toContainEqual([early.position, 'log-anchor', 'test']);
    expect(report.discrepancies.map((d) => d.message).join('\n')).toMatch(
      /signed no tree head of that size before it/,
    );
  });
});
