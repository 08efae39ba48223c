/**
 * The tenant aggregate: everything a decision about a tenant's commands needs, folded from the
 * tenant's stream (`tenant-<id>`). Registration, key rotation, tier and policy changes, admissions,
 * gate failures and closed-loop records all live in that one stream, so one expected revision makes
 * trial caps, daily limits, subject chains and "one execution per authorization" exact.
 */

import { countLeaf } from '../../../domain/governance/daily-allowance';
import { evolveSubject, initialSubject, type SubjectState } from '../../../domain/governance/lifecycle';
import {
  DEFAULT_POLICY_IN_FORCE,
  type PolicyInForce,
  policyInForce,
} from '../../../domain/governance/policy';
import type { Tier } from '../../../domain/governance/tier-limits';
import type { EventPayloads } from '../../../event-schemas';
import type { Aggregate } from '../../engine/aggregate-writer';

export interface TenantState {
  exists: boolean;
  tenant_id: string;
  tier: Tier;
  mode: 'live' | 'test';
  registered_at: string;
  daily_leaf_limit: number | null;
  active_key_id: string | null;
  /** The gate policy submissions are decided under: the default until the tenant changes it. */
  policy_in_force: PolicyInForce;
  /** Authorization leaves admitted so far. */
  evidence_leaves: number;
  /** The day leaves count towards and how many count towards it (domain/governance/daily-allowance.ts). */
  day: string;
  leaves_on_day: number;
  subjects: Map<string, SubjectState>;
  /** Authorization leaves that already have their execution (one per authorization). */
  executed: Set<string>;
  /** Registered, not removed webhooks: id → the event names each receives. */
  webhooks: Map<string, readonly string[]>;
}

/** The stream holding a tenant's account and governance events. */
export function tenantStream(tenantId: string): string {
  return `tenant-${tenantId}`;
}

export function subjectOf(state: TenantState, subjectId: string): SubjectState {
  return state.subjects.get(subjectId) ?? initialSubject();
}

export const tenantAggregate: Aggregate<TenantState> = {
  initial: () => ({
    exists: false,
    tenant_id: '',
    tier: 'L1',
    mode: 'live',
    registered_at: '',
    daily_leaf_limit: null,
    active_key_id: null,
    policy_in_force: DEFAULT_POLICY_IN_FORCE,
    evidence_leaves: 0,
    day: '',
    leaves_on_day: 0,
    subjects: new Map(),
    executed: new Set(),
    webhooks: new Map(),
  }),
  evolve(state, event) {
    switch (event.type) {
      case 'TenantRegistered': {
        const data = event.data as EventPayloads['TenantRegistered'];
        Object.assign(state, {
          exists: true,
          tenant_id: data.tenant_id,
          tier: data.tier,
          mode: data.mode,
          registered_at: data.registered_at,
          active_key_id: data.key_id,
        });
        return;
      }
      case 'ApiKeyRotated':
        state.active_key_id = (event.data as EventPayloads['ApiKeyRotated']).key_id;
        return;
      case 'TenantPolicyChanged':
        state.policy_in_force = policyInForce(event.data as EventPayloads['TenantPolicyChanged']);
        return;
      case 'TenantTierChanged': {
        const data = event.data as EventPayloads['TenantTierChanged'];
        state.tier = data.tier;
        state.daily_leaf_limit = data.daily_leaf_limit;
        return;
      }
      case 'EvidenceAdmitted': {
        const data = event.data as EventPayloads['EvidenceAdmitted'];
        state.evidence_leaves++;
        Object.assign(state, countLeaf(state, data.admitted_at));
        state.subjects.set(
          data.subject_id,
          evolveSubject(subjectOf(state, data.subject_id), {
            kind: 'pass',
            artifact_hash: data.artifact_hash,
            at: data.admitted_at,
          }),
        );
        return;
      }
      case 'GateFailed': {
        const data = event.data as EventPayloads['GateFailed'];
        state.subjects.set(
          data.subject_id,
          evolveSubject(subjectOf(state, data.subject_id), {
            kind: 'fail',
            policy_violation: data.policy_violation,
            at: data.failed_at,
          }),
        );
        return;
      }
      case 'ExecutionAdmitted':
        state.executed.add((event.data as EventPayloads['ExecutionAdmitted']).trace.parent_auth_leaf_hash);
        return;
      case 'WebhookRegistered': {
        const data = event.data as EventPayloads['WebhookRegistered'];
        state.webhooks.set(data.webhook_id, data.events);
        return;
      }
      case 'WebhookRemoved':
        state.webhooks.delete((event.data as EventPayloads['WebhookRemoved']).webhook_id);
        return;
      case 'VarianceRecorded': {
        const { record } = event.data as EventPayloads['VarianceRecorded'];
        state.subjects.set(
          record.subject_id,
          evolveSubject(subjectOf(state, record.subject_id), {
            kind: 'variance',
            classification: record.classification,
            at: record.recorded_at,
          }),
        );
        return;
      }
    }
  },
};
