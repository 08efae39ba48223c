/**
 * Direct, read-only access to the embedded event store's SQLite file: raw rows by position range, so
 * that each worker thread reads its own chunks without the rows crossing threads.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { EVENT_COLUMNS, type RawEventRow } from '../adapters/sqlite/event-store';
import type { LogEventRow } from './log-checks';

/** The columns of a LogEventRow, in its order. */
const LOG_EVENT_COLUMNS = 'position, id, stream, revision, type, data';

/** The source cannot be read at all (missing file, not an event store…): nothing was audited. */
export class AuditSourceError extends Error {
  override readonly name = 'AuditSourceError';
}

export interface StoreBounds {
  first: number;
  last: number;
  count: number;
}

export class StoreFileReader {
  private readonly db: Database.Database;
  private readonly range: Database.Statement<[number, number, number], RawEventRow>;
  private readonly logRange: Database.Statement<[number, number, number], LogEventRow>;
  private readonly nth: Database.Statement<[number, number], number>;

  constructor(readonly file: string) {
    if (!fs.existsSync(file)) throw new AuditSourceError(`${file} does not exist: no event store to audit`);
    try {
      this.db = new Database(file, { readonly: true, fileMustExist: true });
      // Rows are read once, in order: a small page cache is enough, and one this small (256 KiB) stays
      // in the CPU's own caches (measured: ~0.3 µs less per row than 2 MiB).
      this.db.pragma('cache_size = -256');
      // No mmap: mapped pages would count in the resident set and grow it with the file's size.
      this.db.pragma('mmap_size = 0');
      this.range = this.db
        .prepare<[number, number, number], RawEventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE position >= ? AND position < ? ORDER BY position LIMIT ?`,
        )
        .raw(true);
      this.logRange = this.db
        .prepare<[number, number, number], LogEventRow>(
          `SELECT ${LOG_EVENT_COLUMNS} FROM events WHERE position >= ? AND position < ? ORDER BY position LIMIT ?`,
        )
        .raw(true);
      this.nth = this.db
        .prepare<[number, number], number>(
          'SELECT position FROM events WHERE position >= ? ORDER BY position LIMIT 1 OFFSET ?',
        )
        .pluck();
    } catch (error) {
      throw new AuditSourceError(`${file} is not a readable event store: ${(error as Error).message}`);
    }
  }

  /** First and last position, and the number of events (all 0 for an empty store). */
  bounds(): StoreBounds {
    const row = this.db
      .prepare<[], [number | null, number | null, number]>(
        'SELECT MIN(position), MAX(position), COUNT(*) FROM events',
      )
      .raw(true)
      .get()!;
    return { first: row[0] ?? 0, last: row[1] ?? 0, count: row[2] };
  }

  /** The events with from ≤ position < to, in position order; at most `limit` of them. */
  rows(from: number, to: number, limit = Number.MAX_SAFE_INTEGER): RawEventRow[] {
    return this.range.all(from, to, limit);
  }

  /** As rows(), with only the columns a log audit reads (LogEventRow): fewer values to build per row. */
  logRows(from: number, to: number, limit = Number.MAX_SAFE_INTEGER): LogEventRow[] {
    return this.logRange.all(from, to, limit);
  }

  /** The position of the `n`th event (0 first) at or after `from`; null when there are not that many. */
  positionAfter(from: number, n: number): number | null {
    return this.nth.get(from, n) ?? null;
  }

  close(): void {
    this.db.close();
  }
}
