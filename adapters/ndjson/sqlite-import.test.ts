/**
 * `SqliteEventStore.importEvents`, the embedded store's side of `gov import`: the importable-store
 * contract, plus what only a shared SQLite file can show (other connections see nothing until commit).
 */
import path from 'node:path';
import type { RecordedEvent } from '../../ports/event-store';
import { tempDir } from '../../tests/support/temp-dir';
import { ImportInProgressError, SqliteEventStore } from '../sqlite/event-store';
import { HISTORY, importableStoreContract } from './importable-store.contract';

importableStoreContract('embedded SQLite', {
  create: async () => {
    const temp = tempDir('gov-import');
    const store = new SqliteEventStore({ file: path.join(temp.dir, 'events.db') });
    return {
      store,
      dispose: async () => {
        await store.close();
        temp.remove();
      },
    };
  },
});

describe('importing into the embedded SQLite store while others use the file', () => {
  let temp: ReturnType<typeof tempDir>;
  let file: string;
  let importer: SqliteEventStore;
  let reader: SqliteEventStore;

  beforeEach(() => {
    temp = tempDir('gov-import');
    file = path.join(temp.dir, 'events.db');
    importer = new SqliteEventStore({ file });
    reader = new SqliteEventStore({ file });
  });
  afterEach(async () => {
    await importer.close();
    await reader.close();
    temp.remove();
  });

  /** A source that stops after `count` events until released: an import caught in the middle. */
  function pausedAfter(count: number) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const paused = new Promise<void>((resolve) => {
      reached = resolve;
    });
    async function* events(): AsyncGenerator<RecordedEvent> {
      for (const [i, event] of HISTORY.entries()) {
        if (i === count) {
          reached();
          await released;
        }
        yield event;
      }
    }
    return { events: events(), paused, release };
  }

  it('given an import half done, then another connection sees an empty store, and the whole history once it commits', async () => {
    const source = pausedAfter(3);
    const importing = importer.importEvents(source.events);
    await source.paused;
    expect(await reader.headPosition()).toBe(0);
    source.release();
    await importing;
    expect(await reader.headPosition()).toBe(13);
  });

  it('given an import half done, then appends through the importing store are refused (they would join its transaction)', async () => {
    const source = pausedAfter(2);
    const importing = importer.importEvents(source.events);
    await source.paused;
    await expect(
      importer.append('s', [{ type: 'X', data: {}, tenant_id: 't', correlation_id: 'c' }]),
    ).rejects.toBeInstanceOf(ImportInProgressError);
    await expect(importer.importEvents((async function* () {})())).rejects.toBeInstanceOf(
      ImportInProgressError,
    );
    source.release();
    await importing;
    expect(await reader.headPosition()).toBe(13);
  });
});
