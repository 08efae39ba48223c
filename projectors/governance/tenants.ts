import { countLeaf } from '../../domain/governance/daily-allowance';
import { DEFAULT_POLICY_IN_FORCE, type PolicyInForce, policyInForce } from '../../domain/governance/policy';
import type { EventPayloads, TenantPolicy } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change } from '../../ports/read-store';
import type { Projection, ProjectionState } from '../engine/projection';

/** The account read model of GET /account, with the counters the limits are reported from. */
export interface TenantView {
  tenant_id: string;
  node_id: string;
  email: string;
  organization: string | null;
  mode: 'live' | 'test';
  tier: 'L1' | 'L2' | 'L2+' | 'L4';
  registered_at: string;
  /** Every leaf of the tenant: authorization, execution and variance. */
  leaf_count: number;
  /** Authorization leaves (admitted evidence): what the trial cap and daily allowance count. */
  evidence_leaves: number;
  /** UTC day of the last admission and the admissions on that day. */
  day: string | null;
  leaves_on_day: number;
  /** Operator-set daily allowance (L2 credit); null = the tier's default. */
  daily_leaf_limit: number | null;
  /** Operator-set API requests per minute; absent: the tier's. */
  requests_per_minute?: number;
  /**
   * Its dedicated log while it is L4 (the `log` of its latest tier change); absent: its mode's log
   * (domain/governance/tenant-log.ts).
   */
  log?: string;
  subscription_id: string | null;
  /** The gate policy in force; absent while it is the default (read it with `tenantPolicy`). */
  policy?: StoredPolicy;
}

/**
 * The policy in force as this read model keeps it: the policy itself as JSON text, because its metric
 * names may hold dots, which the MongoDB read store cannot take as member names.
 */
interface StoredPolicy extends Omit<PolicyInForce, 'policy'> {
  policy_json: string;
}

/** A tenant's policy in force: the default until the tenant changes it. */
export function tenantPolicy(tenant: Pick<TenantView, 'policy'>): PolicyInForce {
  if (!tenant.policy) return DEFAULT_POLICY_IN_FORCE;
  const { policy_json, ...rest } = tenant.policy;
  return { ...rest, policy: JSON.parse(policy_json) as TenantPolicy };
}

/** What authentication looks up by key id: the hash to compare with, and when the key stops working. */
export interface ApiKeyView {
  tenant_id: string;
  key_hash: string;
  mode: 'live' | 'test';
  expires_at: string | null;
}

export const TENANTS = 'tenants';
export const API_KEYS = 'api_keys';

export const tenantsProjection: Projection = {
  name: 'tenants',
  version: 2,
  collections: [TENANTS, API_KEYS],
  indexes: [{ collection: TENANTS, fields: ['email'] }],
  eventTypes: [
    'TenantRegistered',
    'ApiKeyRotated',
    'TenantTierChanged',
    'TenantPolicyChanged',
    'EvidenceAdmitted',
    'ExecutionAdmitted',
    'VarianceRecorded',
  ],
  // An admission only moves its tenant's leaf counts: its 5 KB record is not read here.
  dataMembers: {
    EvidenceAdmitted: ['tenant_id', 'admitted_at'],
    ExecutionAdmitted: ['tenant_id'],
    VarianceRecorded: ['tenant_id'],
  },
  async project(event: RecordedEvent, state: ProjectionState): Promise<Change[]> {
    const at = event.position;
    if (event.type === 'TenantRegistered') {
      const data = event.data as EventPayloads['TenantRegistered'];
      const tenant: TenantView = {
        tenant_id: data.tenant_id,
        node_id: data.node_id,
        email: data.email,
        organization: data.organization ?? null,
        mode: data.mode,
        tier: data.tier,
        registered_at: data.registered_at,
        leaf_count: 0,
        evidence_leaves: 0,
        day: null,
        leaves_on_day: 0,
        daily_leaf_limit: null,
        subscription_id: null,
      };
      const key: ApiKeyView = {
        tenant_id: data.tenant_id,
        key_hash: data.key_hash,
        mode: data.mode,
        expires_at: null,
      };
      return [
        { kind: 'upsert', collection: TENANTS, id: data.tenant_id, position: at, data: tenant },
        { kind: 'upsert', collection: API_KEYS, id: data.key_id, position: at, data: key },
      ];
    }
    if (event.type === 'ApiKeyRotated') {
      const data = event.data as EventPayloads['ApiKeyRotated'];
      const previous = await state.get<ApiKeyView>(API_KEYS, data.previous_key_id);
      const changes: Change[] = [
        {
          kind: 'upsert',
          collection: API_KEYS,
          id: data.key_id,
          position: at,
          data: { tenant_id: data.tenant_id, key_hash: data.key_hash, mode: data.mode, expires_at: null },
        },
      ];
      if (previous) {
        // A key already on its way out keeps its earlier expiry.
        const expires = previous.data.expires_at;
        const expiresAt =
          expires && expires < data.previous_key_expires_at ? expires : data.previous_key_expires_at;
        changes.push({
          kind: 'upsert',
          collection: API_KEYS,
          id: data.previous_key_id,
          position: at,
          data: { ...previous.data, expires_at: expiresAt },
        });
      }
      return changes;
    }
    const tenantId = (event.data as { tenant_id: string }).tenant_id;
    const current = await state.get<TenantView>(TENANTS, tenantId);
    if (!current) return [];
    const tenant = { ...current.data };
    switch (event.type) {
      case 'TenantTierChanged': {
        const data = event.data as EventPayloads['TenantTierChanged'];
        tenant.tier = data.tier;
        tenant.daily_leaf_limit = data.daily_leaf_limit;
        if (data.log) tenant.log = data.log;
        else delete tenant.log;
        if (data.requests_per_minute) tenant.requests_per_minute = data.requests_per_minute;
        else delete tenant.requests_per_minute;
        break;
      }
      case 'TenantPolicyChanged': {
        const { policy, ...rest } = policyInForce(event.data as EventPayloads['TenantPolicyChanged']);
        tenant.policy = { ...rest, policy_json: JSON.stringify(policy) };
        break;
      }
      case 'EvidenceAdmitted': {
        tenant.leaf_count++;
        tenant.evidence_leaves++;
        Object.assign(
          tenant,
          countLeaf(tenant, (event.data as EventPayloads['EvidenceAdmitted']).admitted_at),
        );
        break;
      }
      default:
        tenant.leaf_count++;
    }
    return [{ kind: 'upsert', collection: TENANTS, id: tenantId, position: at, data: tenant }];
  },
};
