/** Given/when/then for the tenant's registration, key rotation and tier changes. */
import { Refused, refusedWith } from '../../engine/decider-specification';
import {
  KEY,
  keyRotated,
  NEXT_KEY,
  NOW,
  REGISTERED_AT,
  registered,
  TENANT_ID,
  tenantSpec,
  tierChanged,
} from '../tenant-spec-fixtures';
import { decideChangeTier, decideRotateKey, type TierChange, UnknownTenantError } from './account-commands';
import type { IssuedKey } from './api-keys';
import { decideRegisterTenant, decideRegistration, TenantExistsError } from './register-tenant';
import { tenantAggregate } from './tenant-state';

describe('registration', () => {
  const registration = decideRegisterTenant(
    { email: 'owner@example.com' },
    new Date(REGISTERED_AT),
    { tenantId: TENANT_ID, nodeId: `node_${'b'.repeat(24)}` },
    KEY,
  );
  const given = tenantSpec((state, correlationId: string) =>
    decideRegistration(state, registration, correlationId),
  );

  it('given no events, when a tenant registers, then TenantRegistered: a live Trial (L1) tenant with its key’s hash, never the key', () => {
    given([]).when('c').then([registered()]);
    expect(JSON.stringify(registration.event)).not.toContain(KEY.apiKey);
  });

  it('given the tenant registered, when it registers again, then it fails (the writer refuses the existing stream first)', () => {
    given([registered()])
      .when('c')
      .thenThrows((error) => error instanceof TenantExistsError);
  });
});

describe('key rotation', () => {
  const given = tenantSpec((state, command: { keyId: string; key: IssuedKey }) =>
    decideRotateKey(state, { now: NOW, correlationId: 'c', keyId: command.keyId }, command.key),
  );

  it('given a registered tenant, when its current key rotates, then ApiKeyRotated: the new key, the previous one working for 24 hours', () => {
    given([registered()])
      .when({ keyId: KEY.keyId, key: NEXT_KEY })
      .then([
        {
          type: 'ApiKeyRotated',
          data: {
            tenant_id: TENANT_ID,
            key_id: NEXT_KEY.keyId,
            key_hash: NEXT_KEY.keyHash,
            mode: 'live',
            previous_key_id: KEY.keyId,
            previous_key_expires_at: '2026-03-02T11:00:00.000Z',
            rotated_at: NOW.toISOString(),
          },
        },
      ]);
  });

  it('given a rotation, when the replaced key rotates (in its grace period), then 403 FORBIDDEN', () => {
    given([registered(), keyRotated()])
      .when({ keyId: KEY.keyId, key: NEXT_KEY })
      .thenThrows(refusedWith('FORBIDDEN', 403));
  });

  it('given a rotation, when the new key rotates, then ApiKeyRotated replacing the new key', () => {
    given([registered(), keyRotated()])
      .when({ keyId: NEXT_KEY.keyId, key: KEY })
      .then([
        {
          type: 'ApiKeyRotated',
          data: { tenant_id: TENANT_ID, key_id: KEY.keyId, previous_key_id: NEXT_KEY.keyId },
        } as never,
      ]);
  });

  it('given no tenant, when a key rotates, then UnknownTenantError', () => {
    given([])
      .when({ keyId: KEY.keyId, key: NEXT_KEY })
      .thenThrows((error) => error instanceof UnknownTenantError);
  });
});

describe('tier change (operator)', () => {
  const given = tenantSpec((state, change: TierChange) =>
    decideChangeTier(state, change, { now: NOW, correlationId: 'c' }),
  );

  it('given a Trial tenant, when the operator moves it to L2 with an allowance and a reason, then TenantTierChanged naming both tiers', () => {
    given([registered()])
      .when({ tier: 'L2', dailyLeafLimit: 1000, operator: 'ops@example.com', reason: 'contract 42' })
      .then([
        {
          type: 'TenantTierChanged',
          data: {
            tenant_id: TENANT_ID,
            tier: 'L2',
            previous_tier: 'L1',
            daily_leaf_limit: 1000,
            changed_at: NOW.toISOString(),
            changed_by: 'ops@example.com',
            reason: 'contract 42',
          },
        },
      ]);
  });

  it('given an L2 tenant with the tier’s own allowance, when it is moved to L4 with none, then the event says so (null: no allowance of its own)', () => {
    given([registered(), tierChanged('L2')])
      .when({ tier: 'L4', dailyLeafLimit: null, operator: 'ops@example.com' })
      .then([
        {
          type: 'TenantTierChanged',
          data: { tenant_id: TENANT_ID, tier: 'L4', previous_tier: 'L2', daily_leaf_limit: null },
        } as never,
      ]);
  });

  it('given an L2+ tenant, when it is given its own request allowance, then the event carries it; the same again changes nothing; without it, the tier’s again', () => {
    const own: TierChange = {
      tier: 'L2+',
      dailyLeafLimit: null,
      requestsPerMinute: 10_000,
      operator: 'ops@example.com',
    };
    const base = tierChanged('L2+', null, 'L2+');
    const withOwn = { ...base, data: { ...base.data, requests_per_minute: 10_000 } } as typeof base;
    given([registered(), tierChanged('L2+')])
      .when(own)
      .then([{ ...withOwn, data: { ...withOwn.data, changed_at: NOW.toISOString() } } as typeof base]);
    given([registered(), tierChanged('L2+'), withOwn])
      .when(own)
      .thenNothingHappened();
    let state = tenantAggregate.initial();
    for (const event of [registered(), tierChanged('L2+'), withOwn])
      state = tenantAggregate.evolve(state, event);
    expect(state.requests_per_minute).toBe(10_000);
    const back = decideChangeTier(
      state,
      { ...own, requestsPerMinute: null },
      { now: NOW, correlationId: 'c' },
    );
    expect(back.events.map((event) => event.data)).toEqual([
      expect.not.objectContaining({ requests_per_minute: expect.anything() }),
    ]);
    expect(back.result.changed).toBe(true);
  });

  it('given an L2 tenant, when it is set to L2 with the same allowance, then nothing happens', () => {
    given([registered(), tierChanged('L2', 5)])
      .when({ tier: 'L2', dailyLeafLimit: 5, operator: 'ops@example.com' })
      .thenNothingHappened();
  });

  it('given no tenant, when its tier changes, then UnknownTenantError', () => {
    given([])
      .when({ tier: 'L2', dailyLeafLimit: null, operator: 'ops@example.com' })
      .thenThrows((error) => error instanceof UnknownTenantError && !(error instanceof Refused));
  });
});
