/**
 * Specifications of the tenants projection: given recorded events, then the `tenants` and `api_keys`
 * documents that authentication, GET /account and GET /governance/policy read.
 */
import { DEFAULT_POLICY, policyHash } from '../../domain/governance/policy';
import type {
  ApiKeyRotated,
  EvidenceAdmitted,
  TenantPolicy,
  TenantPolicyChanged,
  TenantRegistered,
  TenantTierChanged,
} from '../../event-schemas';
import { ProjectionSpecification, type SpecEvent } from '../engine/projection-spec';
import { API_KEYS, TENANTS, type TenantView, tenantsProjection } from './tenants';

const given = ProjectionSpecification.for(tenantsProjection);

const TENANT = `ten_${'a'.repeat(24)}`;
const OTHER = `ten_${'b'.repeat(24)}`;
const KEY_1 = '1111111111111111';
const KEY_2 = '2222222222222222';
const KEY_3 = '3333333333333333';
const hash = (c: string) => c.repeat(64);

const registered = (tenantId = TENANT, changes: Partial<TenantRegistered> = {}): SpecEvent => ({
  type: 'TenantRegistered',
  data: {
    tenant_id: tenantId,
    node_id: `node_${'c'.repeat(24)}`,
    email: `${tenantId}@example.com`,
    mode: 'live',
    tier: 'L1',
    key_id: KEY_1,
    key_hash: hash('1'),
    registered_at: '2026-03-01T10:00:00.000Z',
    ...changes,
  } satisfies TenantRegistered,
});

const rotated = (keyId: string, previousKeyId: string, expiresAt: string): SpecEvent => ({
  type: 'ApiKeyRotated',
  data: {
    tenant_id: TENANT,
    key_id: keyId,
    key_hash: hash(keyId[0]!),
    mode: 'live',
    previous_key_id: previousKeyId,
    previous_key_expires_at: expiresAt,
    rotated_at: '2026-03-01T11:00:00.000Z',
  } satisfies ApiKeyRotated,
});

const tierChanged = (
  tier: TenantTierChanged['tier'],
  dailyLeafLimit: number | null,
  tenantId = TENANT,
  log?: string,
  requestsPerMinute?: number,
): SpecEvent => ({
  type: 'TenantTierChanged',
  data: {
    tenant_id: tenantId,
    tier,
    previous_tier: 'L1',
    daily_leaf_limit: dailyLeafLimit,
    changed_at: '2026-03-01T12:00:00.000Z',
    changed_by: 'operator',
    ...(log ? { log } : {}),
    ...(requestsPerMinute ? { requests_per_minute: requestsPerMinute } : {}),
  } satisfies TenantTierChanged,
});

const policy: TenantPolicy = {
  ...DEFAULT_POLICY,
  g1_min_confidence_lower: 0.9,
  g3_metric_maximums: { 'bias.gap': 0.1 },
};
const policyChanged: SpecEvent = {
  type: 'TenantPolicyChanged',
  data: {
    tenant_id: TENANT,
    policy,
    version: 2,
    previous_policy_hash: policyHash(DEFAULT_POLICY),
    policy_hash: policyHash(policy),
    changed_at: '2026-03-01T13:00:00.000Z',
    key_id: KEY_1,
  } satisfies TenantPolicyChanged,
};

/** The policy of `policyChanged` as the tenant document keeps it: JSON text, version, hashes, time. */
const storedPolicy = {
  version: 2,
  policy_hash: policyHash(policy),
  updated_at: '2026-03-01T13:00:00.000Z',
  policy_json: JSON.stringify(policy),
};

/** An evidence admission as this projection reads it (its declared data members). */
const evidenceAdmitted = (admittedAt: string, tenantId = TENANT): SpecEvent => ({
  type: 'EvidenceAdmitted',
  data: { tenant_id: tenantId, admitted_at: admittedAt } satisfies Pick<
    EvidenceAdmitted,
    'tenant_id' | 'admitted_at'
  >,
});
const executionAdmitted: SpecEvent = { type: 'ExecutionAdmitted', data: { tenant_id: TENANT } };
const varianceRecorded: SpecEvent = { type: 'VarianceRecorded', data: { tenant_id: TENANT } };

/** The tenant document right after registration. */
const newTenant: TenantView = {
  tenant_id: TENANT,
  node_id: `node_${'c'.repeat(24)}`,
  email: `${TENANT}@example.com`,
  organization: null,
  mode: 'live',
  tier: 'L1',
  registered_at: '2026-03-01T10:00:00.000Z',
  leaf_count: 0,
  evidence_leaves: 0,
  day: null,
  leaves_on_day: 0,
  daily_leaf_limit: null,
  subscription_id: null,
};

const key = (keyHash: string, expiresAt: string | null) => ({
  tenant_id: TENANT,
  key_hash: keyHash,
  mode: 'live',
  expires_at: expiresAt,
});

describe('the tenants projection', () => {
  it('given a registration, then the tenant with zero counts, the default policy (no policy member) and its key', () =>
    given([registered()]).thenDocuments({
      [TENANTS]: { [TENANT]: newTenant },
      [API_KEYS]: { [KEY_1]: key(hash('1'), null) },
    }));

  it('given a registration with an organization, then the tenant names it', () =>
    given([registered(TENANT, { organization: 'Acme' })]).thenDocuments({
      [TENANTS]: { [TENANT]: { ...newTenant, organization: 'Acme' } },
    }));

  it('given a registration, when the key is rotated, then the new key works without expiry and the previous one expires as the event says', () =>
    given([registered()])
      .when([rotated(KEY_2, KEY_1, '2026-03-02T11:00:00.000Z')])
      .thenDocuments({
        [API_KEYS]: {
          [KEY_1]: key(hash('1'), '2026-03-02T11:00:00.000Z'),
          [KEY_2]: key(hash('2'), null),
        },
      }));

  it('given a key already expiring, when it is named as previous again with a later expiry, then it keeps its earlier one', () =>
    given([registered(), rotated(KEY_2, KEY_1, '2026-03-02T11:00:00.000Z')])
      .when([rotated(KEY_3, KEY_1, '2026-03-03T11:00:00.000Z')])
      .thenDocuments({
        [API_KEYS]: {
          [KEY_1]: key(hash('1'), '2026-03-02T11:00:00.000Z'),
          [KEY_2]: key(hash('2'), null),
          [KEY_3]: key(hash('3'), null),
        },
      }));

  it('given a tenant, when the operator changes its tier with an allowance, then the tenant has both', () =>
    given([registered()])
      .when([tierChanged('L2', 5000)])
      .thenDocuments({ [TENANTS]: { [TENANT]: { ...newTenant, tier: 'L2', daily_leaf_limit: 5000 } } }));

  it('given a tenant, when it becomes L4 with its dedicated log, then the tenant names that log; when it leaves L4, then it names none (its mode’s log again)', async () => {
    const dedicated = `dedicated-${TENANT.slice(4)}`;
    await given([registered()])
      .when([tierChanged('L4', null, TENANT, dedicated)])
      .thenDocuments({ [TENANTS]: { [TENANT]: { ...newTenant, tier: 'L4', log: dedicated } } });
    await given([registered(), tierChanged('L4', null, TENANT, dedicated)])
      .when([tierChanged('L2', null)])
      .thenDocuments({ [TENANTS]: { [TENANT]: { ...newTenant, tier: 'L2' } } });
  });

  it('given a tenant, when the operator gives it its own request allowance, then the tenant has it; a change without one removes it', async () => {
    await given([registered()])
      .when([tierChanged('L2+', null, TENANT, undefined, 10_000)])
      .thenDocuments({ [TENANTS]: { [TENANT]: { ...newTenant, tier: 'L2+', requests_per_minute: 10_000 } } });
    await given([registered(), tierChanged('L2+', null, TENANT, undefined, 10_000)])
      .when([tierChanged('L2+', null)])
      .thenDocuments({ [TENANTS]: { [TENANT]: { ...newTenant, tier: 'L2+' } } });
  });

  it('given a tenant, when its policy changes, then the tenant holds the version, hashes and time, and the policy as JSON text', () =>
    given([registered()])
      .when([policyChanged])
      .thenDocuments({
        [TENANTS]: {
          [TENANT]: {
            ...newTenant,
            policy: storedPolicy,
          },
        },
      }));

  it('given a tenant, when evidence is admitted twice on one UTC day and once on the next, then the counts and the day tally follow', () =>
    given([registered()])
      .when([
        evidenceAdmitted('2026-03-01T10:05:00.000Z'),
        evidenceAdmitted('2026-03-01T23:59:00.000Z'),
        evidenceAdmitted('2026-03-02T00:01:00.000Z'),
      ])
      .thenDocuments({
        [TENANTS]: {
          [TENANT]: { ...newTenant, leaf_count: 3, evidence_leaves: 3, day: '2026-03-02', leaves_on_day: 1 },
        },
      }));

  it('given a tenant, when an execution and its variance are admitted, then they count as leaves but not as evidence', () =>
    given([registered(), evidenceAdmitted('2026-03-01T10:05:00.000Z')])
      .when([executionAdmitted, varianceRecorded])
      .thenDocuments({
        [TENANTS]: {
          [TENANT]: { ...newTenant, leaf_count: 3, evidence_leaves: 1, day: '2026-03-01', leaves_on_day: 1 },
        },
      }));

  it('given two tenants, when one admits evidence, then the other is untouched', () =>
    given([registered(), registered(OTHER, { key_id: KEY_2, key_hash: hash('2') })])
      .when([evidenceAdmitted('2026-03-01T10:05:00.000Z', OTHER)])
      .thenDocuments({
        [TENANTS]: {
          [TENANT]: newTenant,
          [OTHER]: {
            ...newTenant,
            tenant_id: OTHER,
            email: `${OTHER}@example.com`,
            leaf_count: 1,
            evidence_leaves: 1,
            day: '2026-03-01',
            leaves_on_day: 1,
          },
        },
      }));

  it('given one tenant, when an unknown tenant admits evidence or changes tier, then nothing is written', () =>
    given([registered()])
      .when([evidenceAdmitted('2026-03-01T10:05:00.000Z', OTHER), tierChanged('L2', null, OTHER)])
      .thenNothingChanged());

  describe('idempotence: the same events delivered twice leave the same documents', () => {
    it('admissions are counted once', () =>
      given([registered()])
        .when([evidenceAdmitted('2026-03-01T10:05:00.000Z'), executionAdmitted], { numberOfTimes: 2 })
        .thenDocuments({
          [TENANTS]: {
            [TENANT]: {
              ...newTenant,
              leaf_count: 2,
              evidence_leaves: 1,
              day: '2026-03-01',
              leaves_on_day: 1,
            },
          },
        }));

    it('a rotation, a tier and a policy change are applied once', () =>
      given([registered()])
        .when([rotated(KEY_2, KEY_1, '2026-03-02T11:00:00.000Z'), tierChanged('L4', null), policyChanged], {
          numberOfTimes: 2,
        })
        .thenDocuments({
          [TENANTS]: {
            [TENANT]: {
              ...newTenant,
              tier: 'L4',
              policy: storedPolicy,
            },
          },
          [API_KEYS]: {
            [KEY_1]: key(hash('1'), '2026-03-02T11:00:00.000Z'),
            [KEY_2]: key(hash('2'), null),
          },
        }));
  });
});
