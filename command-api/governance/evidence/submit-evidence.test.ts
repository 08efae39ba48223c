/**
 * Given/when/then for deciding evidence (./submit-evidence.ts): without a certificate the decision
 * refuses, fails the gates or plans (no event: the handler certifies the plan); with one, it admits
 * while the plan's chain head and policy still hold, and otherwise plans anew.
 */
import { INITIAL_OBSERVABLES } from '../../../domain/governance/observables';
import { DEFAULT_POLICY_IN_FORCE, policyHash } from '../../../domain/governance/policy';
import { failingBody, hex, policyWith, validBody } from '../../../domain/governance/test-fixtures';
import type { SubmitEvidenceBody } from '../../../event-schemas';
import { refusedWith } from '../../engine/decider-specification';
import { admissionContext } from '../property-support';
import {
  NOW,
  policyChanged,
  REGISTERED_AT,
  registered,
  TENANT_ID,
  tenantSpec,
  tierChanged,
} from '../tenant-spec-fixtures';
import { initialTenantState, type TenantEvent, tenantAggregate } from '../tenants/tenant-state';
import {
  type AdmissionPlan,
  type CertifiedAdmission,
  certifyAdmission,
  decideSubmitEvidence,
} from './submit-evidence';

interface SubmitEvidence {
  body: SubmitEvidenceBody;
  certified: CertifiedAdmission | null;
  now?: Date;
}

const given = tenantSpec((state, command: SubmitEvidence) =>
  decideSubmitEvidence(state, command.body, command.certified, admissionContext(command.now ?? NOW)),
);

const body = validBody();
let certified: CertifiedAdmission;
let admitted: Extract<TenantEvent, { type: 'EvidenceAdmitted' }>;
let gateFailed: Extract<TenantEvent, { type: 'GateFailed' }>;

beforeAll(async () => {
  const state = tenantAggregate.evolve(initialTenantState(), registered());
  const plan = decideSubmitEvidence(state, body, null, admissionContext(NOW)).result as AdmissionPlan;
  certified = await certifyAdmission(plan, admissionContext(NOW));
  const [event] = decideSubmitEvidence(state, body, certified, admissionContext(NOW)).events;
  admitted = event as typeof admitted;
  const [failed] = decideSubmitEvidence(state, failingBody(), null, admissionContext(NOW)).events;
  gateFailed = failed as typeof gateFailed;
});

/** Admissions like `admitted`, of other bundles, at `at`. */
const moreAdmissions = (count: number, at = REGISTERED_AT): TenantEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    ...admitted,
    data: { ...admitted.data, artifact_hash: hex(String(i)), admitted_at: at },
  }));

describe('decideSubmitEvidence', () => {
  it('given a registered tenant, when evidence passing the gates comes without a certificate, then nothing is decided: the plan names the bundle for the validators', () => {
    given([registered()]).when({ body, certified: null }).thenNothingHappened();
    const state = tenantAggregate.evolve(initialTenantState(), registered());
    expect(decideSubmitEvidence(state, body, null, admissionContext(NOW)).result).toMatchObject({
      kind: 'needs-certificate',
      request: { expected_parent_hash: null, policy: DEFAULT_POLICY_IN_FORCE.policy, now: NOW.toISOString() },
      fields: { tenant_id: TENANT_ID, subject_id: body.subject_id, generated_at: NOW.toISOString() },
      policy_hash: DEFAULT_POLICY_IN_FORCE.policy_hash,
    });
  });

  it('given the same state, when the evidence comes with the certificate of its plan, then EvidenceAdmitted with the certified bundle and envelope', () => {
    given([registered()])
      .when({ body, certified })
      .then([
        {
          type: 'EvidenceAdmitted',
          data: {
            tenant_id: TENANT_ID,
            subject_id: body.subject_id,
            artifact_hash: certified.plan.request.artifact_hash,
            leaf_hash: certified.sealed.leafHash,
            bundle: { parent_bundle_hash: null, subject_id: body.subject_id },
            envelope: { artifact_hash: certified.plan.request.artifact_hash },
            admitted_at: NOW.toISOString(),
          },
        } as never,
      ]);
  });

  it('given an admission for the subject after the plan, when the certificate comes, then nothing is decided: the chain moved, so the plan is made anew', () => {
    given([registered(), admitted]).when({ body, certified }).thenNothingHappened();
  });

  it('given a policy change after the plan, when the certificate comes, then nothing is decided: the gates are judged again under the new policy', () => {
    const lax = policyWith({ g1_min_confidence_lower: 0.5 });
    given([registered(), policyChanged(lax, 2, DEFAULT_POLICY_IN_FORCE.policy_hash, policyHash(lax))])
      .when({ body, certified })
      .thenNothingHappened();
  });

  it('given a registered tenant, when evidence fails a gate, then GateFailed blocking the action, with no certificate asked for', () => {
    given([registered()])
      .when({ body: failingBody(), certified: null })
      .then([
        {
          type: 'GateFailed',
          data: {
            tenant_id: TENANT_ID,
            subject_id: failingBody().subject_id,
            gates_failed: gateFailed.data.gates_failed,
            action: 'ACTION_BLOCKED',
            failed_at: NOW.toISOString(),
          },
        } as never,
      ]);
    expect(gateFailed.data.gates_failed.length).toBeGreaterThan(0);
  });

  it('given a tenant with two leaves of another subject, when evidence for a new subject is admitted, then the event carries the chain depth 3 and the initial observables it moved from', async () => {
    const otherSubject = moreAdmissions(2).map((event) => ({
      ...event,
      data: { ...event.data, subject_id: 'other-model' },
    })) as TenantEvent[];
    const state = [registered(), ...otherSubject].reduce(tenantAggregate.evolve, initialTenantState());
    const plan = decideSubmitEvidence(state, body, null, admissionContext(NOW)).result as AdmissionPlan;
    const [event] = decideSubmitEvidence(
      state,
      body,
      await certifyAdmission(plan, admissionContext(NOW)),
      admissionContext(NOW),
    ).events;
    expect(event?.data).toMatchObject({ chain_depth: 3, previous_observables: INITIAL_OBSERVABLES });
  });

  it('given an admitted leaf of the subject, when its next evidence fails a gate, then GateFailed carries the observables the admission left', () => {
    given([registered(), admitted])
      .when({ body: failingBody(), certified: null })
      .then([
        {
          type: 'GateFailed',
          data: { previous_observables: admitted.data.observables },
        } as never,
      ]);
    expect(admitted.data.observables).not.toEqual(INITIAL_OBSERVABLES);
  });

  it('given a Trial tenant with its five leaves, when evidence comes, then 409 TRIAL_EXHAUSTED, certificate or not', () => {
    given([registered(), ...moreAdmissions(5)])
      .when({ body, certified: null })
      .thenThrows(refusedWith('TRIAL_EXHAUSTED', 409));
    given([registered(), ...moreAdmissions(5)])
      .when({ body, certified })
      .thenThrows(refusedWith('TRIAL_EXHAUSTED', 409));
  });

  it('given a Trial tenant 72 hours after registering, when evidence comes, then 409 TRIAL_EXHAUSTED', () => {
    given([registered()])
      .when({ body, certified: null, now: new Date(Date.parse(REGISTERED_AT) + 72 * 3_600_000) })
      .thenThrows(refusedWith('TRIAL_EXHAUSTED', 409));
  });

  it('given an L2 tenant allowed one leaf a day that used it today, when evidence comes, then 429 RATE_LIMITED', () => {
    given([registered(), tierChanged('L2', 1), ...moreAdmissions(1)])
      .when({ body, certified: null })
      .thenThrows(refusedWith('RATE_LIMITED', 429));
  });

  it('given a subject rejected for a policy violation, when evidence for it comes, then 409 SUBJECT_LOCKED', () => {
    const violation: TenantEvent = { ...gateFailed, data: { ...gateFailed.data, policy_violation: true } };
    given([registered(), violation])
      .when({ body: { ...body, subject_id: gateFailed.data.subject_id }, certified: null })
      .thenThrows(refusedWith('SUBJECT_LOCKED', 409));
  });
});
