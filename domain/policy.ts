/** The tenant policy every tenant starts with; each threshold is the tenant's to change. */
import type { TenantPolicy } from '../event-schemas';
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

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
