import type { Collection, Db } from 'mongodb';
import type { LeaseGrant, LeaseManager } from '../../ports/lease';
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
        await this.records.insertOne({ _id: recordId(name, epoch), name, epoch, owner, expiresAt });
        return { name, owner, epoch, expiresAt };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Another instance took this epoch first; look again (it now holds a live lease).
      }
    }
    return null;
  }

  async renew(grant: LeaseGrant, ttlMs: number): Promise<LeaseGrant | null> {
    const expiresAt = this.now() + ttlMs;
    const current = await currentLease(this.records, grant.name);
    // Same epoch means nobody took it over, so extending even a lapsed grant is safe. Should the
    // lapsed grant be taken between this read and the update, the grant returned is stale, and the
    // read store's fence check refuses it.
    if (!current || current.epoch !== grant.epoch || current.owner !== grant.owner) return null;
    await this.extend(current, expiresAt);
    return { ...grant, expiresAt };
  }

  async release(grant: LeaseGrant): Promise<void> {
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

  private async extend(record: LeaseRecord, expiresAt: number): Promise<void> {
    await this.records.updateOne({ _id: record._id, owner: record.owner }, { $set: { expiresAt } });
  }
}

/** Unambiguous: the epoch (digits) follows the last `#`, whatever the name holds. */
function recordId(name: string, epoch: number): string {
  return `${name}#${epoch}`;
}
