import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { collect } from '../ports/contract/event-store.contract';
import { exited, lines, spawnChild, waitForLines } from './support/children';
import { tempDir } from './support/temp-dir';

const KILLS = 20;

describe('embedded event store under SIGKILL', () => {
  it(`given a child appending in a loop, when it is SIGKILLed ${KILLS} times at random moments, then every acknowledged append survives whole and positions have no gaps`, async () => {
    const { dir, remove } = tempDir('gov-crash');
    const file = path.join(dir, 'events.db');
    const acknowledged = new Set<string>();
    try {
      for (let round = 0; round < KILLS; round++) {
        const child = spawnChild('append-loop.ts', [file]);
        const out = lines(child);
        await waitForLines(out, 1 + Math.floor(Math.random() * 20));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
        child.kill('SIGKILL');
        const { signal } = await exited(child);
        expect(signal).toBe('SIGKILL');
        for (const batch of out) if (batch) acknowledged.add(batch);
      }

      const store = new SqliteEventStore({ file });
      const events = await collect(store.readAll());
      await store.close();

      const eventsPerBatch = new Map<string, number[]>();
      for (const event of events) {
        const { batch, i } = event.data as { batch: string; i: number };
        eventsPerBatch.set(batch, [...(eventsPerBatch.get(batch) ?? []), i]);
      }
      // Every acknowledged append is present…
      for (const batch of acknowledged) expect(eventsPerBatch.get(batch)).toEqual([0, 1, 2]);
      // …no append is visible in part…
      for (const [, members] of eventsPerBatch) expect(members).toEqual([0, 1, 2]);
      // …and global positions are dense, as are revisions within each stream.
      expect(events.map((e) => e.position)).toEqual(events.map((_, i) => i + 1));
      const revisions = new Map<string, number>();
      for (const event of events) {
        expect(event.revision).toBe((revisions.get(event.stream) ?? -1) + 1);
        revisions.set(event.stream, event.revision);
      }
      expect(acknowledged.size).toBeGreaterThan(KILLS);
      // The file itself is sound after the kills.
      const db = new Database(file, { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    } finally {
      remove();
    }
  });
});
