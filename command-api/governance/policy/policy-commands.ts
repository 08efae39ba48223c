/**
 * Changing a tenant's gate policy (PUT /governance/policy). The change is an event of the tenant's
 * stream, so it applies to exactly the submissions decided after it; admitted evidence keeps the
 * verdict it was given and is never evaluated again.
 */
import { type PolicyInForce, policyHash, policyInForce } from '../../../domain/governance/policy';
import type { TenantPolicy, TenantPolicyChanged } from '../../../event-schemas';
import { UnknownTenantError } from '../tenants/account-commands';
import { type RetiredKeyRefusal, refuseRetiredKey } from '../tenants/current-key';
import { type TenantDecision, type TenantState, tenantEvent } from '../tenants/tenant-state';
import type { CommandContext } from '../webhooks/webhook-commands';

export type PolicyChangeOutcome = ({ kind: 'changed' | 'unchanged' } & PolicyInForce) | RetiredKeyRefusal;

/**
 * Replaces the tenant's policy with `policy` (valid against its schema), as a new version. The policy
 * in force again (the same canonical JSON) appends nothing and answers the current version.
 */
export function decideChangePolicy(
  state: TenantState,
  policy: TenantPolicy,
  context: CommandContext,
): TenantDecision<PolicyChangeOutcome> {
  if (!state.exists) throw new UnknownTenantError(`no tenant ${state.tenant_id || '(unknown)'}`);
  const refusal = refuseRetiredKey(state, context.keyId);
  if (refusal) return { events: [], result: refusal };
  const current = state.policy_in_force;
  const hash = policyHash(policy);
  if (hash === current.policy_hash) return { events: [], result: { kind: 'unchanged', ...current } };
  const data: TenantPolicyChanged = {
    tenant_id: state.tenant_id,
    policy,
    version: current.version + 1,
    previous_policy_hash: current.policy_hash,
    policy_hash: hash,
    changed_at: context.now.toISOString(),
    key_id: context.keyId,
  };
  return {
    events: [tenantEvent(state, context, 'TenantPolicyChanged', data)],
    result: { kind: 'changed', ...policyInForce(data) },
  };
}
