import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventStoreContract } from '../../ports/contract/event-store.contract';
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
