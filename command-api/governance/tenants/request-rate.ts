import type { NextFunction, Request, Response } from 'express';
import { requestsPerMinuteOf } from '../../../domain/governance/tier-limits';
import type { TenantView } from '../../../projectors/governance/tenants';
import { sendRateLimited } from '../../../runtime/http/rate-limit';
import type { GovernanceServices } from '../services';
import { callerOf } from './auth';

/** After `authenticate`: 429 RATE_LIMITED with Retry-After once the tenant's allowance (its tier's, or its own) is spent. */
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
      `more than ${requestsPerMinuteOf(tenant)} requests in a minute for tier ${tenant.tier}${tenant.requests_per_minute ? ' (its own allowance)' : ''}; retry in ${wait} s`,
    );
  };
}

/** Counts one request of `tenant`; returns the seconds to wait when its allowance is spent, else null. */
export function spendRequest(
  services: Pick<GovernanceServices, 'requestLimiter'>,
  tenant: Pick<TenantView, 'tenant_id' | 'tier' | 'requests_per_minute'>,
): number | null {
  return services.requestLimiter.take(tenant.tenant_id, requestsPerMinuteOf(tenant));
}
