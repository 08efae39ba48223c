/**
 * The tenant deciders' given/when/then specs (test-only): the spec over the tenant aggregate, and the
 * events a tenant's history is made of, written out as stored.
 */
import type { TenantPolicy, WebhookRegistered } from '../../event-schemas';
import { deciderSpecification } from '../engine/decider-specification';
import type { IssuedKey } from './tenants/api-keys';
import {
  type TenantDecision,
  type TenantEvent,
  type TenantState,
  tenantAggregate,
} from './tenants/tenant-state';

export const TENANT_ID = `ten_${'a'.repeat(24)}`;
export const REGISTERED_AT = '2026-03-01T10:00:00.000Z';
/** When the commands of the specs are made: an hour after registration. */
export const NOW = new Date('2026-03-01T11:00:00.000Z');
export const KEY: IssuedKey = {
  apiKey: `gov_live_0123456789abcdef_${'A'.repeat(43)}`,
  keyId: '0123456789abcdef',
  keyHash: 'b'.repeat(64),
};
export const NEXT_KEY: IssuedKey = {
  apiKey: `gov_live_fedcba9876543210_${'B'.repeat(43)}`,
  keyId: 'fedcba9876543210',
  keyHash: 'c'.repeat(64),
};
export const WEBHOOK_ID = `wh_${'1'.repeat(24)}`;

export const tenantSpec = <C>(decide: (state: TenantState, command: C) => TenantDecision<unknown>) =>
  deciderSpecification(tenantAggregate, decide);

export function registered(): TenantEvent {
  return {
    type: 'TenantRegistered',
    data: {
      tenant_id: TENANT_ID,
      node_id: `node_${'b'.repeat(24)}`,
      email: 'owner@example.com',
      mode: 'live',
      tier: 'L1',
      key_id: KEY.keyId,
      key_hash: KEY.keyHash,
      registered_at: REGISTERED_AT,
    },
  };
}

export function keyRotated(from: IssuedKey = KEY, to: IssuedKey = NEXT_KEY): TenantEvent {
  return {
    type: 'ApiKeyRotated',
    data: {
      tenant_id: TENANT_ID,
      key_id: to.keyId,
      key_hash: to.keyHash,
      mode: 'live',
      previous_key_id: from.keyId,
      previous_key_expires_at: '2026-03-02T10:30:00.000Z',
      rotated_at: '2026-03-01T10:30:00.000Z',
    },
  };
}

export function tierChanged(
  tier: 'L1' | 'L2' | 'L2+' | 'L4',
  dailyLeafLimit: number | null = null,
  previous: 'L1' | 'L2' | 'L2+' | 'L4' = 'L1',
): TenantEvent {
  return {
    type: 'TenantTierChanged',
    data: {
      tenant_id: TENANT_ID,
      tier,
      previous_tier: previous,
      daily_leaf_limit: dailyLeafLimit,
      changed_at: '2026-03-01T10:10:00.000Z',
      changed_by: 'ops@example.com',
    },
  };
}

export function webhookRegistered(
  webhookId = WEBHOOK_ID,
  events: WebhookRegistered['events'] = ['leaf_admitted'],
): TenantEvent {
  return {
    type: 'WebhookRegistered',
    data: {
      tenant_id: TENANT_ID,
      webhook_id: webhookId,
      url: 'https://hooks.example/gov',
      events,
      secret_sealed: 'sealed',
      secret_generated: true,
      created_at: '2026-03-01T10:20:00.000Z',
    },
  };
}

export function webhookRemoved(webhookId = WEBHOOK_ID): TenantEvent {
  return {
    type: 'WebhookRemoved',
    data: { tenant_id: TENANT_ID, webhook_id: webhookId, removed_at: '2026-03-01T10:25:00.000Z' },
  };
}

export function policyChanged(
  policy: TenantPolicy,
  version: number,
  previousHash: string,
  hash: string,
): TenantEvent {
  return {
    type: 'TenantPolicyChanged',
    data: {
      tenant_id: TENANT_ID,
      policy,
      version,
      previous_policy_hash: previousHash,
      policy_hash: hash,
      changed_at: '2026-03-01T10:40:00.000Z',
      key_id: KEY.keyId,
    },
  };
}
