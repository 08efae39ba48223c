/**
 * The tenant aggregate: everything a decision about a tenant's commands needs, folded from the
 * tenant's stream (`tenant-<id>`). Registration, key rotation, tier and policy changes, admissions,
 * gate failures, closed-loop records and webhooks all live in that one stream, so one expected revision
 * makes trial caps, daily limits, subject chains and "one execution per authorization" exact (which
 * rules need the one stream, and why: ../STREAMS.md).
 */

import { countLeaf } from '../../../domain/governance/daily-allowance';
import {
  evolveSubject,
  initialSubject,
  type SubjectOutcome,
  type SubjectState,
} from '../../../domain/governance/lifecycle';
import {
  DEFAULT_POLICY_IN_FORCE,
  type PolicyInForce,
  policyInForce,
} from '../../../domain/governance/policy';
import { tenantLogOf } from '../../../domain/governance/tenant-log';
import type { Tier } from '../../../domain/governance/tier-limits';
import { SHARED_LOG_NAME } from '../../../domain/log';
import type { GovernanceEvent } from '../../../event-schemas';
import type { Aggregate, Decision, NewEventOf } from '../../engine/aggregate-writer';
import { PersistentMap } from '../../engine/persistent-map';

/** The events of a tenant's stream. */
export type TenantEvent = Extract<
  GovernanceEvent,
  {
    type:
      | 'TenantRegistered'
      | 'ApiKeyRotated'
      | 'TenantTierChanged'
      | 'TenantPolicyChanged'
      | 'EvidenceAdmitted'
      | 'GateFailed'
      | 'ExecutionAdmitted'
      | 'VarianceRecorded'
      | 'WebhookRegistered'
      | 'WebhookRemoved'
      | 'WebhookRedeliveryRequested';
  }
>;

/** What a tenant command decides: events of the tenant's stream, and the caller's answer. */
export type TenantDecision<R> = Decision<R, TenantEvent>;

export interface TenantState {
  readonly exists: boolean;
  readonly tenant_id: string;
  readonly tier: Tier;
  readonly mode: 'live' | 'test';
  /**
   * The log the tenant's admissions go to now: `test` for a test-mode tenant, its dedicated log while it
   * is L4 with one, else `shared` (domain/log/log-names.ts). Each admission event records it.
   */
  readonly log: string;
  /** The tenant's dedicated log once it has been L4 (kept, frozen, when it leaves L4), else null. */
  readonly dedicated_log: string | null;
  readonly registered_at: string;
  readonly daily_leaf_limit: number | null;
  /** Operator-set API requests per minute; null = the tier's. */
  readonly requests_per_minute: number | null;
  readonly active_key_id: string | null;
  /** The gate policy submissions are decided under: the default until the tenant changes it. */
  readonly policy_in_force: PolicyInForce;
  /** Authorization leaves admitted so far. */
  readonly evidence_leaves: number;
  /** The day leaves count towards and how many count towards it (domain/daily-allowance.ts). */
  readonly day: string;
  readonly leaves_on_day: number;
  readonly subjects: PersistentMap<SubjectState>;
  /** Authorization leaves that already have their execution (one per authorization). */
  readonly executed: PersistentMap<true>;
  /** Registered, not removed webhooks: id → the event names each receives. */
  readonly webhooks: PersistentMap<readonly string[]>;
}

/** The stream holding a tenant's account and governance events. */
export function tenantStream(tenantId: string): string {
  return `tenant-${tenantId}`;
}

export function subjectOf(state: TenantState, subjectId: string): SubjectState {
  return state.subjects.get(subjectId) ?? initialSubject();
}

export function initialTenantState(): TenantState {
  return {
    exists: false,
    tenant_id: '',
    tier: 'L1',
    mode: 'live',
    log: SHARED_LOG_NAME,
    dedicated_log: null,
    registered_at: '',
    daily_leaf_limit: null,
    requests_per_minute: null,
    active_key_id: null,
    policy_in_force: DEFAULT_POLICY_IN_FORCE,
    evidence_leaves: 0,
    day: '',
    leaves_on_day: 0,
    subjects: PersistentMap.empty(),
    executed: PersistentMap.empty(),
    webhooks: PersistentMap.empty(),
  };
}

/** The tenant after `event` (a new state: the given one is left as it was). */
export function evolveTenant(state: TenantState, event: TenantEvent): TenantState {
  switch (event.type) {
    case 'TenantRegistered': {
      const { data } = event;
      return {
        ...state,
        exists: true,
        tenant_id: data.tenant_id,
        tier: data.tier,
        mode: data.mode,
        log: tenantLogOf(data),
        registered_at: data.registered_at,
        active_key_id: data.key_id,
      };
    }
    case 'ApiKeyRotated':
      return { ...state, active_key_id: event.data.key_id };
    case 'TenantPolicyChanged':
      return { ...state, policy_in_force: policyInForce(event.data) };
    case 'TenantTierChanged': {
      const { data } = event;
      return {
        ...state,
        tier: data.tier,
        daily_leaf_limit: data.daily_leaf_limit,
        requests_per_minute: data.requests_per_minute ?? null,
        // A tier change names the dedicated log from then on; without one the tenant is back in its mode's log.
        log: tenantLogOf({ mode: state.mode, log: data.log }),
        dedicated_log: data.log ?? state.dedicated_log,
      };
    }
    case 'EvidenceAdmitted': {
      const { data } = event;
      const { day, leaves_on_day } = countLeaf(state, data.admitted_at);
      return {
        ...state,
        evidence_leaves: state.evidence_leaves + 1,
        day,
        leaves_on_day,
        subjects: withSubject(state, data.subject_id, {
          kind: 'pass',
          artifact_hash: data.artifact_hash,
          at: data.admitted_at,
        }),
      };
    }
    case 'GateFailed': {
      const { data } = event;
      return {
        ...state,
        subjects: withSubject(state, data.subject_id, {
          kind: 'fail',
          policy_violation: data.policy_violation,
          at: data.failed_at,
        }),
      };
    }
    case 'ExecutionAdmitted':
      return { ...state, executed: state.executed.set(event.data.trace.parent_auth_leaf_hash, true) };
    case 'VarianceRecorded': {
      const { record } = event.data;
      return {
        ...state,
        subjects: withSubject(state, record.subject_id, {
          kind: 'variance',
          classification: record.classification,
          at: record.recorded_at,
        }),
      };
    }
    case 'WebhookRegistered':
      return { ...state, webhooks: state.webhooks.set(event.data.webhook_id, event.data.events) };
    case 'WebhookRemoved':
      return { ...state, webhooks: state.webhooks.delete(event.data.webhook_id) };
    default:
      return state;
  }
}

function withSubject(
  state: TenantState,
  subjectId: string,
  outcome: SubjectOutcome,
): PersistentMap<SubjectState> {
  return state.subjects.set(subjectId, evolveSubject(subjectOf(state, subjectId), outcome));
}

export const tenantAggregate: Aggregate<TenantState, TenantEvent> = {
  initial: initialTenantState,
  evolve: evolveTenant,
};

/** The `log` member of an admission to `state.log`: none for the shared log (as before there were logs). */
export function logMember(state: Pick<TenantState, 'log'>): { log?: string } {
  return state.log === SHARED_LOG_NAME ? {} : { log: state.log };
}

/** An event of the tenant's stream, with the metadata every tenant command gives its events. */
export function tenantEvent<T extends TenantEvent['type']>(
  state: Pick<TenantState, 'tenant_id'>,
  context: { correlationId: string },
  type: T,
  data: Extract<TenantEvent, { type: T }>['data'],
): NewEventOf<Extract<TenantEvent, { type: T }>> {
  return {
    type,
    data,
    tenant_id: state.tenant_id,
    correlation_id: context.correlationId,
    causation_id: null,
  } as NewEventOf<Extract<TenantEvent, { type: T }>>;
}
