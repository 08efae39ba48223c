/** Properties of the account decisions: key rotation (API) and tier changes (operator CLI). */
import fc from 'fast-check';
import type { Tier } from '../../../domain/governance/tier-limits';
import type { EventPayloads } from '../../../event-schemas';
import {
  FIXED_KEY,
  foldTenant,
  PROPERTY_OPTIONS,
  schemaProblems,
  TenantSimulation,
  tenantCommandArb,
  tenantStartArb,
  type ValueOf,
} from '../property-support';
import {
  decideChangeTier,
  decideRotateKey,
  dedicatedLogFor,
  ROTATION_GRACE_MS,
  UnknownTenantError,
} from './account-commands';
import { tenantAggregate } from './tenant-state';

const stateArb = fc.tuple(tenantStartArb, fc.array(tenantCommandArb, { maxLength: 10 }));
const instantArb = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2200-01-01T00:00:00Z'),
  noInvalidDate: true,
});

async function reach([start, history]: [ValueOf<typeof tenantStartArb>, ValueOf<typeof tenantCommandArb>[]]) {
  const simulation = new TenantSimulation(start);
  for (const command of history) await simulation.run(command);
  return simulation.state;
}

const changeArb = fc.record(
  {
    tier: fc.constantFrom<Tier>('L1', 'L2', 'L2+', 'L4'),
    dailyLeafLimit: fc.option(fc.integer({ min: 0, max: 9_999_999_999 })),
    operator: fc.string({ minLength: 1, maxLength: 200 }),
    reason: fc.string({ maxLength: 1000 }),
  },
  { requiredKeys: ['tier', 'dailyLeafLimit', 'operator'] },
);

describe('decideRotateKey', () => {
  it('given any registered tenant, then it decides one valid ApiKeyRotated naming the active key, which expires exactly 24 h later', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, instantArb, async (input, now) => {
        const state = await reach(input);
        const context = { now, correlationId: 'c', keyId: state.active_key_id! };
        const { events, result } = decideRotateKey(state, context, FIXED_KEY);
        expect(schemaProblems(events)).toEqual([]);
        const data = events[0]!.data as EventPayloads['ApiKeyRotated'];
        expect(events).toHaveLength(1);
        expect(data).toMatchObject({
          previous_key_id: state.active_key_id,
          key_id: FIXED_KEY.keyId,
          mode: state.mode,
        });
        expect(Date.parse(data.previous_key_expires_at) - now.getTime()).toBe(ROTATION_GRACE_MS);
        expect(result).toEqual({
          kind: 'rotated',
          api_key: FIXED_KEY.apiKey,
          key_id: FIXED_KEY.keyId,
          previous_key_id: data.previous_key_id,
          previous_key_expires_at: data.previous_key_expires_at,
        });
      }),
      { ...PROPERTY_OPTIONS, numRuns: 40 },
    );
  });

  it('given no tenant, then it fails only with UnknownTenantError', () => {
    fc.assert(
      fc.property(instantArb, (now) => {
        expect(() =>
          decideRotateKey(tenantAggregate.initial(), { now, correlationId: 'c', keyId: FIXED_KEY.keyId }),
        ).toThrow(UnknownTenantError);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 20 },
    );
  });
});

describe('decideChangeTier', () => {
  it("given any tenant and change, then the same tier, allowance and log decide nothing, any other one valid TenantTierChanged that the state then shows, with the tenant's log", async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, changeArb, instantArb, async (input, change, now) => {
        const state = await reach(input);
        const previous = state.tier;
        // A live L4 tenant admits to its dedicated log, any other to its mode's log.
        const log = dedicatedLogFor(state, change.tier) ?? (state.mode === 'test' ? 'test' : 'shared');
        const same =
          state.tier === change.tier && state.daily_leaf_limit === change.dailyLeafLimit && state.log === log;
        const { events, result } = decideChangeTier(state, change, { now, correlationId: 'c' });
        expect(result).toEqual({ changed: !same, previous_tier: previous, log });
        expect(events).toHaveLength(same ? 0 : 1);
        expect(schemaProblems(events)).toEqual([]);
        const after = foldTenant(events, state);
        expect([after.tier, after.daily_leaf_limit, after.log]).toEqual([
          change.tier,
          change.dailyLeafLimit,
          log,
        ]);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 40 },
    );
  });

  it('given no tenant, then it fails only with UnknownTenantError', () => {
    fc.assert(
      fc.property(changeArb, instantArb, (change, now) => {
        expect(() =>
          decideChangeTier(tenantAggregate.initial(), change, { now, correlationId: 'c' }),
        ).toThrow(UnknownTenantError);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 20 },
    );
  });
});
