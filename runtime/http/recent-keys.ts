/**
 * The admission path's API key lookups, remembered. Finding a key reads two read-model documents
 * (on the embedded server ~60 µs of the main thread's ~500 per admission at 64 connections; in the
 * production topology two round trips to MongoDB per key and second, which were half of what its read
 * store served), for facts that hardly change: a key's hash and tenant never change; its expiry is
 * set once, 24 hours ahead, by a rotation; a tier changes by an operator's command.
 *
 * While a feed of those changes runs (`follow`, command-api/governance/tenants/key-changes.ts), a
 * record is kept for a minute and a tenant's are forgotten as soon as the feed tells of a change to
 * it (`changed`); what is read after that is kept again only once the read models show the change
 * (the positions of the documents it was read from reach the change's). Without a feed a record is
 * kept for a second, and a tier change is seen that much later (it sets the requests-per-minute
 * allowance here; trial caps and daily allowances are decided on the tenant's events). Either way a
 * record is compared, hashed and checked for expiry on every request as a fresh one is, and a jump of
 * the service clock (tests inject one) forgets everything remembered before it.
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
  /** Per tenant, the position of its latest change the feed told of. */
  private readonly changes = new Map<string, number>();
  private followed = false;

  constructor(
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
    private readonly monotonicNow: () => number = () => performance.now(),
    private readonly followedTtlMs = 60_000,
  ) {}

  /**
   * Whether a feed tells every change (`changed`): records are then kept `followedTtlMs`. What was
   * remembered before it began may predate a change it was not there to tell: forgotten.
   */
  follow(following: boolean): void {
    if (following && !this.followed) this.entries.clear();
    this.followed = following;
  }

  get following(): boolean {
    return this.followed;
  }

  /** The record read for `keyId` within the time records are kept, by both clocks; undefined otherwise. */
  get(keyId: string, clock: Date): KeyRecord | undefined {
    const entry = this.entries.get(keyId);
    if (!entry) return undefined;
    const ttl = this.followed ? this.followedTtlMs : this.ttlMs;
    const clockElapsed = clock.getTime() - entry.readAtClock;
    if (this.monotonicNow() - entry.readAt < ttl && clockElapsed >= 0 && clockElapsed < ttl)
      return entry.record;
    this.entries.delete(keyId);
    return undefined;
  }

  /**
   * Remembers what was read for `keyId` from documents at positions up to `readThrough`, unless a
   * change to its tenant told since is further on (the read models have not applied it yet).
   */
  remember(keyId: string, record: KeyRecord, clock: Date, readThrough = Number.POSITIVE_INFINITY): void {
    if (readThrough < (this.changes.get(record.tenant.tenant_id) ?? 0)) return;
    // Map order is insertion order: the oldest goes first.
    if (this.entries.size >= this.maxEntries && !this.entries.has(keyId))
      this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyId, { record, readAt: this.monotonicNow(), readAtClock: clock.getTime() });
  }

  /** The tenant's keys or tier changed at `position`: forget its records until the read models show it. */
  changed(tenantId: string, position: number): void {
    for (const [keyId, entry] of this.entries)
      if (entry.record.tenant.tenant_id === tenantId) this.entries.delete(keyId);
    if (this.changes.size >= this.maxEntries && !this.changes.has(tenantId))
      this.changes.delete(this.changes.keys().next().value as string);
    this.changes.set(tenantId, Math.max(position, this.changes.get(tenantId) ?? 0));
  }
}
