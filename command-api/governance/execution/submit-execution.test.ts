/**
 * Given/when/then for an execution against an authorization leaf: its trace and the variance become
 * two events, once per authorization, for tenants of a closed-loop tier.
 */
import { validBody } from '../../../domain/governance/test-fixtures';
import type { SubmitExecutionBody } from '../../../event-schemas';
import { refusedWith } from '../../engine/decider-specification';
import { decideWithCertificate } from '../evidence/submit-evidence';
import { admissionContext } from '../property-support';
import { NOW, registered, TENANT_ID, tenantSpec, tierChanged } from '../tenant-spec-fixtures';
import { initialTenantState, type TenantEvent, tenantAggregate } from '../tenants/tenant-state';
import { decideSubmitExecution, type ParentAuthorization } from './submit-execution';

interface SubmitExecution {
  body: SubmitExecutionBody;
  parent: ParentAuthorization | null;
}

const given = tenantSpec((state, command: SubmitExecution) =>
  decideSubmitExecution(state, command.body, command.parent, { now: NOW, correlationId: 'c' }),
);

let admitted: Extract<TenantEvent, { type: 'EvidenceAdmitted' }>;
let parent: ParentAuthorization;
let executed: TenantEvent;

beforeAll(async () => {
  const history = [registered(), tierChanged('L2')];
  const state = history.reduce(tenantAggregate.evolve, initialTenantState());
  const decision = await decideWithCertificate(state, validBody(), admissionContext(NOW));
  admitted = decision.events[0] as typeof admitted;
  const { data } = admitted;
  parent = {
    tenant_id: TENANT_ID,
    subject_id: data.subject_id,
    leaf_hash: data.leaf_hash,
    auth_state: data.observables,
  };
  executed = decideSubmitExecution(tenantAggregate.evolve(state, admitted), execution(), parent, {
    now: NOW,
    correlationId: 'c',
  }).events[0] as TenantEvent;
});

const execution = (changes: Partial<SubmitExecutionBody> = {}): SubmitExecutionBody => ({
  parent_auth_leaf_hash: parent.leaf_hash,
  outcome: 'EXECUTED',
  ...changes,
});
const closedLoopTenant = () => [registered(), tierChanged('L2'), admitted];

describe('decideSubmitExecution', () => {
  it('given an L2 tenant with an admitted authorization, when its execution comes, then ExecutionAdmitted and VarianceRecorded for that leaf, carrying the observables the admission left', () => {
    given(closedLoopTenant())
      .when({ body: execution(), parent })
      .then([
        {
          type: 'ExecutionAdmitted',
          data: {
            tenant_id: TENANT_ID,
            subject_id: parent.subject_id,
            trace: {
              parent_auth_leaf_hash: parent.leaf_hash,
              outcome: 'EXECUTED',
              recorded_at: NOW.toISOString(),
            },
          },
        },
        {
          type: 'VarianceRecorded',
          data: {
            tenant_id: TENANT_ID,
            subject_id: parent.subject_id,
            record: { parent_auth_leaf_hash: parent.leaf_hash, recorded_at: NOW.toISOString() },
            previous_observables: admitted.data.observables,
          },
        },
      ] as never);
  });

  it('given the authorization already executed, when another execution of it comes, then 409 CONFLICT', () => {
    given([...closedLoopTenant(), executed])
      .when({ body: execution(), parent })
      .thenThrows(refusedWith('CONFLICT', 409));
  });

  it('given a Trial tenant, when an execution comes, then 403 TIER_INSUFFICIENT', () => {
    given([registered()])
      .when({ body: execution(), parent })
      .thenThrows(refusedWith('TIER_INSUFFICIENT', 403));
  });

  it('given no such leaf, or another tenant’s, when an execution names it, then the same 422 PARENT_AUTH_NOT_FOUND', () => {
    given(closedLoopTenant())
      .when({ body: execution(), parent: null })
      .thenThrows(refusedWith('PARENT_AUTH_NOT_FOUND', 422));
    given(closedLoopTenant())
      .when({ body: execution(), parent: { ...parent, tenant_id: `ten_${'f'.repeat(24)}` } })
      .thenThrows(refusedWith('PARENT_AUTH_NOT_FOUND', 422));
  });

  it('given an authorization, when the execution names another subject, then 400 INVALID_REQUEST', () => {
    given(closedLoopTenant())
      .when({ body: execution({ subject_id: 'someone-else' }), parent })
      .thenThrows(refusedWith('INVALID_REQUEST', 400));
  });
});
