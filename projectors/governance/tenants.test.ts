/**
 * The tenants read model and the tenant policy: what GET /governance/policy reads, in a document every
 * read store can hold (the MongoDB one refuses member names with dots, which metric names may have).
 */
import { planWrites } from '../../adapters/mongodb/batch-plan';
import { issueApiKey } from '../../command-api/governance/tenants/api-keys';
import { decideRegisterTenant } from '../../command-api/governance/tenants/register-tenant';
import { DEFAULT_POLICY_IN_FORCE, policyHash } from '../../domain/governance/policy';
import { policyWith } from '../../domain/governance/test-fixtures';
import type { TenantPolicyChanged } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change, StoredDocument } from '../../ports/read-store';
import { TENANTS, type TenantView, tenantPolicy, tenantsProjection } from './tenants';

const tenantId = `ten_${'3'.repeat(24)}`;
const registered = decideRegisterTenant(
  { email: 'owner@example.com' },
  new Date('2026-03-01T10:00:00Z'),
  { tenantId, nodeId: `node_${'4'.repeat(24)}` },
  issueApiKey('live'),
).event;
const policy = policyWith({ g3_metric_maximums: { 'bias.gap': 0.1, 'eval:toxicity': 0.02 } });
const change: TenantPolicyChanged = {
  tenant_id: tenantId,
  policy,
  version: 2,
  previous_policy_hash: DEFAULT_POLICY_IN_FORCE.policy_hash,
  policy_hash: policyHash(policy),
  changed_at: '2026-03-01T11:00:00.000Z',
  key_id: '0123456789abcdef',
};

/** Projects `events` in order over an in-memory store; returns every change and the final documents. */
async function project(events: readonly { type: string; data: unknown }[]) {
  const documents = new Map<string, StoredDocument<unknown>>();
  const changes: Change[] = [];
  for (const [i, { type, data }] of events.entries()) {
    const event: RecordedEvent = {
      id: `e${i}`,
      type,
      stream: `tenant-${tenantId}`,
      revision: i,
      position: i + 1,
      recorded_at: '2026-03-01T11:00:00.000Z',
      tenant_id: tenantId,
      correlation_id: 'c',
      causation_id: null,
      schema_version: 1,
      data,
    };
    const state = {
      get: async <T>(collection: string, id: string) =>
        (documents.get(`${collection}/${id}`) as StoredDocument<T> | undefined) ?? null,
    };
    for (const made of await tenantsProjection.project(event, state)) {
      changes.push(made);
      if (made.kind === 'upsert')
        documents.set(`${made.collection}/${made.id}`, {
          id: made.id,
          position: made.position,
          data: made.data,
        });
    }
  }
  return { changes, tenant: documents.get(`${TENANTS}/${tenantId}`)!.data as TenantView };
}

describe('the tenants read model and the tenant policy', () => {
  it('given a registered tenant, then its policy in force is the default', async () => {
    const { tenant } = await project([registered]);
    expect(tenantPolicy(tenant)).toEqual(DEFAULT_POLICY_IN_FORCE);
  });

  it('given a policy change with dotted metric names, then the tenant document reads back that policy, version, hash and time', async () => {
    const { tenant } = await project([registered, { type: 'TenantPolicyChanged', data: change }]);
    expect(tenantPolicy(tenant)).toEqual({
      policy,
      version: 2,
      policy_hash: policyHash(policy),
      updated_at: change.changed_at,
    });
  });

  it('then the MongoDB read store can write every document the change makes', async () => {
    const { changes } = await project([registered, { type: 'TenantPolicyChanged', data: change }]);
    expect(() => planWrites(changes, new Map())).not.toThrow();
  });
});
