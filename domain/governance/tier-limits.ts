/** What each tier may do (spec section 8). Pure data and rules; the HTTP layer turns them into answers. */
export type Tier = 'L1' | 'L2' | 'L2+' | 'L4';

export interface TierLimits {
  /** API requests per minute per tenant. */
  requestsPerMinute: number;
  /** Authorization leaves per UTC day; null = unlimited. */
  leavesPerDay: number | null;
  /** Trial only: leaves in total, and hours after registration during which leaves are accepted. */
  trial: { leafCap: number; windowHours: number } | null;
  /** Report export and every closed-loop endpoint. */
  closedLoop: boolean;
}

export const TIER_LIMITS: Readonly<Record<Tier, TierLimits>> = {
  L1: { requestsPerMinute: 60, leavesPerDay: 100, trial: { leafCap: 5, windowHours: 72 }, closedLoop: false },
  // L2's allowance "depends on credit balance": an operator sets it with `gov tenant tier --daily-leaf-limit`.
  L2: { requestsPerMinute: 300, leavesPerDay: 10_000, trial: null, closedLoop: true },
  'L2+': { requestsPerMinute: 1000, leavesPerDay: null, trial: null, closedLoop: true },
  // "Custom" in the spec: this default until per-deployment limits exist.
  L4: { requestsPerMinute: 10_000, leavesPerDay: null, trial: null, closedLoop: true },
};

export const HOUR_MS = 3_600_000;

/** A tenant's API requests per minute: its own allowance when the operator set one, else its tier's. */
export function requestsPerMinuteOf(tenant: { tier: Tier; requests_per_minute?: number | null }): number {
  return tenant.requests_per_minute ?? TIER_LIMITS[tenant.tier].requestsPerMinute;
}

// Daily leaf limits reset at 00:00 UTC; how leaves are counted per day: domain/governance/daily-allowance.ts.
export { utcDay } from './daily-allowance';
