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
