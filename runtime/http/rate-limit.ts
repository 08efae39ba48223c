import type { NextFunction, Request, Response } from 'express';
import { TIER_LIMITS } from '../../domain/governance/tier-limits';
import type { TenantView } from '../../projectors/governance/tenants';
import type { GovernanceServices } from '../wiring/governance-services';
import { callerOf } from './auth';
import { sendError } from './errors';

/**
 * Requests per window per key (per tenant and minute: spec section 8), in fixed windows. Counted in
 * this process's memory: a restart opens a fresh window, which at worst grants one extra window's worth.
 */
export class RequestRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly clock: () => Date,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts a request; returns the seconds to wait when it is over the limit, else null. */
  take(key: string, perWindow: number): number | null {
    const now = this.clock().getTime();
    const start = now - (now % this.windowMs);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size > 100_000) this.prune(start);
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= perWindow) return Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
    window.count++;
    return null;
  }

  private prune(current: number): void {
    for (const [key, window] of this.windows) if (window.start !== current) this.windows.delete(key);
  }
}

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

/** 429 RATE_LIMITED with Retry-After: the seconds to `wait`. */
export function sendRateLimited(res: Response, wait: number, message: string): void {
  res.setHeader('Retry-After', String(wait));
  sendError(res, 429, 'RATE_LIMITED', message);
}
