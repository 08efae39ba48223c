import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Statement } from 'better-sqlite3';
import { eventStoreContract } from '../../ports/contract/event-store.contract';
import { until } from '../../tests/support/service-processes';
import { tempDir } from '../../tests/support/temp-dir';
import { SqliteEventStore } from './event-store';

const maxEventBytes = 64 * 1024;

eventStoreContract('embedded SQLite', {
  maxEventBytes,
  create: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gov-es-'));
    const store = new SqliteEventStore({ file: path.join(dir, 'events.db'), maxEventBytes });
    return {
      store,
      dispose: async () => {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

// The same contract with every group committed on the writer thread (the server's default).
eventStoreContract('embedded SQLite, writer thread', {
  maxEventBytes,
  create: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gov-es-thread-'));
    const store = new SqliteEventStore({
      file: path.join(dir, 'events.db'),
      maxEventBytes,
      writerThread: true,
    });
    return {
      store,
      dispose: async () => {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

describe('SqliteEventStore: a filtered subscription', () => {
  it('given appends of other types by another connection, when it is woken by them, then it reads on from the head, not again from its last match', async () => {
    const { dir, remove } = tempDir('gov-es-filtered');
    const file = path.join(dir, 'events.db');
    const ours = new SqliteEventStore({ file, pollIntervalMs: 2 });
    const theirs = new SqliteEventStore({ file });
    // Where each filtered read of the file starts.
    const starts: number[] = [];
    const store = ours as unknown as { filteredPageStatement(...args: unknown[]): Statement };
    const prepared = store.filteredPageStatement.bind(ours);
    jest.spyOn(store, 'filteredPageStatement').mockImplementation((...args) => {
      const statement = prepared(...args);
      return {
        all: (after: number, limit: number) => {
          starts.push(after);
          return statement.all(after, limit);
        },
        get: (...params: unknown[]) => statement.get(...params),
      } as unknown as Statement;
    });
    const event = (type: string) => ({ type, data: {}, tenant_id: 't', correlation_id: 'c' });
    const subscription = ours.subscribeToAll({ after: 0, filter: { eventTypes: ['KeyRotated'] } });
    const batches = subscription[Symbol.asyncIterator]();
    try {
      await theirs.append('key-1', [event('KeyRotated')]);
      expect((await batches.next()).value.map((e: { position: number }) => e.position)).toEqual([1]);
      const next = batches.next();
      for (let i = 0; i < 5; i++) await theirs.append(`other-${i}`, [event('Admitted')]);
      const readsBefore = starts.length;
      await until(() => starts.length > readsBefore, 'a read after the five appends', 5_000);
      await theirs.append('key-2', [event('KeyRotated')]);
      expect((await next).value.map((e: { position: number }) => e.position)).toEqual([7]);
      // The read that found it started where the one before had looked through (the head then),
      // not after the last match (1).
      expect(starts.at(-1)).toBe(6);
    } finally {
      await subscription.close();
      await ours.close();
      await theirs.close();
      remove();
    }
  });
});
