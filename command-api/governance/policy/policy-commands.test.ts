/**
 * Changing the tenant policy: given/when/then over the decider and the tenant aggregate, and how a
 * change reaches the evidence decided after it (and only that).
 */
import { DEFAULT_POLICY, DEFAULT_POLICY_IN_FORCE, policyHash } from '../../../domain/governance/policy';
import { policyWith, validBody } from '../../../domain/governance/test-fixtures';
import type { TenantPolicy } from '../../../event-schemas';
import { refusedWith } from '../../engine/decider-specification';
import { decideWithCertificate } from '../evidence/submit-evidence';
import { admissionContext, foldTenant, schemaProblems } from '../property-support';
import {
  KEY,
  keyRotated,
  NOW,
  policyChanged,
  registered,
  TENANT_ID,
  tenantSpec,
} from '../tenant-spec-fixtures';
import { decideRotateKey, UnknownTenantError } from '../tenants/account-commands';
import { issueApiKey } from '../tenants/api-keys';
import { RETIRED_KEY_MESSAGE } from '../tenants/current-key';
import { decideRegisterTenant } from '../tenants/register-tenant';
import { initialTenantState } from '../tenants/tenant-state';
import { decideChangePolicy } from './policy-commands';

const registeredAt = new Date('2026-03-01T10:00:00Z');
const later = new Date('2026-03-01T11:00:00Z');
const tenantId = `ten_${'1'.repeat(24)}`;
const strict = policyWith({ g3_metric_maximums: { toxicity: 0.005 }, g1_min_confidence_lower: 0.9 });

function registeredTenant() {
  const key = issueApiKey('live');
  const state = foldTenant([
    decideRegisterTenant(
      { email: 'owner@example.com' },
      registeredAt,
      { tenantId, nodeId: `node_${'2'.repeat(24)}` },
      key,
    ).event,
  ]);
  return { state, context: { now: later, correlationId: 'c', keyId: key.keyId } };
}

describe('decideChangePolicy', () => {
  it('given a new tenant, then its policy in force is the default, version 1, never updated', () => {
    expect(registeredTenant().state.policy_in_force).toEqual({
      policy: DEFAULT_POLICY,
      version: 1,
      policy_hash: policyHash(DEFAULT_POLICY),
      updated_at: null,
    });
  });

  it('given the default policy, when the current key sets a stricter one, then one valid TenantPolicyChanged version 2 naming both hashes, the time and the key', () => {
    const { state, context } = registeredTenant();
    const { events, result } = decideChangePolicy(state, strict, context);
    expect(events.map((event) => event.type)).toEqual(['TenantPolicyChanged']);
    expect(schemaProblems(events)).toEqual([]);
    expect(events[0]!.data).toEqual({
      tenant_id: tenantId,
      policy: strict,
      version: 2,
      previous_policy_hash: DEFAULT_POLICY_IN_FORCE.policy_hash,
      policy_hash: policyHash(strict),
      changed_at: later.toISOString(),
      key_id: context.keyId,
    });
    expect(result).toEqual({
      kind: 'changed',
      policy: strict,
      version: 2,
      policy_hash: policyHash(strict),
      updated_at: later.toISOString(),
    });
  });

  it('then the aggregate holds it, and the next change is version 3 chained to it', () => {
    const { state: registered, context } = registeredTenant();
    let state = registered;
    state = foldTenant(decideChangePolicy(state, strict, context).events, state);
    expect(state.policy_in_force).toMatchObject({
      policy: strict,
      version: 2,
      policy_hash: policyHash(strict),
    });
    const next = decideChangePolicy(state, DEFAULT_POLICY, context);
    expect(next.events[0]!.data).toMatchObject({ version: 3, previous_policy_hash: policyHash(strict) });
  });

  it('given the policy in force, when it is sent again (members in another order), then nothing is decided and the current version is answered', () => {
    const { state: registered, context } = registeredTenant();
    let state = registered;
    state = foldTenant(decideChangePolicy(state, strict, context).events, state);
    const reordered = Object.fromEntries(Object.entries(strict).reverse()) as typeof strict;
    const again = decideChangePolicy(state, reordered, { ...context, now: new Date('2026-03-02T00:00:00Z') });
    expect(again).toEqual({
      events: [],
      result: {
        kind: 'unchanged',
        policy: strict,
        version: 2,
        policy_hash: policyHash(strict),
        updated_at: later.toISOString(),
      },
    });
  });

  it('given a key replaced by a rotation, when it changes the policy, then 403 FORBIDDEN and nothing is decided', () => {
    const { state: registered, context } = registeredTenant();
    let state = registered;
    state = foldTenant(decideRotateKey(state, context).events, state);
    expect(decideChangePolicy(state, strict, context)).toEqual({
      events: [],
      result: { kind: 'refused', status: 403, error: 'FORBIDDEN', message: RETIRED_KEY_MESSAGE },
    });
  });

  it('given no tenant, then it fails with UnknownTenantError', () => {
    expect(() =>
      decideChangePolicy(initialTenantState(), strict, { now: later, correlationId: 'c', keyId: 'k' }),
    ).toThrow(UnknownTenantError);
  });
});

describe('a policy change and the evidence decided around it', () => {
  it('given evidence admitted under the default, when the policy is tightened, then the same evidence decided again fails G3, naming the metric and the new maximum', async () => {
    const { state: registered, context } = registeredTenant();
    let state = registered;
    const body = validBody();
    body.gate_results.G3.protected_metrics = { toxicity: 0.01, bias: 1e9 };
    const before = await decideWithCertificate(state, body, admissionContext(later));
    expect(before.result).toMatchObject({ kind: 'admitted' });
    state = foldTenant(before.events, state);

    state = foldTenant(
      decideChangePolicy(state, policyWith({ g3_metric_maximums: { bias: 0.1 } }), context).events,
      state,
    );
    const after = await decideWithCertificate(state, body, admissionContext(later));
    expect(after.result).toMatchObject({ kind: 'gate-failed', event: { gates_failed: ['G3'] } });
    expect((after.result as { event: { details: Record<string, string> } }).event.details.G3).toMatch(
      /bias 1000000000 exceeds its declared maximum 0.1/,
    );
  });
});

describe('decideChangePolicy, given/when/then', () => {
  const given = tenantSpec((state, command: { policy: TenantPolicy; keyId: string }) =>
    decideChangePolicy(state, command.policy, { now: NOW, correlationId: 'c', keyId: command.keyId }),
  );
  const defaultHash = DEFAULT_POLICY_IN_FORCE.policy_hash;
  const strictChanged = policyChanged(strict, 2, defaultHash, policyHash(strict));

  it('given a registered tenant, when its current key sets a stricter policy, then TenantPolicyChanged version 2 chained to the default', () => {
    given([registered()])
      .when({ policy: strict, keyId: KEY.keyId })
      .then([
        {
          type: 'TenantPolicyChanged',
          data: {
            tenant_id: TENANT_ID,
            policy: strict,
            version: 2,
            previous_policy_hash: defaultHash,
            policy_hash: policyHash(strict),
            changed_at: NOW.toISOString(),
            key_id: KEY.keyId,
          },
        },
      ]);
  });

  it('given version 2 in force, when the default is set again, then version 3 chained to version 2', () => {
    given([registered(), strictChanged])
      .when({ policy: DEFAULT_POLICY, keyId: KEY.keyId })
      .then([
        {
          type: 'TenantPolicyChanged',
          data: { version: 3, previous_policy_hash: policyHash(strict), policy_hash: defaultHash },
        } as never,
      ]);
  });

  it('given a policy in force, when the same policy is sent, then nothing happens', () => {
    given([registered(), strictChanged]).when({ policy: strict, keyId: KEY.keyId }).thenNothingHappened();
  });

  it('given a key rotation, when the replaced key changes the policy, then 403 FORBIDDEN', () => {
    given([registered(), keyRotated()])
      .when({ policy: strict, keyId: KEY.keyId })
      .thenThrows(refusedWith('FORBIDDEN', 403));
  });

  it('given no tenant, when a policy is set, then UnknownTenantError', () => {
    given([])
      .when({ policy: strict, keyId: KEY.keyId })
      .thenThrows((error) => error instanceof UnknownTenantError);
  });
});
