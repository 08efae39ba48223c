import type { NextFunction, Request, Response } from 'express';
import { TIER_LIMITS } from '../../domain/governance/tier-limits';
import type { TenantView } from '../../projectors/governance/tenants';
import type { Services } from '../wiring/services';
import { callerOf } from './auth';
import { sendError } from './errors';

/** After `authenticate`: 429 RATE_LIMITED with Retry-After once the tenant's tier allowance is spent. */
export function limitRequestRate(services: Services) {
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
  services: Pick<Services, 'requestLimiter'>,
  tenant: Pick<TenantView, 'tenant_id' | 'tier'>,
): number | null {
  return services.requestLimiter.take(tenant.tenant_id, TIER_LIMITS[tenant.tier].requestsPerMinute);
}

/** 429 RATE_LIMITED with Retry-After: the seconds to `wait`. */
export function sendRateLimited(res: Response, wait: number, message: string): void {
  res.setHeader('Retry-After', String(wait));
  sendError(res, 429, 'RATE_LIMITED', message);
}
