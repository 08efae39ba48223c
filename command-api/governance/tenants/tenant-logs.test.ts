/**
 * Given/when/then for which log a tenant's leaves go to: the tier change names an L4 tenant's dedicated
 * log, and every admission records the tenant's log of the moment (test-mode tenants: the test log;
 * leaving L4: the shared log again) and binds its envelope to that log.
 */
import { validBody } from '../../../domain/governance/test-fixtures';
import type { SubmitEvidenceBody } from '../../../event-schemas';
import {
  type AdmissionPlan,
  certifyAdmission,
  decideSubmitEvidence,
  decideWithCertificate,
} from '../evidence/submit-evidence';
import { decideSubmitExecution } from '../execution/submit-execution';
import { admissionContext } from '../property-support';
import { NOW, registered, TENANT_ID, tenantSpec, tierChanged } from '../tenant-spec-fixtures';
import { decideChangeTier, type TierChange } from './account-commands';
import { initialTenantState, type TenantEvent, type TenantState, tenantAggregate } from './tenant-state';

const DEDICATED = `dedicated-${'a'.repeat(24)}`;

const testModeRegistered = (): TenantEvent => {
  const event = registered() as Extract<TenantEvent, { type: 'TenantRegistered' }>;
  return { ...event, data: { ...event.data, mode: 'test' } };
};
const toL4 = (): TenantEvent => {
  const event = tierChanged('L4', null, 'L2') as Extract<TenantEvent, { type: 'TenantTierChanged' }>;
  return { ...event, data: { ...event.data, log: DEDICATED } };
};
const stateAfter = (events: TenantEvent[]): TenantState =>
  events.reduce(tenantAggregate.evolve, initialTenantState());

const change = (tier: TierChange['tier']): TierChange => ({
  tier,
  dailyLeafLimit: null,
  operator: 'ops@example.com',
});
const tierChange = (tier: TierChange['tier'], previous: TierChange['tier'], log?: string) => ({
  type: 'TenantTierChanged' as const,
  data: {
    tenant_id: TENANT_ID,
    tier,
    previous_tier: previous,
    daily_leaf_limit: null,
    changed_at: NOW.toISOString(),
    changed_by: 'ops@example.com',
    ...(log ? { log } : {}),
  },
});

describe('tier change and the tenant’s log', () => {
  const given = tenantSpec((state, command: TierChange) =>
    decideChangeTier(state, command, { now: NOW, correlationId: 'c' }),
  );

  it('given a live L2 tenant, when it is moved to L4, then TenantTierChanged names its dedicated log', () => {
    given([registered(), tierChanged('L2')])
      .when(change('L4'))
      .then([tierChange('L4', 'L2', DEDICATED)]);
  });

  it('given a test-mode tenant, when it is moved to L4, then the change names no log: its leaves stay in the test log', () => {
    given([testModeRegistered(), tierChanged('L2')])
      .when(change('L4'))
      .then([tierChange('L4', 'L2')]);
    expect(stateAfter([testModeRegistered(), tierChanged('L2'), tierChanged('L4', null, 'L2')]).log).toBe(
      'test',
    );
  });

  it('given a tenant made L4 before there were dedicated logs, when it is set to L4 again, then the change gives it its log', () => {
    given([registered(), tierChanged('L4')])
      .when(change('L4'))
      .then([tierChange('L4', 'L4', DEDICATED)]);
  });

  it('given an L4 tenant with its log, when it is set to L4 again, then nothing happens', () => {
    given([registered(), tierChanged('L2'), toL4()])
      .when(change('L4'))
      .thenNothingHappened();
  });

  it('given an L4 tenant with its log, when it leaves L4, then the change names no log; it admits to the shared log and keeps its dedicated log', () => {
    given([registered(), tierChanged('L2'), toL4()])
      .when(change('L2'))
      .then([tierChange('L2', 'L4')]);
    const after = stateAfter([registered(), tierChanged('L2'), toL4(), tierChanged('L2', null, 'L4')]);
    expect(after.log).toBe('shared');
    expect(after.dedicated_log).toBe(DEDICATED);
  });
});

describe('admissions record the tenant’s log', () => {
  const body: SubmitEvidenceBody = validBody();
  const admit = async (history: TenantEvent[]) =>
    (await decideWithCertificate(stateAfter(history), body, admissionContext(NOW))).events as Extract<
      TenantEvent,
      { type: 'EvidenceAdmitted' }
    >[];

  it('given a live tenant below L4, when evidence is admitted, then the event names no log (shared, as before) and the envelope is bound to the shared log', async () => {
    const [event] = await admit([registered(), tierChanged('L2')]);
    expect(event!.data).not.toHaveProperty('log');
    expect(event!.data.envelope.log_binding).toEqual({
      log_id: 'gov.example/gov/v1/log+01020304+AQID',
      log_url: 'https://gov.example/gov/v1/log',
    });
  });

  it('given a test-mode tenant, when evidence is admitted, then it goes to the test log, bound to it', async () => {
    const [event] = await admit([testModeRegistered()]);
    expect(event!.data.log).toBe('test');
    expect(event!.data.envelope.log_binding).toEqual({
      log_id: 'gov.example/gov/v1/log/test+01020304+AQID',
      log_url: 'https://gov.example/gov/v1/logs/test',
    });
  });

  it('given an L4 tenant, when evidence and then its execution are admitted, then all three leaves go to its dedicated log', async () => {
    const history = [registered(), tierChanged('L2'), toL4()];
    const [admitted] = await admit(history);
    expect(admitted!.data.log).toBe(DEDICATED);
    expect(admitted!.data.envelope.log_binding.log_url).toBe(`https://gov.example/gov/v1/logs/${DEDICATED}`);
    const { events, result } = decideSubmitExecution(
      stateAfter([...history, admitted!]),
      { parent_auth_leaf_hash: admitted!.data.leaf_hash, outcome: 'EXECUTED' },
      {
        tenant_id: TENANT_ID,
        subject_id: admitted!.data.subject_id,
        leaf_hash: admitted!.data.leaf_hash,
        auth_state: admitted!.data.observables,
      },
      { now: NOW, correlationId: 'c' },
    );
    expect(events.map((event) => (event.data as { log?: string }).log)).toEqual([DEDICATED, DEDICATED]);
    expect(result).toMatchObject({ kind: 'admitted', log: DEDICATED });
  });

  it('given a tenant that left L4, when evidence is admitted, then it goes to the shared log again', async () => {
    const [event] = await admit([registered(), tierChanged('L2'), toL4(), tierChanged('L2', null, 'L4')]);
    expect(event!.data).not.toHaveProperty('log');
  });

  it('given a plan made in the shared log, when the tenant moved to L4 before the certificate came, then nothing is decided: the envelope is bound anew to the dedicated log', async () => {
    const before = stateAfter([registered(), tierChanged('L2')]);
    const plan = decideSubmitEvidence(before, body, null, admissionContext(NOW)).result as AdmissionPlan;
    const certified = await certifyAdmission(plan, admissionContext(NOW));
    const after = tenantAggregate.evolve(before, toL4());
    const decision = decideSubmitEvidence(after, body, certified, admissionContext(NOW));
    expect(decision.events).toEqual([]);
    expect(decision.result).toMatchObject({ kind: 'needs-certificate', log: DEDICATED });
    expect((decision.result as AdmissionPlan).fields.log_binding.log_url).toBe(
      `https://gov.example/gov/v1/logs/${DEDICATED}`,
    );
  });
});
