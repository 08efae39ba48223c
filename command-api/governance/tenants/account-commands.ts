/** Decisions about a tenant's account: key rotation (API) and tier changes (operator CLI). */

import { tenantLogOf } from '../../../domain/governance/tenant-log';
import { HOUR_MS, type Tier } from '../../../domain/governance/tier-limits';
import { dedicatedLogOf } from '../../../domain/log';
import type { ApiKeyRotated, TenantTierChanged } from '../../../event-schemas';
import { type IssuedKey, issueApiKey } from './api-keys';
import { type RetiredKeyRefusal, refuseRetiredKey } from './current-key';
import { type TenantDecision, type TenantState, tenantEvent } from './tenant-state';

/** How long the previous key keeps working after a rotation. */
export const ROTATION_GRACE_MS = 24 * HOUR_MS;

export interface RotatedKey {
  api_key: string;
  key_id: string;
  previous_key_id: string;
  previous_key_expires_at: string;
}

export class UnknownTenantError extends Error {
  override readonly name = 'UnknownTenantError';
}

/**
 * Issues a new key; the active one keeps working for exactly 24 hours. Only the active key (`keyId`,
 * the caller's) may rotate: a key in its grace period is refused.
 */
export function decideRotateKey(
  state: TenantState,
  context: { now: Date; correlationId: string; keyId: string },
  key: IssuedKey = issueApiKey(state.mode),
): TenantDecision<({ kind: 'rotated' } & RotatedKey) | RetiredKeyRefusal> {
  if (!state.exists || !state.active_key_id) throw new UnknownTenantError(`no tenant ${state.tenant_id}`);
  const refusal = refuseRetiredKey(state, context.keyId);
  if (refusal) return { events: [], result: refusal };
  const data: ApiKeyRotated = {
    tenant_id: state.tenant_id,
    key_id: key.keyId,
    key_hash: key.keyHash,
    mode: state.mode,
    previous_key_id: state.active_key_id,
    previous_key_expires_at: new Date(context.now.getTime() + ROTATION_GRACE_MS).toISOString(),
    rotated_at: context.now.toISOString(),
  };
  return {
    events: [tenantEvent(state, context, 'ApiKeyRotated', data)],
    result: {
      kind: 'rotated',
      api_key: key.apiKey,
      key_id: key.keyId,
      previous_key_id: data.previous_key_id,
      previous_key_expires_at: data.previous_key_expires_at,
    },
  };
}

export interface TierChange {
  tier: Tier;
  dailyLeafLimit: number | null;
  /** The tenant's own API requests per minute; null or absent: the tier's. */
  requestsPerMinute?: number | null;
  operator: string;
  reason?: string;
}

/**
 * The log a live L4 tenant admits to: its own (created, with its `LogCreated`, before the tier change is
 * appended: cli/tenant-tier.ts); null for any other tier, and for a test-mode tenant (its leaves stay in
 * the test log whatever its tier).
 */
export function dedicatedLogFor(state: Pick<TenantState, 'tenant_id' | 'mode'>, tier: Tier): string | null {
  return tier === 'L4' && state.mode === 'live' ? dedicatedLogOf(state.tenant_id) : null;
}

/**
 * An operator's tier change; changing to the same tier and allowances appends nothing (unless the tenant
 * is L4 from before there were dedicated logs: the change then gives it its log).
 */
export function decideChangeTier(
  state: TenantState,
  change: TierChange,
  context: { now: Date; correlationId: string },
): TenantDecision<{ changed: boolean; previous_tier: Tier; log: string }> {
  if (!state.exists) throw new UnknownTenantError(`no tenant ${state.tenant_id || '(unknown)'}`);
  const previous = state.tier;
  const dedicated = dedicatedLogFor(state, change.tier);
  const log = tenantLogOf({ mode: state.mode, log: dedicated ?? undefined });
  const requestsPerMinute = change.requestsPerMinute ?? null;
  if (
    previous === change.tier &&
    state.daily_leaf_limit === change.dailyLeafLimit &&
    state.requests_per_minute === requestsPerMinute &&
    state.log === log
  ) {
    return { events: [], result: { changed: false, previous_tier: previous, log } };
  }
  const data: TenantTierChanged = {
    tenant_id: state.tenant_id,
    tier: change.tier,
    previous_tier: previous,
    daily_leaf_limit: change.dailyLeafLimit,
    changed_at: context.now.toISOString(),
    changed_by: change.operator,
    ...(change.reason ? { reason: change.reason } : {}),
    ...(requestsPerMinute === null ? {} : { requests_per_minute: requestsPerMinute }),
    ...(dedicated ? { log: dedicated } : {}),
  };
  return {
    events: [tenantEvent(state, context, 'TenantTierChanged', data)],
    result: { changed: true, previous_tier: previous, log },
  };
}
