/**
 * The embedded event store's writer thread (the server's default): what the contract suite cannot
 * show, a writer thread that dies.
 */
import path from 'node:path';
import { tempDir } from '../../tests/support/temp-dir';
import { SqliteEventStore } from './event-store';
import type { EventWriterThread } from './event-writer';

const event = (id: string) => ({ id, type: 'Noted', data: { id }, tenant_id: 't', correlation_id: 'c' });

describe('the event store writer thread', () => {
  const temp = tempDir('event-writer');
  afterAll(() => temp.remove());

  it('given a writer thread that died between appends, when the next append comes, then a new thread commits it after the earlier ones', async () => {
    const store = new SqliteEventStore({ file: path.join(temp.dir, 'events.db'), writerThread: true });
    try {
      const first = await store.append('s', [event('00000000-0000-4000-8000-000000000001')]);
      // biome-ignore lint/complexity/useLiteralKeys: the test ends the private thread to play a crash
      const writer = store['writer'] as EventWriterThread;
      // biome-ignore lint/complexity/useLiteralKeys: as above
      await writer['thread']!.terminate();

      const second = await store.append('s', [event('00000000-0000-4000-8000-000000000002')], {
        expectedRevision: 0,
      });
      expect(second).toEqual({ nextRevision: 1, position: first.position + 1 });
      const stored = [];
      for await (const recorded of store.readStream('s')) stored.push(recorded.id);
      expect(stored).toEqual([
        '00000000-0000-4000-8000-000000000001',
        '00000000-0000-4000-8000-000000000002',
      ]);
    } finally {
      await store.close();
    }
  });

  it('given appends in flight, when the store closes, then each is committed before it does', async () => {
    const file = path.join(temp.dir, 'closing.db');
    const store = new SqliteEventStore({ file, writerThread: true });
    const appends = Array.from({ length: 50 }, (_, i) =>
      store.append(`s-${i}`, [event(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)]),
    );
    await store.close();
    await expect(Promise.all(appends)).resolves.toHaveLength(50);
    const reopened = new SqliteEventStore({ file });
    expect(await reopened.headPosition()).toBe(50);
    await reopened.close();
  });
});
