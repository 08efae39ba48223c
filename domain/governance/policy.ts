/** The tenant policy every tenant starts with; each threshold is the tenant's to change. */
import type { TenantPolicy, TenantPolicyChanged } from '../../event-schemas';
import { canonicalHash } from './hash';

/** Defaults from the governance standard (DOMAIN.md "Gates"). Frozen: a shared default must not drift. */
export const DEFAULT_POLICY: TenantPolicy = deepFreeze({
  g1_min_confidence_lower: 0.8,
  g1_min_bootstrap_iterations: 1000,
  g2_require_causal_attribution: true,
  g2_min_ablation_delta: 0,
  g3_metric_maximums: {},
  g4_allowed_classes: ['HOOKED', 'ATTESTED', 'INSTRUMENTED'],
  g5_allowed_operators: null,
  replay_window_seconds: 300,
});

/** hex SHA-256 of the policy's canonical JSON: names exactly which rules a decision was taken under. */
export function policyHash(policy: TenantPolicy): string {
  return canonicalHash(policy);
}

/** A tenant's policy in force with its version (GET /governance/policy answers this). */
export interface PolicyInForce {
  policy: TenantPolicy;
  /** 1 for the default; each change adds 1. */
  version: number;
  policy_hash: string;
  /** When it was last changed; null for the default. */
  updated_at: string | null;
}

/** Every tenant's policy until it changes it. */
export const DEFAULT_POLICY_IN_FORCE: PolicyInForce = deepFreeze({
  policy: DEFAULT_POLICY,
  version: 1,
  policy_hash: policyHash(DEFAULT_POLICY),
  updated_at: null,
});

/** The answer of GET and PUT /governance/policy. */
export function policyView({ policy, version, policy_hash, updated_at }: PolicyInForce): PolicyInForce {
  return { policy, version, policy_hash, updated_at };
}

/** The policy in force after a change. */
export function policyInForce(change: TenantPolicyChanged): PolicyInForce {
  return {
    policy: change.policy,
    version: change.version,
    policy_hash: change.policy_hash,
    updated_at: change.changed_at,
  };
}

/** Freezes a value and everything in it: a shared default must not drift. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
