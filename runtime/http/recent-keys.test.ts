import { type KeyRecord, RecentKeys } from './recent-keys';

const record = (tier: KeyRecord['tenant']['tier'] = 'L1'): KeyRecord => ({
  key: { tenant_id: 'ten_a', key_hash: 'ab'.repeat(32), mode: 'live', expires_at: null },
  tenant: { tenant_id: 'ten_a', tier },
});

describe('RecentKeys', () => {
  let monotonic: number;
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 22) + ms);
  const recent = (max?: number) => new RecentKeys(1000, max, () => monotonic);

  beforeEach(() => {
    monotonic = 0;
  });

  it('given nothing remembered, when a key id is looked up, then there is nothing', () => {
    expect(recent().get('k1', at(0))).toBeUndefined();
  });

  it('given a record remembered, when it is looked up within the second by both clocks, then it is returned', () => {
    const keys = recent();
    keys.remember('k1', record(), at(0));
    monotonic = 999;
    expect(keys.get('k1', at(999))).toEqual(record());
  });

  it('given a record remembered, when a second has passed on the monotonic clock, then it is forgotten', () => {
    const keys = recent();
    keys.remember('k1', record(), at(0));
    monotonic = 1000;
    expect(keys.get('k1', at(0))).toBeUndefined();
    monotonic = 0;
    expect(keys.get('k1', at(0))).toBeUndefined();
  });

  it.each([
    ['forward a day', 24 * 3600_000],
    ['backward', -1],
  ])(
    'given a record remembered, when the service clock jumps %s, then it is forgotten (an expiry is read anew)',
    (_how, jump) => {
      const keys = recent();
      keys.remember('k1', record(), at(0));
      expect(keys.get('k1', at(jump))).toBeUndefined();
    },
  );

  it('given a record remembered again, then the newer one is returned', () => {
    const keys = recent();
    keys.remember('k1', record('L1'), at(0));
    keys.remember('k1', record('L2'), at(0));
    expect(keys.get('k1', at(0))?.tenant.tier).toBe('L2');
  });

  it('given the most records it keeps, when one more is remembered, then the oldest is forgotten', () => {
    const keys = recent(2);
    keys.remember('k1', record(), at(0));
    keys.remember('k2', record(), at(0));
    keys.remember('k3', record(), at(0));
    expect([keys.get('k1', at(0)), keys.get('k2', at(0)), keys.get('k3', at(0))].map(Boolean)).toEqual([
      false,
      true,
      true,
    ]);
  });

  describe('with a feed of key changes', () => {
    const other: KeyRecord = { ...record(), tenant: { tenant_id: 'ten_b', tier: 'L1' } };

    it('given the feed follows, when a record is looked up after a second, then it is still remembered, and after a minute not', () => {
      const keys = recent();
      keys.follow(true);
      keys.remember('k1', record(), at(0));
      monotonic = 59_999;
      expect(keys.get('k1', at(59_999))).toEqual(record());
      monotonic = 60_000;
      expect(keys.get('k1', at(60_000))).toBeUndefined();
    });

    it('given records remembered before the feed follows, when it begins, then they are forgotten (a change may have come before it)', () => {
      const keys = recent();
      keys.remember('k1', record(), at(0));
      keys.follow(true);
      expect(keys.get('k1', at(0))).toBeUndefined();
    });

    it('given the feed stopped following, then records are kept a second again', () => {
      const keys = recent();
      keys.follow(true);
      keys.remember('k1', record(), at(0));
      keys.follow(false);
      monotonic = 1000;
      expect(keys.get('k1', at(1000))).toBeUndefined();
    });

    it("given a change to a tenant at position 50, then its records are forgotten, other tenants' kept", () => {
      const keys = recent();
      keys.follow(true);
      keys.remember('k1', record(), at(0), 10);
      keys.remember('k2', other, at(0), 10);
      keys.changed('ten_a', 50);
      expect(keys.get('k1', at(0))).toBeUndefined();
      expect(keys.get('k2', at(0))).toEqual(other);
    });

    it('given a change at position 50, when the tenant is read from documents through 49, then that is not remembered; through 50, it is', () => {
      const keys = recent();
      keys.follow(true);
      keys.changed('ten_a', 50);
      keys.remember('k1', record('L1'), at(0), 49);
      expect(keys.get('k1', at(0))).toBeUndefined();
      keys.remember('k1', record('L2'), at(0), 50);
      expect(keys.get('k1', at(0))?.tenant.tier).toBe('L2');
      // A read that began before the change and ends after another saw it is not kept either.
      keys.remember('k3', record('L1'), at(0), 12);
      expect(keys.get('k3', at(0))).toBeUndefined();
    });
  });
});
