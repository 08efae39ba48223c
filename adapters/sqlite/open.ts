import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/**
 * Opens a SQLite file for one of the embedded adapters: WAL so readers never block the writer,
 * `synchronous=FULL` so a commit is on disk (fsync of the WAL) before it is acknowledged, and a busy
 * timeout so several processes sharing the file (the topology test does) wait instead of failing.
 */
export function openSqlite(file: string): SqliteDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  // Bigger page cache and memory-mapped reads: read-all and rebuild are read-heavy scans.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  return db;
}
