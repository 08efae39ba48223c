import type { Collection, Db } from 'mongodb';
import type { LeaseGrant, LeaseManager } from '../../ports/lease';
import { groupBy } from '../../runtime/support/group-by';
import { isDuplicateKey } from './mongo-errors';

/**
 * One document per epoch of a lease, inserted by whoever takes that epoch: the `_id` derives from
 * (name, epoch), so two instances racing for the same epoch cannot both get it (the loser meets
 * E11000). The current grant is the lease's highest epoch. Only the holder of an epoch updates its
 * document (renew, release), and only its expiry.
 *
 * Why not one document per lease updated with `findOneAndUpdate` conditions: FerretDB v1 (SQLite
 * backend) runs an update as a query followed by a separate write (FerretDB issue #3040), so two
 * conditional takeovers could both succeed and an epoch could even go backwards. An insert is atomic
 * there as everywhere, so epochs stay unique and only grow, on FerretDB as on MongoDB.
 */
export interface LeaseRecord {
  _id: string;
  name: string;
  epoch: number;
  owner: string;
  /** Milliseconds since the epoch; 0 once released. */
  expiresAt: number;
}

export const LEASES_COLLECTION = 'leases';
/** Taking a lease retries when another instance claimed the epoch first; a few rounds settle it. */
const ACQUIRE_ATTEMPTS = 5;
/**
 * A standby asks for each of its leases every third of the TTL (a dozen per process): one read of
 * every live lease answers those asked within this share of the TTL, for leases another owner holds.
 */
const LIVE_READ_TTL_SHARE = 1 / 6;

export function leaseRecords(db: Db): Collection<LeaseRecord> {
  return db.collection<LeaseRecord>(LEASES_COLLECTION);
}

/** Created at start: finding a lease's highest epoch is a seek, not a scan. */
export async function ensureLeaseIndexes(db: Db): Promise<void> {
  await leaseRecords(db).createIndex({ name: 1, epoch: -1 }, { name: 'lease:name,epoch' });
}

/** The lease's current (highest-epoch) record, or null when it was never taken. */
async function currentLease(records: Collection<LeaseRecord>, name: string): Promise<LeaseRecord | null> {
  const [latest] = await records.find({ name }).sort({ epoch: -1 }).limit(1).toArray();
  return latest ?? null;
}

/** Whether `grant` is the lease's current epoch, still held by its owner and not lapsed at `now`. */
export async function isCurrentGrant(
  records: Collection<LeaseRecord>,
  grant: LeaseGrant,
  now: number,
): Promise<boolean> {
  const current = await currentLease(records, grant.name);
  return Boolean(
    current && current.epoch === grant.epoch && current.owner === grant.owner && current.expiresAt > now,
  );
}

/**
 * Leases in the read store's database, so that `MongoReadStore.apply` checks the fence against the
 * same documents. Same semantics as the SQLite lease manager: epochs grow with every change of owner,
 * and a lapsed (or released) lease is taken with a new epoch, even by its previous owner.
 */
export class MongoLeaseManager implements LeaseManager {
  private readonly db: () => Db;
  /** Every live lease's newest record, as last read at once (see `heldByAnother`). */
  private live: { readAt: number; byName: Map<string, LeaseRecord> } | null = null;
  private readingLive: { writes: number; read: Promise<Map<string, LeaseRecord>> } | null = null;
  /** Writes of this manager so far: a read of the live leases begun before one is not kept. */
  private writes = 0;
  /** Renewals asked for since the last were made (see `renew`). */
  private renewals: AskedRenewal[] = [];

  /** @param db the database, or where to get it for each operation (a client that may be renewed). */
  constructor(
    db: Db | (() => Db),
    private readonly now: () => number = Date.now,
  ) {
    this.db = typeof db === 'function' ? db : () => db;
  }

  private get records(): Collection<LeaseRecord> {
    return leaseRecords(this.db());
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<LeaseGrant | null> {
    if (await this.heldByAnother(name, owner, ttlMs)) return null;
    for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
      const now = this.now();
      const expiresAt = now + ttlMs;
      const current = await currentLease(this.records, name);
      if (current && current.expiresAt > now) {
        if (current.owner !== owner) return null;
        await this.extend(current, expiresAt);
        return { name, owner, epoch: current.epoch, expiresAt };
      }
      // Free, lapsed or released: a new epoch fences out whoever held it before, even the same owner.
      const epoch = (current?.epoch ?? 0) + 1;
      try {
        this.wrote();
        await this.records.insertOne({ _id: recordId(name, epoch), name, epoch, owner, expiresAt });
        return { name, owner, epoch, expiresAt };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Another instance took this epoch first; look again (it now holds a live lease).
      }
    }
    return null;
  }

  /**
   * Renewals asked for at once (a process renews the leases it holds at the same moments, see
   * single-writer-lease.ts) are made together: one update for those of one TTL.
   */
  renew(grant: LeaseGrant, ttlMs: number): Promise<LeaseGrant | null> {
    return new Promise((resolve, reject) => {
      this.renewals.push({ grant, ttlMs, resolve, reject });
      if (this.renewals.length === 1) setImmediate(() => void this.renewTogether());
    });
  }

  private async renewTogether(): Promise<void> {
    const asked = this.renewals;
    this.renewals = [];
    await Promise.all(
      [...groupBy(asked, (renewal) => renewal.ttlMs).values()].map(async (group) => {
        try {
          if (group.length > 1 && (await this.extendAll(group))) return;
          await Promise.all(
            group.map(({ grant, ttlMs, resolve }) => this.renewOne(grant, ttlMs).then(resolve)),
          );
        } catch (error) {
          for (const { reject } of group) reject(error);
        }
      }),
    );
  }

  /** Extends every grant of `group` (one TTL) with one update; false unless all were. */
  private async extendAll(group: readonly AskedRenewal[]): Promise<boolean> {
    const now = this.now();
    const expiresAt = now + group[0]!.ttlMs;
    this.wrote();
    const extended = await this.records.updateMany(
      {
        $or: group.map(({ grant }) => ({ _id: recordId(grant.name, grant.epoch), owner: grant.owner })),
        expiresAt: { $gt: now },
      },
      { $set: { expiresAt } },
    );
    if (extended.matchedCount !== group.length) return false;
    for (const { grant, resolve } of group) resolve({ ...grant, expiresAt });
    return true;
  }

  private async renewOne(grant: LeaseGrant, ttlMs: number): Promise<LeaseGrant | null> {
    const now = this.now();
    const expiresAt = now + ttlMs;
    this.wrote();
    // A grant that has not lapsed cannot have been taken over (taking one needs it lapsed), so one
    // update conditioned on that extends it, without reading the lease first. (The read store's fence
    // still reads each renewed grant once before trusting it.)
    const extended = await this.records.updateOne(
      { _id: recordId(grant.name, grant.epoch), owner: grant.owner, expiresAt: { $gt: now } },
      { $set: { expiresAt } },
    );
    if (extended.matchedCount === 1) return { ...grant, expiresAt };
    const current = await currentLease(this.records, grant.name);
    // Same epoch means nobody took it over, so extending even a lapsed grant is safe. Should the
    // lapsed grant be taken between this read and the update, the grant returned is stale, and the
    // read store's fence check refuses it.
    if (!current || current.epoch !== grant.epoch || current.owner !== grant.owner) return null;
    await this.extend(current, expiresAt);
    return { ...grant, expiresAt };
  }

  async release(grant: LeaseGrant): Promise<void> {
    this.wrote();
    // Only the grant's own epoch is touched: releasing a stale grant never frees a newer holder.
    await this.records.updateOne(
      { _id: recordId(grant.name, grant.epoch), owner: grant.owner },
      { $set: { expiresAt: 0 } },
    );
  }

  async holder(name: string): Promise<string | null> {
    const current = await currentLease(this.records, name);
    return current && current.expiresAt > this.now() ? current.owner : null;
  }

  /**
   * Whether a read of every live lease, at most a sixth of the TTL old, shows `name` held by another
   * owner: then taking it would fail, and asking costs no read of its own. A lease released or lapsed
   * since that read is taken at the next ask after it (the read is dropped at every write of this
   * manager, so its own releases are seen at once).
   */
  private async heldByAnother(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    let byName = this.live?.byName;
    if (!this.live || now < this.live.readAt || now - this.live.readAt >= ttlMs * LIVE_READ_TTL_SHARE) {
      if (!this.readingLive || this.readingLive.writes !== this.writes) {
        const reading = { writes: this.writes, read: this.readLive(now) };
        this.readingLive = reading;
        const done = () => {
          if (this.readingLive === reading) this.readingLive = null;
        };
        void reading.read.then(done, done);
      }
      const { writes, read } = this.readingLive;
      byName = await read;
      if (writes === this.writes) this.live = { readAt: now, byName };
    }
    const seen = byName?.get(name);
    return Boolean(seen && seen.owner !== owner && seen.expiresAt > now);
  }

  private wrote(): void {
    this.writes++;
    this.live = null;
  }

  private async readLive(now: number): Promise<Map<string, LeaseRecord>> {
    const byName = new Map<string, LeaseRecord>();
    for (const record of await this.records.find({ expiresAt: { $gt: now } }).toArray()) {
      const seen = byName.get(record.name);
      if (!seen || seen.epoch < record.epoch) byName.set(record.name, record);
    }
    return byName;
  }

  private async extend(record: LeaseRecord, expiresAt: number): Promise<void> {
    this.wrote();
    await this.records.updateOne({ _id: record._id, owner: record.owner }, { $set: { expiresAt } });
  }
}

interface AskedRenewal {
  grant: LeaseGrant;
  ttlMs: number;
  resolve(renewed: LeaseGrant | null): void;
  reject(error: unknown): void;
}

/** Unambiguous: the epoch (digits) follows the last `#`, whatever the name holds. */
function recordId(name: string, epoch: number): string {
  return `${name}#${epoch}`;
}
