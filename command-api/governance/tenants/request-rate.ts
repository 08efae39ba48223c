import type { NextFunction, Request, Response } from 'express';
import { TIER_LIMITS } from '../../../domain/governance/tier-limits';
import type { TenantView } from '../../../projectors/governance/tenants';
import { sendRateLimited } from '../../../runtime/http/rate-limit';
import type { GovernanceServices } from '../services';
import { callerOf } from './auth';

/** After `authenticate`: 429 RATE_LIMITED with Retry-After once the tenant's tier allowance is spent. */
export function limitRequestRate(services: GovernanceServices) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const { tenant } = callerOf(res);
    const wait = spendRequest(services, tenant);
    if (wait === null) {
      next();
      return;
    }
    sendRateLimited(
      res,
      wait,
      `more than ${TIER_LIMITS[tenant.tier].requestsPerMinute} requests in a minute for tier ${tenant.tier}; retry in ${wait} s`,
    );
  };
}

/** Counts one request of `tenant`; returns the seconds to wait when its tier's allowance is spent, else null. */
export function spendRequest(
  services: Pick<GovernanceServices, 'requestLimiter'>,
  tenant: Pick<TenantView, 'tenant_id' | 'tier'>,
): number | null {
  return services.requestLimiter.take(tenant.tenant_id, TIER_LIMITS[tenant.tier].requestsPerMinute);
}
