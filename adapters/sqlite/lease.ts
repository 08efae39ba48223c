import type { LeaseGrant, LeaseManager } from '../../ports/lease';
import type { SqliteDatabase } from './open';

interface LeaseRow {
  owner: string;
  epoch: number;
  expires_at: number;
}

/**
 * Leases in the read-store file, so that `SqliteReadStore.apply` checks the fence in the same
 * transaction as the write. Processes sharing the file share the leases.
 */
export class SqliteLeaseManager implements LeaseManager {
  private readonly select;
  private readonly insert;
  private readonly take;
  private readonly extend;
  private readonly expire;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number = Date.now,
  ) {
    ensureLeaseTable(db);
    this.select = db.prepare<[string], LeaseRow>(
      'SELECT owner, epoch, expires_at FROM leases WHERE name = ?',
    );
    this.insert = db.prepare('INSERT INTO leases (name, owner, epoch, expires_at) VALUES (?, ?, 1, ?)');
    this.take = db.prepare('UPDATE leases SET owner = ?, epoch = epoch + 1, expires_at = ? WHERE name = ?');
    this.extend = db.prepare('UPDATE leases SET expires_at = ? WHERE name = ? AND owner = ? AND epoch = ?');
    this.expire = db.prepare('UPDATE leases SET expires_at = 0 WHERE name = ? AND owner = ? AND epoch = ?');
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<LeaseGrant | null> {
    return this.db
      .transaction((): LeaseGrant | null => {
        const now = this.now();
        const expiresAt = now + ttlMs;
        const row = this.select.get(name);
        if (!row) {
          this.insert.run(name, owner, expiresAt);
          return { name, owner, epoch: 1, expiresAt };
        }
        if (row.owner === owner && row.expires_at > now) {
          this.extend.run(expiresAt, name, owner, row.epoch);
          return { name, owner, epoch: row.epoch, expiresAt };
        }
        if (row.expires_at > now) return null;
        // Lapsed (or released): a new epoch fences out whoever held it before, even the same owner.
        this.take.run(owner, expiresAt, name);
        return { name, owner, epoch: row.epoch + 1, expiresAt };
      })
      .immediate();
  }

  async renew(grant: LeaseGrant, ttlMs: number): Promise<LeaseGrant | null> {
    const expiresAt = this.now() + ttlMs;
    // Same epoch means nobody took it over, so extending even a lapsed grant is safe.
    const { changes } = this.extend.run(expiresAt, grant.name, grant.owner, grant.epoch);
    return changes === 1 ? { ...grant, expiresAt } : null;
  }

  async release(grant: LeaseGrant): Promise<void> {
    this.expire.run(grant.name, grant.owner, grant.epoch);
  }

  async holder(name: string): Promise<string | null> {
    const row = this.select.get(name);
    return row && row.expires_at > this.now() ? row.owner : null;
  }
}

function ensureLeaseTable(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE IF NOT EXISTS leases (
    name TEXT PRIMARY KEY, owner TEXT NOT NULL, epoch INTEGER NOT NULL, expires_at INTEGER NOT NULL
  ) WITHOUT ROWID`);
}

/**
 * A check that `grant` is still the current one (same owner and epoch), for use inside the write
 * transaction it fences.
 */
export function prepareFenceCheck(db: SqliteDatabase): (grant: LeaseGrant) => boolean {
  ensureLeaseTable(db);
  const select = db.prepare<[string], LeaseRow>('SELECT owner, epoch, expires_at FROM leases WHERE name = ?');
  return (grant) => {
    const row = select.get(grant.name);
    return Boolean(row && row.owner === grant.owner && row.epoch === grant.epoch);
  };
}
