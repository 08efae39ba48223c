import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/**
 * How a commit survives a power loss (a process crash loses nothing either way in WAL mode):
 *   durable   `synchronous=FULL`: the WAL is fsynced before a commit returns (the event store: an
 *             acknowledged event is never lost);
 *   derived   `synchronous=NORMAL`: fsync at checkpoints only; a power loss may roll the newest commits
 *             back, never corrupt the file (the read store: everything in it is derived from events,
 *             and each change commits with the checkpoint of the events that caused it, so a rollback
 *             is replayed; a rolled-back delivery attempt is sent again, which at-least-once allows).
 */
export type Durability = 'durable' | 'derived';

/**
 * Opens a SQLite file for one of the embedded adapters: WAL so readers never block the writer, the
 * durability its content needs, and a busy timeout so several processes sharing the file (the topology
 * test does) wait instead of failing.
 */
export function openSqlite(
  file: string,
  durability: Durability = 'durable',
  /** Page cache of this connection; a connection that only appends or scans forward needs little. */
  cacheMiB = 64,
  /** Page size of a file this open creates (a power of two, 512–65536); an existing file keeps its own. */
  newFilePageBytes?: number,
): SqliteDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  // Only an empty database takes a page size (and only before WAL is on); otherwise a no-op.
  if (newFilePageBytes !== undefined) db.pragma(`page_size = ${Math.trunc(newFilePageBytes)}`);
  db.pragma('journal_mode = WAL');
  db.pragma(durability === 'durable' ? 'synchronous = FULL' : 'synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = -${Math.round(cacheMiB * 1024)}`);
  // Read, never memory-mapped: every page of a mapped file a connection touches counts in the
  // process's resident set and stays there, so a server following files that grow without end grew
  // its RSS with them (up to the map size, per connection: ~80 MiB in a 4-minute soak at 300
  // admissions/s). The kernel's page cache still holds the file; reads copy from it.
  db.pragma('mmap_size = 0');
  return db;
}
