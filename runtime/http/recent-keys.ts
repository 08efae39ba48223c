/**
 * The admission path's API key lookups, remembered for a second. Finding a key reads two read-model
 * documents, and a connection that another thread commits to starts each read from a reset page
 * cache: the two reads cost ~60 µs of the main thread's ~500 per admission (at 64 connections), for
 * facts that hardly change. A key's hash and tenant never change; its expiry is
 * set once, 24 hours ahead, by a rotation; a tier changes by an operator's command. So a remembered
 * lookup may be a second old and is compared, hashed and checked for expiry on every request as a
 * fresh one is; only the tier it carries may lag an operator's change by that second (it sets the
 * requests-per-minute allowance here; trial caps and daily allowances are decided on the tenant's
 * events). A jump of the service clock (tests inject one) forgets everything remembered before it.
 */
import type { ApiKeyView, TenantView } from '../../projectors/governance/tenants';

/** What a key id named in the read models: the key, and the tenant's id and tier. */
export interface KeyRecord {
  key: ApiKeyView;
  tenant: Pick<TenantView, 'tenant_id' | 'tier'>;
}

interface Remembered {
  record: KeyRecord;
  /** Monotonic ms when it was read. */
  readAt: number;
  /** Service-clock ms when it was read. */
  readAtClock: number;
}

export class RecentKeys {
  private readonly entries = new Map<string, Remembered>();

  constructor(
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
    private readonly monotonicNow: () => number = () => performance.now(),
  ) {}

  /** The record read for `keyId` less than `ttlMs` ago, by both clocks; undefined otherwise. */
  get(keyId: string, clock: Date): KeyRecord | undefined {
    const entry = this.entries.get(keyId);
    if (!entry) return undefined;
    const clockElapsed = clock.getTime() - entry.readAtClock;
    if (this.monotonicNow() - entry.readAt < this.ttlMs && clockElapsed >= 0 && clockElapsed < this.ttlMs)
      return entry.record;
    this.entries.delete(keyId);
    return undefined;
  }

  remember(keyId: string, record: KeyRecord, clock: Date): void {
    // Map order is insertion order: the oldest goes first.
    if (this.entries.size >= this.maxEntries && !this.entries.has(keyId))
      this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyId, { record, readAt: this.monotonicNow(), readAtClock: clock.getTime() });
  }
}
