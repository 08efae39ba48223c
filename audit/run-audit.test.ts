import { computeVariance } from '../domain/governance/closed-loop';
import { leafHashOfRecord } from '../domain/log';
import type { EvidenceAdmitted } from '../event-schemas';
import { toHex } from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { type AuditReport, AuditSourceError, eventsAuditSource, runAudit, TrustError } from '.';
import { SyntheticLog } from './synthetic-log';

/** [position, check] of every discrepancy. */
const found = (report: AuditReport) => report.discrepancies.map((d) => [d.position, d.check]);

/** Re-derives the stored leaf hash of an admission whose record was edited, as a careful forger would. */
function reseal(event: RecordedEvent): void {
  const data = event.data as Record<string, unknown> & { leaf_hash: string };
  const record = data.envelope ?? data.trace ?? data.record;
  data.leaf_hash = toHex(leafHashOfRecord(record));
}

function audit(log: SyntheticLog, events: Iterable<RecordedEvent> = log.events, chunkEvents = 256) {
  return runAudit(eventsAuditSource(events, { chunkEvents }), { trust: log.trust, workers: 0 });
}

describe('an audit of a hand-built stream', () => {
  it('given a clean stream with a closed loop, when audited, then it is clean and counts what it saw', async () => {
    const log = new SyntheticLog();
    const auth = await log.admitEvidence('tnt_a');
    await log.admitEvidence('tnt_b');
    log.signTreeHead();
    log.execute(auth, 'FAILED');
    const last = log.signTreeHead();
    const report = await audit(log);
    expect(report).toMatchObject({
      events: 6,
      leaves: 4,
      tree_heads: 2,
      tree_size: 4,
      root_hash: (last.data as { root_hash: string }).root_hash,
      discrepancies: [],
      notices: [],
    });
    expect(report.leaves_per_second).toBeGreaterThan(0);
  });

  it('given admissions an earlier release certified (quorum = n, threshold) beside current ones, when audited, then it is clean', async () => {
    const log = new SyntheticLog();
    const earlier = await log.admitEvidence('tnt_a', 'model-1', undefined, { certificates: 'earlier' });
    const current = await log.admitEvidence('tnt_a', 'model-1');
    log.execute(earlier, 'FAILED');
    log.signTreeHead();
    expect(earlier.data.certificate).toMatchObject({ quorum: 4, threshold: 3 });
    expect(current.data.certificate).toMatchObject({ validators: 4, quorum: 3 });
    expect(await audit(log)).toMatchObject({ leaves: 4, discrepancies: [], notices: [] });
  });

  it("given an execution of another tenant's authorization, when audited, then the execution and its variance are reported", async () => {
    const log = new SyntheticLog();
    const mine = await log.admitEvidence('tnt_a');
    const theirs = await log.admitEvidence('tnt_b');
    const [execution, variance] = log.execute(mine);
    execution.data.trace.parent_auth_leaf_hash = theirs.data.leaf_hash;
    reseal(execution);
    variance.data.record.parent_exec_leaf_hash = execution.data.leaf_hash;
    reseal(variance);
    log.signTreeHead();
    const report = await audit(log);
    expect(found(report)).toEqual([
      [execution.position, 'execution-parent'],
      [variance.position, 'variance-parent'],
    ]);
    expect(report.discrepancies[0]!.message).toMatch(/belongs to tenant tnt_b, not tnt_a/);
    expect(report.discrepancies[1]!.message).toMatch(/but its execution .* executes/);
  });

  it('given an execution naming no authorization, or one admitted later, when audited, then it is reported', async () => {
    const log = new SyntheticLog();
    const early = await log.admitEvidence('tnt_a');
    const [execution] = log.execute(early);
    const late = await log.admitEvidence('tnt_a', 'model-2');
    execution.data.trace.parent_auth_leaf_hash = late.data.leaf_hash;
    reseal(execution);
    log.signTreeHead();
    const report = await audit(log);
    expect(report.discrepancies.filter((d) => d.check === 'execution-parent')).toEqual([
      expect.objectContaining({
        position: execution.position,
        message: expect.stringMatching(/which no readable EvidenceAdmitted before it carries/),
      }),
    ]);
  });

  it('given one authorization executed twice, when audited, then the second execution is reported', async () => {
    const log = new SyntheticLog();
    const auth = await log.admitEvidence('tnt_a');
    log.execute(auth);
    const [again] = log.execute(auth, 'DEVIATED');
    log.signTreeHead();
    const report = await audit(log);
    expect(found(report)).toEqual([[again.position, 'execution-parent']]);
    expect(report.discrepancies[0]!.message).toMatch(/already executed at position 2/);
  });

  it("given a variance computed from states that are not its parents' (its arithmetic consistent), when audited, then its states are reported", async () => {
    const log = new SyntheticLog();
    const auth = await log.admitEvidence('tnt_a', 'model-1', { H: 0.6, C: 0.6, E: 0.3 });
    const [, variance] = log.execute(auth);
    const { record } = variance.data;
    variance.data.record = computeVariance({ ...record, auth_state: { H: 0.9, C: 0.9, E: 0.1 } });
    reseal(variance);
    log.signTreeHead();
    const report = await audit(log);
    expect(found(report)).toEqual([[variance.position, 'variance-state']]);
    expect(report.discrepancies[0]!.message).toMatch(
      /auth_state \{H: 0\.9, C: 0\.9, E: 0\.1\} is not the observables its authorization was admitted with \{H: 0\.6, C: 0\.6, E: 0\.3\}/,
    );
  });

  it('given events whose positions go back, when audited from an export-like source, then the ordering is reported', async () => {
    const log = new SyntheticLog();
    await log.admitEvidence('tnt_a');
    log.signTreeHead();
    const [admission, head] = log.events as [RecordedEvent<EvidenceAdmitted>, RecordedEvent];
    const report = await audit(log, [head, admission]);
    expect(found(report)).toEqual([
      [1, 'position-order'],
      [2, 'leaf-position'],
      [2, 'root-unverifiable'],
    ]);
  });

  it('given a source that fails part way, when audited, then what was read is audited and the failure is a discrepancy', async () => {
    const log = new SyntheticLog();
    await log.admitEvidence('tnt_a');
    log.signTreeHead();
    async function* failing() {
      yield* log.events;
      throw new Error('line 4: checksum mismatch');
    }
    const report = await audit(log, failing() as unknown as Iterable<RecordedEvent>, 1);
    expect(report.events).toBe(2);
    expect(report.discrepancies).toEqual([
      {
        position: null,
        event_id: null,
        event_type: null,
        check: 'source-integrity',
        message:
          'events in memory failed after 2 events: line 4: checksum mismatch; the rest of it was not audited',
      },
    ]);
  });

  it('given a source that fails before its first event, when audited, then the audit fails as unreadable', async () => {
    const log = new SyntheticLog();
    // biome-ignore lint/correctness/useYield: a source that fails before yielding anything
    async function* failing(): AsyncGenerator<RecordedEvent> {
      throw new Error('no such file');
    }
    await expect(runAudit(eventsAuditSource(failing()), { trust: log.trust, workers: 0 })).rejects.toThrow(
      AuditSourceError,
    );
  });

  it('given a log key that is not a verifier key, when an audit starts, then it fails at once naming the key', async () => {
    const log = new SyntheticLog();
    await expect(
      runAudit(eventsAuditSource([]), {
        trust: { ...log.trust, logVerifierKeys: ['not a key'] },
        workers: 0,
      }),
    ).rejects.toThrow(
      new TrustError("log verifier key 'not a key' is not usable: key must have the form name+keyid+base64"),
    );
  });

  it('given a tampered stream cut in many chunks, when audited on worker threads, then the report is the one of the inline audit, and the hooks see every leaf in order', async () => {
    const log = new SyntheticLog();
    const auths: RecordedEvent<EvidenceAdmitted>[] = [];
    for (let i = 0; i < 6; i++) auths.push(await log.admitEvidence(`tnt_${i % 2}`, `model-${i}`));
    log.signTreeHead();
    log.execute(auths[0]!);
    log.signTreeHead();
    for (let i = 0; i < 3; i++) await log.admitEvidence('tnt_0', `model-${i}`);
    log.signTreeHead();
    auths[3]!.data.artifact_hash = '0'.repeat(64);
    (log.events[9]!.data as { root_hash: string }).root_hash = 'f'.repeat(64);

    const inline = await audit(log, log.events, 2);
    const leaves: number[] = [];
    const progress: number[] = [];
    const threaded = await runAudit(eventsAuditSource(log.events, { chunkEvents: 2 }), {
      trust: log.trust,
      workers: 2,
      onLeaf: (index) => void leaves.push(index),
      onProgress: (p) => void progress.push(p.events),
    });
    expect(found(inline)).toEqual([
      [4, 'artifact-hash-mismatch'],
      [10, 'sth-checkpoint-mismatch'],
      [10, 'root-mismatch'],
    ]);
    expect({ ...threaded, seconds: 0, leaves_per_second: 0 }).toEqual({
      ...inline,
      seconds: 0,
      leaves_per_second: 0,
    });
    expect(leaves).toEqual(Array.from({ length: 11 }, (_, i) => i));
    expect(progress.at(-1)).toBe(log.events.length);
  });
});
