/**
 * Tenants whose load must meet no limit while their leaves stay in the shared log (the test or
 * benchmark reads /gov/v1/log, audits it, or measures it) get `UNLIMITED_IN_SHARED_LOG`: L2+ (no daily
 * leaf limit) with L4's requests per minute as the tenant's own allowance. L4 itself would move the
 * tenant's leaves to its dedicated log: a test about L4 uses L4. No jest here: the benchmarks use it.
 */
import path from 'node:path';
import { SqliteEventStore } from '../../adapters/sqlite/event-store';
import { changeTier } from '../../cli/tenant-tier';
import { TIER_LIMITS } from '../../domain/governance/tier-limits';
import { ValidatingEventStore } from '../../event-schemas';
import type { EventStore } from '../../ports/event-store';
import type { RunningServer } from '../../runtime/wiring/embedded';
import { until } from './service-processes';

/** The tier change (`gov tenant tier <id> L2+ --requests-per-minute 10000`). */
export const UNLIMITED_IN_SHARED_LOG = {
  tier: 'L2+',
  requestsPerMinute: String(TIER_LIMITS.L4.requestsPerMinute),
} as const;

/** The same as `gov tenant tier` arguments after the tenant id. */
export const UNLIMITED_IN_SHARED_LOG_ARGS = [
  UNLIMITED_IN_SHARED_LOG.tier,
  '--requests-per-minute',
  UNLIMITED_IN_SHARED_LOG.requestsPerMinute,
];

/** On an embedded server of this process: the change, then its read models have it. */
export async function unlimitedInSharedLog(server: RunningServer, tenantId: string): Promise<void> {
  const { eventStore, config } = server.services;
  await makeUnlimitedInSharedLog(eventStore, path.join(config.dataDir, 'keys'), tenantId, 'test');
  await server.supervisor.waitForPosition(
    await eventStore.headPosition({ eventTypes: ['TenantTierChanged'] }),
    ['TenantTierChanged'],
  );
}

/** In an event store a server of another process reads (`keysDir`: its data folder's keys). */
async function makeUnlimitedInSharedLog(
  store: EventStore,
  keysDir: string,
  tenantId: string,
  operator: string,
): Promise<void> {
  const changed = await changeTier(store, { keysDir, tenantId, operator, ...UNLIMITED_IN_SHARED_LOG });
  if (!changed.ok) throw new Error(`changeTier failed: ${changed.message}`);
}

/** In the embedded event store file of a server running in another process (its data folder's). */
export function makeUnlimitedInSharedLogFile(
  eventStoreFile: string,
  tenantId: string,
  operator: string,
): Promise<void> {
  return changeTiersInFile(eventStoreFile, [{ tenantId, ...UNLIMITED_IN_SHARED_LOG }], operator);
}

/**
 * Tier changes (as `gov tenant tier` makes them: to L4, the tenant's dedicated log first) in the
 * embedded event store file of servers running in other processes, whose data folder holds the file
 * and the keys folder.
 */
export async function changeTiersInFile(
  eventStoreFile: string,
  changes: readonly ({ tenantId: string } & TierChange)[],
  operator: string,
): Promise<void> {
  const store = new ValidatingEventStore(new SqliteEventStore({ file: eventStoreFile }));
  try {
    for (const change of changes) {
      const result = await changeTier(store, {
        keysDir: path.join(path.dirname(eventStoreFile), 'keys'),
        operator,
        ...change,
      });
      if (!result.ok) throw new Error(`changeTier ${change.tenantId} ${change.tier}: ${result.message}`);
    }
  } finally {
    await store.close();
  }
}

/** A tier change as `changeTiersInFile` takes it, without the tenant. */
export interface TierChange {
  tier: string;
  requestsPerMinute?: string;
}

/** Whether GET /account answers a tier change (its tier, and its own requests per minute when it sets one). */
export function hasTierChange(
  account: { tier?: string; limits?: { requests_per_minute?: number } },
  change: TierChange,
): boolean {
  return (
    account.tier === change.tier &&
    (change.requestsPerMinute === undefined ||
      account.limits?.requests_per_minute === Number(change.requestsPerMinute))
  );
}

/** Whether GET /account answers the tenant's lifted limits. */
function isUnlimitedInSharedLog(account: Parameters<typeof hasTierChange>[0]) {
  return hasTierChange(account, UNLIMITED_IN_SHARED_LOG);
}

/** Waits until `reads` (a read API, or the server itself) answers the tenant's lifted limits. */
export function untilUnlimitedInSharedLog(
  /** A GovClient (tests/support/governance-client.ts, not imported: the benchmarks' build has no jest). */
  reads: { get<T>(path: string, apiKey?: string): Promise<{ body: T }> },
  apiKey: string,
  timeoutMs = 20_000,
): Promise<void> {
  return until(
    async () =>
      isUnlimitedInSharedLog(
        (await reads.get<Parameters<typeof isUnlimitedInSharedLog>[0]>('/account', apiKey)).body,
      ),
    'the tier change to reach the read models',
    timeoutMs,
  );
}
