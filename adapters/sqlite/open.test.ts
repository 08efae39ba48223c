import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../tests/support/temp-dir';
import { SqliteEventStore } from './event-store';
import { SqliteReadStore } from './read-store';

/** SQLite's `synchronous` levels: 1 NORMAL, 2 FULL. */
const NORMAL = 1;
const FULL = 2;

describe('durability of the embedded stores', () => {
  it('given the event store, then every commit is fsynced (FULL); given the read store, then NORMAL', async () => {
    const temp = tempDir('gov-open');
    const events = new SqliteEventStore({ file: path.join(temp.dir, 'events.db') });
    const reads = new SqliteReadStore(path.join(temp.dir, 'read.db'));
    try {
      // The adapters keep their connection private; read the level through the same file's pragma.
      const level = (store: object) =>
        (store as { db: { pragma(text: string, options: { simple: true }): number } }).db.pragma(
          'synchronous',
          {
            simple: true,
          },
        );
      expect(level(events)).toBe(FULL);
      expect(level(reads)).toBe(NORMAL);
    } finally {
      await events.close();
      await reads.close();
      temp.remove();
    }
  });
});

/** Whether this process maps `file` itself into memory (Linux's /proc/self/maps). */
function maps(file: string): boolean {
  return fs
    .readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .some((line) => line.endsWith(` ${file}`));
}

const onLinux = fs.existsSync('/proc/self/maps');

describe('memory of the embedded stores', () => {
  // Mapped pages count in the resident set and stay there: a server following files that grow without
  // end would grow its RSS with them.
  (onLinux ? it : it.skip)(
    'given stores read from end to end, then their files are read, not mapped into memory (needs Linux /proc/self/maps)',
    async () => {
      const temp = tempDir('gov-open-mmap');
      const eventsFile = path.join(temp.dir, 'events.db');
      const readsFile = path.join(temp.dir, 'read.db');
      const events = new SqliteEventStore({ file: eventsFile });
      const reads = new SqliteReadStore(readsFile);
      try {
        const filler = 'x'.repeat(4000);
        await events.append(
          'stream-1',
          Array.from({ length: 200 }, () => ({
            type: 'Filled',
            data: { filler },
            tenant_id: 'tenant-1',
            correlation_id: 'correlation-1',
          })),
        );
        await reads.apply(
          Array.from({ length: 200 }, (_, i) => ({
            kind: 'upsert' as const,
            collection: 'filled',
            id: `doc-${i}`,
            position: 1,
            data: { filler },
          })),
        );
        let read = 0;
        for await (const _event of events.readAll()) read++;
        const page = await reads.find('filled', { limit: 500 });
        expect(read).toBe(200);
        expect(page.items).toHaveLength(200);
        expect(maps(eventsFile)).toBe(false);
        expect(maps(readsFile)).toBe(false);
      } finally {
        await events.close();
        await reads.close();
        temp.remove();
      }
    },
  );
});

describe('memory-mapped reads of a backlog', () => {
  /** Moves the appended events from the WAL into the file itself: only the file is ever mapped. */
  const checkpoint = (store: SqliteEventStore) =>
    (store as unknown as { db: { pragma(text: string): unknown } }).db.pragma('wal_checkpoint(TRUNCATE)');
  /**
   * 35 events appended by another connection, whose commit leaves them in the file (a store reads
   * back what it appended itself from memory: recent-appends.ts).
   */
  const backlog = async (file: string) => {
    const writer = new SqliteEventStore({ file });
    await writer.append('stream-1', events(35));
    checkpoint(writer);
    await writer.close();
  };
  const events = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      type: 'Counted',
      data: { i, filler: 'x'.repeat(1000) },
      tenant_id: 'tenant-1',
      correlation_id: 'correlation-1',
    }));

  (onLinux ? it : it.skip)(
    'given a read of all events that finds full pages, then the file is mapped while it reads and unmapped when it is done (needs Linux /proc/self/maps)',
    async () => {
      const temp = tempDir('gov-scan-map');
      const file = path.join(temp.dir, 'events.db');
      await backlog(file);
      const store = new SqliteEventStore({ file, pageSize: 10 });
      try {
        const mappedAt: boolean[] = [];
        for await (const event of store.readAll()) if (event.revision % 10 === 5) mappedAt.push(maps(file));
        // Read at revisions 5, 15 and 25: the first page is read before the backlog is known.
        expect(mappedAt).toEqual([false, true, true]);
        expect(maps(file)).toBe(false);
        // A short read (less than a page) never maps the file.
        for await (const _event of store.readAll({ after: 30 })) expect(maps(file)).toBe(false);
      } finally {
        await store.close();
        temp.remove();
      }
    },
  );

  (onLinux ? it : it.skip)(
    'given a subscription catching up, then the file is mapped for its full batches and unmapped once it follows the head (needs Linux /proc/self/maps)',
    async () => {
      const temp = tempDir('gov-scan-map');
      const file = path.join(temp.dir, 'events.db');
      await backlog(file);
      const store = new SqliteEventStore({ file });
      try {
        const subscription = store.subscribeToAll({ after: null, maxBatchSize: 10 });
        const seen: Array<{ size: number; mapped: boolean }> = [];
        for await (const batch of subscription) {
          seen.push({ size: batch.length, mapped: maps(file) });
          if (seen.length === 4) break;
        }
        // The first full batch was read before the backlog was known; the short one unmaps the file.
        expect(seen).toEqual([
          { size: 10, mapped: false },
          { size: 10, mapped: true },
          { size: 10, mapped: true },
          { size: 5, mapped: false },
        ]);
        await subscription.close();
        expect(maps(file)).toBe(false);
      } finally {
        await store.close();
        temp.remove();
      }
    },
  );
});
