/**
 * Properties of `gov tenant tier` (changeTier) for any arguments an operator can type: it answers a
 * usage error or a result, never throws, and whatever it appends is a valid TenantTierChanged.
 */
import fc from 'fast-check';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { PROPERTY_OPTIONS, tenantIdArb } from '../command-api/governance/property-support';
import { decideRegisterTenant } from '../command-api/governance/tenants/register-tenant';
import { tenantStream } from '../command-api/governance/tenants/tenant-state';
import { ValidatingEventStore } from '../event-schemas';
import { keysDirOf } from '../runtime/keys/key-files';
import { loadOrCreateKeyring } from '../runtime/keys/keyring';
import { tempDir } from '../tests/support/temp-dir';
import { changeTier } from './tenant-tier';

// Where an L4 tenant's dedicated log key is made (one folder: a log's key is made once).
const data = tempDir('gov-tenant-tier');
const keysDir = keysDirOf(data.dir);
beforeAll(() => loadOrCreateKeyring(data.dir, 'gov.example/log'));
afterAll(() => data.remove());

/** Command-line text: anything, or close to what the option expects. */
const text = (likely: fc.Arbitrary<string>) =>
  fc.oneof(
    likely,
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'grapheme', minLength: 150, maxLength: 1200 }),
  );

const argumentsArb = fc.record(
  {
    tier: text(fc.constantFrom('L1', 'L2', 'L2+', 'L4', 'l2', 'L3', 'toString', '__proto__')),
    dailyLeafLimit: text(
      fc.oneof(
        fc.nat().map(String),
        fc.constantFrom('0', '01', '-1', '1e3', '9999999999', '10000000000', ' 5'),
      ),
    ),
    requestsPerMinute: text(
      fc.oneof(
        fc.integer({ min: 1, max: 1_000_000 }).map(String),
        fc.constantFrom('0', '01', '1000001', '1e4'),
      ),
    ),
    operator: text(fc.constantFrom('ops@example', '')),
    reason: text(fc.constantFrom('invoice 42', '')),
  },
  { requiredKeys: ['tier'] },
);

async function registeredStore(tenantId: string): Promise<ValidatingEventStore> {
  const store = new ValidatingEventStore(new SqliteEventStore({ file: ':memory:' }));
  const { event } = decideRegisterTenant({ email: 'owner@example.com' }, new Date('2026-01-01T00:00:00Z'), {
    tenantId,
    nodeId: `node_${'0'.repeat(24)}`,
  });
  await store.append(tenantStream(tenantId), [
    { ...event, tenant_id: tenantId, correlation_id: 'c', causation_id: null },
  ]);
  return store;
}

describe('gov tenant tier (changeTier)', () => {
  it('given any arguments, then it answers a usage error or a result and never throws, and every event it appends is valid', async () => {
    await fc.assert(
      fc.asyncProperty(tenantIdArb, argumentsArb, async (tenantId, args) => {
        const store = await registeredStore(tenantId);
        try {
          const result = await changeTier(store, { keysDir, tenantId, ...args });
          if (!result.ok) expect(result.usage).toBe(true);
        } finally {
          await store.close();
        }
      }),
      { ...PROPERTY_OPTIONS, numRuns: 150 },
    );
  });

  it('given well-formed arguments, then the change is appended as given, once', async () => {
    const wellFormed = fc.record({
      tier: fc.constantFrom('L1', 'L2', 'L2+', 'L4'),
      dailyLeafLimit: fc.option(fc.integer({ min: 0, max: 9_999_999_999 }).map(String), { nil: undefined }),
      requestsPerMinute: fc.option(fc.integer({ min: 1, max: 1_000_000 }).map(String), { nil: undefined }),
      operator: fc.string({ minLength: 1, maxLength: 200 }),
    });
    await fc.assert(
      fc.asyncProperty(tenantIdArb, wellFormed, async (tenantId, args) => {
        const store = await registeredStore(tenantId);
        try {
          const result = await changeTier(store, { keysDir, tenantId, ...args });
          const events = [];
          for await (const event of store.readStream(tenantStream(tenantId))) events.push(event);
          expect(result).toMatchObject({ ok: true, changed: events.length === 2 });
          const limit = args.dailyLeafLimit === undefined ? null : Number(args.dailyLeafLimit);
          const perMinute = args.requestsPerMinute === undefined ? undefined : Number(args.requestsPerMinute);
          // Registration is L1 with the tier's allowances: that very change is the only no-op.
          expect(events.length).toBe(args.tier === 'L1' && limit === null && perMinute === undefined ? 1 : 2);
          if (events.length === 2) {
            expect(events[1]!.data).toMatchObject({
              tier: args.tier,
              daily_leaf_limit: limit,
              changed_by: args.operator,
            });
            expect((events[1]!.data as { requests_per_minute?: number }).requests_per_minute).toBe(perMinute);
          }
        } finally {
          await store.close();
        }
      }),
      { ...PROPERTY_OPTIONS, numRuns: 100 },
    );
  });
});
