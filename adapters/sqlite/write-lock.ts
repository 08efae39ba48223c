/**
 * Taking SQLite's write lock on a connection that may wait for it by blocking (a writer thread).
 * SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25 … ms between tries: where several processes
 * append to one file (the topology on one machine), a waiter slept on long after a commit of a
 * millisecond had released the lock, and every commit behind it waited too. Here the lock is tried
 * again every fraction of a millisecond, up to the same deadline as the busy timeout's.
 */
import type { SqliteDatabase } from './open';

/** Between tries: short at first (another process's commit takes about a millisecond), then longer. */
const RETRY_DELAYS_MS = [0.05, 0.1, 0.2, 0.5, 1];
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Makes `db` report a held lock at once (SQLITE_BUSY), for `beginImmediate` to retry. */
export function retryLocksHere(db: SqliteDatabase): void {
  db.pragma('busy_timeout = 0');
}

/**
 * `BEGIN IMMEDIATE` on a connection set up by `retryLocksHere`, retried while another connection holds
 * the write lock; throws SQLITE_BUSY after `timeoutMs`, as the busy timeout would.
 */
export function beginImmediate(db: SqliteDatabase, timeoutMs = 10_000): void {
  const deadline = performance.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      db.exec('BEGIN IMMEDIATE');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() > deadline) throw error;
      Atomics.wait(sleeper, 0, 0, RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!);
    }
  }
}
