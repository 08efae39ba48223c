import {
  allowedTiers,
  allows,
  capabilityCatalog,
  FEATURES,
  type FeatureId,
  featureGate,
  isFeatureId,
  PLATFORM_TIER_LIMITS,
  requiredTier,
  TIERS,
  tierCatalog,
} from './capabilities';

describe('the feature catalog', () => {
  it.each<[FeatureId, string]>([
    ['chat', 'L1'],
    ['memory', 'L1'],
    ['profile', 'L1'],
    ['heartbeat', 'L1'],
    ['schedules', 'L2'],
    ['dream_tasks', 'L2'],
    ['sub_agents', 'L2+'],
    ['email_channel', 'L2+'],
    ['messaging_channel', 'L2+'],
    ['dedicated_log', 'L4'],
    ['rest_channel', 'L1'],
    ['api_keys', 'L1'],
    ['proofs', 'L1'],
  ])('%s needs tier %s', (feature, tier) => {
    expect(requiredTier(feature)).toBe(tier);
  });

  it.each<[string, FeatureId, boolean]>([
    ['L1', 'chat', true],
    ['L1', 'schedules', false],
    ['L2', 'schedules', true],
    ['L2', 'sub_agents', false],
    ['L2+', 'email_channel', true],
    ['L2+', 'dedicated_log', false],
    ['L4', 'dedicated_log', true],
    ['L4', 'chat', true],
  ])('tier %s may use %s: %s', (tier, feature, allowed) => {
    expect(allows(tier as (typeof TIERS)[number], feature)).toBe(allowed);
  });

  it('answers a gated route with the upgrade error and the tier it needs', () => {
    expect(featureGate('L1', 'schedules')).toEqual({
      error: 'feature_requires_upgrade',
      detail:
        'Schedules needs tier L2 or higher; this account is on L1. Upgrade with POST /v1/billing/checkout.',
      required_tier: 'L2',
    });
    expect(featureGate('L2', 'schedules')).toBeNull();
  });

  it('lists each feature once, with an honest availability', () => {
    const ids = FEATURES.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const feature of FEATURES) {
      expect(isFeatureId(feature.id)).toBe(true);
      // Not built yet: not callable, and not promised as more than experimental.
      if (!feature.available) expect(feature.status).toBe('experimental');
    }
    expect(isFeatureId('teleport')).toBe(false);
  });

  it('publishes for each feature its tiers and the limits of each tier', () => {
    const files = capabilityCatalog().find((entry) => entry.feature === 'files')!;
    expect(files.tiers).toEqual(['L1', 'L2', 'L2+', 'L4']);
    expect(files.limits.L1).toEqual({
      max_file_bytes: PLATFORM_TIER_LIMITS.L1.max_file_bytes,
      file_storage_bytes_per_agent: PLATFORM_TIER_LIMITS.L1.file_storage_bytes_per_agent,
    });
    const schedules = capabilityCatalog().find((entry) => entry.feature === 'schedules')!;
    expect(schedules).toMatchObject({
      status: 'experimental',
      required_tier: 'L2',
      tiers: ['L2', 'L2+', 'L4'],
    });
    expect(schedules.limits.L1).toEqual({});
    expect(schedules.limits.L2).toEqual({ schedules_per_agent: 25 });
    expect(allowedTiers('dedicated_log')).toEqual(['L4']);
  });

  it('has limits that never shrink from one tier to the next', () => {
    const atMost = (a: number | null, b: number | null) => b === null || (a !== null && a <= b);
    for (let i = 1; i < TIERS.length; i++) {
      const lower = PLATFORM_TIER_LIMITS[TIERS[i - 1]!];
      const higher = PLATFORM_TIER_LIMITS[TIERS[i]!];
      for (const name of Object.keys(lower) as (keyof typeof lower)[])
        expect(atMost(lower[name], higher[name])).toBe(true);
    }
  });

  it('gives a tier no capacity for a feature it lacks', () => {
    expect(PLATFORM_TIER_LIMITS.L1.schedules_per_agent).toBe(0);
    expect(PLATFORM_TIER_LIMITS.L2.concurrent_sub_agents).toBe(0);
  });

  it('says what each tier adds', () => {
    expect(
      tierCatalog().map((t) => [
        t.tier,
        t.adds.filter((f) =>
          [
            'schedules',
            'dream_tasks',
            'sub_agents',
            'email_channel',
            'messaging_channel',
            'dedicated_log',
          ].includes(f),
        ),
      ]),
    ).toEqual([
      ['L1', []],
      ['L2', ['schedules', 'dream_tasks']],
      ['L2+', ['sub_agents', 'email_channel', 'messaging_channel']],
      ['L4', ['dedicated_log']],
    ]);
    expect(tierCatalog()[3]!.features).toHaveLength(FEATURES.length);
  });
});
