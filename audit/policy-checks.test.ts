/**
 * The audit and the tenant policy: each admission's gates are re-checked under the policy in force
 * when it was admitted (folded from the tenant's policy changes in position order), never under the
 * default or the current one; and the policy changes themselves must chain.
 */
import { DEFAULT_POLICY, policyHash } from '../domain/governance/policy';
import { policyWith, validBody } from '../domain/governance/test-fixtures';
import type { EvidenceAdmitted, SubmitEvidenceBody } from '../event-schemas';
import { type AuditReport, eventsAuditSource, runAudit } from '.';
import { SyntheticLog } from './synthetic-log';

const TENANT = `ten_${'a'.repeat(24)}`;
const OTHER = `ten_${'b'.repeat(24)}`;

/** [position, check] of every discrepancy. */
const found = (report: AuditReport) => report.discrepancies.map((d) => [d.position, d.check]);

function audit(log: SyntheticLog, workers = 0) {
  return runAudit(eventsAuditSource(log.events, { chunkEvents: 3 }), { trust: log.trust, workers });
}

/** The fixture's gate results with G1's lower bound and the protected metrics changed. */
function gates(lower: number, metrics: Record<string, number>): SubmitEvidenceBody['gate_results'] {
  const { gate_results } = validBody();
  gate_results.G1.confidence_interval_lower = lower;
  gate_results.G3.protected_metrics = metrics;
  return gate_results;
}

const relaxed = policyWith({ g1_min_confidence_lower: 0.5, g3_metric_maximums: { bias: 0.1 } });
const strict = policyWith({ g1_min_confidence_lower: 0.9 });

/**
 * A tenant admits E1 under the default (bias 1e9), relaxes G1 and bounds bias (P2), admits E2 (lower
 * 0.6, bias 0.05), then tightens G1 to 0.9 (P3). E1 passes only the default, E2 only P2, and neither
 * passes P3: an audit using the default or the current policy would reject one of them.
 */
async function history() {
  const log = new SyntheticLog();
  const e1 = await log.admitEvidence(TENANT, 'model-1', undefined, {
    gateResults: gates(0.85, { bias: 1e9 }),
  });
  const p2 = log.changePolicy(TENANT, relaxed);
  const e2 = await log.admitEvidence(TENANT, 'model-1', undefined, {
    gateResults: gates(0.6, { bias: 0.05 }),
  });
  const p3 = log.changePolicy(TENANT, strict);
  // Another tenant, never changing its policy, admits what only the default allows.
  const other = await log.admitEvidence(OTHER, 'model-9', undefined, {
    gateResults: gates(0.85, { bias: 1e9 }),
  });
  log.signTreeHead();
  return { log, e1, p2, e2, p3, other };
}

describe('the audit and the tenant policy', () => {
  it('given admissions under three successive policies, when audited (inline or on threads), then it is clean', async () => {
    const { log, e1, e2 } = await history();
    expect(e1.data.policy).toBeUndefined();
    expect(e2.data.policy).toEqual(relaxed);
    expect((await audit(log)).discrepancies).toEqual([]);
    expect((await audit(log, 2)).discrepancies).toEqual([]);
  });

  it('given an admission whose named policy was dropped (as if decided under the default), then its gates fail and the policy in force then is named', async () => {
    const { log, e2, p2 } = await history();
    delete (e2.data as Partial<EvidenceAdmitted>).policy;
    const report = await audit(log);
    expect(found(report)).toEqual([
      [e2.position, 'gates-failed'],
      [e2.position, 'policy-mismatch'],
    ]);
    expect(report.discrepancies[0]!.message).toMatch(
      /does not pass G1 under the default policy: confidence_interval_lower 0.60 is below the policy minimum 0.80/,
    );
    expect(report.discrepancies[1]).toMatchObject({
      event_id: e2.id,
      message: expect.stringContaining(
        `version 2 (${policyHash(relaxed)}, changed at position ${p2.position})`,
      ),
    });
  });

  it('given an admission naming a laxer policy than the one in force, then it is a policy mismatch even though its gates pass under it', async () => {
    const { log, e2 } = await history();
    e2.data.policy = policyWith({ g1_min_confidence_lower: 0 });
    expect(found(await audit(log))).toEqual([[e2.position, 'policy-mismatch']]);
  });

  it('given an admission whose named policy was edited to one its bundle does not pass, then its gates fail and the policy is not the one in force', async () => {
    const log = new SyntheticLog();
    log.changePolicy(TENANT, strict);
    const admitted = await log.admitEvidence(TENANT, 'model-1', undefined, { gateResults: gates(0.95, {}) });
    log.signTreeHead();
    admitted.data.policy = { ...strict, g1_min_confidence_lower: 0.99 };
    const report = await audit(log);
    expect(found(report)).toEqual([
      [admitted.position, 'gates-failed'],
      [admitted.position, 'policy-mismatch'],
    ]);
  });

  it('given a policy change whose policy_hash was altered, then it is reported, and the admissions are checked against the policy it carries', async () => {
    const { log, p2 } = await history();
    p2.data.policy_hash = 'f'.repeat(64);
    expect(found(await audit(log))).toEqual([[p2.position, 'policy-hash-mismatch']]);
  });

  it('given a policy change out of its chain (wrong version, or not replacing the policy in force), then it is reported', async () => {
    const { log, p3 } = await history();
    p3.data.version = 5;
    const report = await audit(log);
    expect(found(report)).toEqual([[p3.position, 'policy-chain']]);
    expect(report.discrepancies[0]!.message).toMatch(/version 5 .* version 3 replacing/);
    p3.data.version = 3;
    p3.data.previous_policy_hash = policyHash(DEFAULT_POLICY);
    expect(found(await audit(log))).toEqual([[p3.position, 'policy-chain']]);
  });

  it("given one tenant's policy change, then another tenant's admissions are checked against its own (default) policy", async () => {
    const { log, other } = await history();
    expect(other.data.policy).toBeUndefined();
    other.data.policy = policyWith({ g1_min_confidence_lower: 0.5 });
    expect(found(await audit(log))).toEqual([[other.position, 'policy-mismatch']]);
  });
});
