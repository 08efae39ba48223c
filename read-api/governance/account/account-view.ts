import { leavesCountedToday } from '../../../domain/governance/daily-allowance';
import { HOUR_MS, requestsPerMinuteOf, TIER_LIMITS } from '../../../domain/governance/tier-limits';
import type { TenantView } from '../../../projectors/governance/tenants';

/** GET /account: the tenant, its tier, trial status, leaf count and allowances at `now`. */
export function accountView(tenant: TenantView, now: Date) {
  const limits = TIER_LIMITS[tenant.tier];
  const leavesToday = leavesCountedToday(tenant, now);
  let trial = null;
  if (limits.trial) {
    const expiresAt = Date.parse(tenant.registered_at) + limits.trial.windowHours * HOUR_MS;
    const open = now.getTime() < expiresAt;
    trial = {
      active: open && tenant.evidence_leaves < limits.trial.leafCap,
      leaf_cap: limits.trial.leafCap,
      leaves_used: tenant.evidence_leaves,
      leaves_remaining: open ? Math.max(0, limits.trial.leafCap - tenant.evidence_leaves) : 0,
      expires_at: new Date(expiresAt).toISOString(),
    };
  }
  return {
    tenant_id: tenant.tenant_id,
    node_id: tenant.node_id,
    email: tenant.email,
    organization: tenant.organization,
    mode: tenant.mode,
    tier: tenant.tier,
    registered_at: tenant.registered_at,
    leaf_count: tenant.leaf_count,
    evidence_leaves: tenant.evidence_leaves,
    subscription_id: tenant.subscription_id,
    trial: trial ?? {
      active: false,
      leaf_cap: null,
      leaves_used: tenant.evidence_leaves,
      leaves_remaining: null,
      expires_at: null,
    },
    limits: {
      requests_per_minute: requestsPerMinuteOf(tenant),
      leaves_per_day: tenant.daily_leaf_limit ?? limits.leavesPerDay,
      leaves_today: leavesToday,
    },
  };
}
