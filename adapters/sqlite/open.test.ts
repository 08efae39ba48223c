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
