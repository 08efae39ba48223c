/**
 * Direct, read-only access to the embedded event store's SQLite file: raw rows by position range, so
 * that each worker thread reads its own chunks without the rows crossing threads.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { EVENT_COLUMNS, type RawEventRow } from '../adapters/sqlite/event-store';

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
  private readonly range: Database.Statement<[number, number], RawEventRow>;

  constructor(readonly file: string) {
    if (!fs.existsSync(file)) throw new AuditSourceError(`${file} does not exist: no event store to audit`);
    try {
      this.db = new Database(file, { readonly: true, fileMustExist: true });
      // Rows are read once, in order: a small page cache is enough.
      this.db.pragma('cache_size = -2048');
      // No mmap: mapped pages would count in the resident set and grow it with the file's size.
      this.db.pragma('mmap_size = 0');
      this.range = this.db
        .prepare<[number, number], RawEventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE position >= ? AND position < ? ORDER BY position`,
        )
        .raw(true);
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

  /** The events with from ≤ position < to, in position order. */
  rows(from: number, to: number): RawEventRow[] {
    return this.range.all(from, to);
  }

  close(): void {
    this.db.close();
  }
}
