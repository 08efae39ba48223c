import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import { ValidatingEventStore } from '../event-schemas';
import type { EventStore } from '../ports/event-store';
import { loadConfig } from '../runtime/config';

export interface OperatorStores {
  eventStore: EventStore;
  readStore: SqliteReadStore;
  close(): Promise<void>;
}

/**
 * Opens the stores as the server finds them (GOV_DATA_DIR, GOV_EVENT_STORE_FILE, GOV_READ_STORE_FILE),
 * runs `work` and closes them whatever happens.
 */
export async function withOperatorStores<T>(work: (stores: OperatorStores) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const eventStore = new ValidatingEventStore(new SqliteEventStore({ file: config.eventStoreFile }));
  const readStore = new SqliteReadStore(config.readStoreFile);
  const stores: OperatorStores = {
    eventStore,
    readStore,
    async close() {
      await eventStore.close();
      await readStore.close();
    },
  };
  try {
    return await work(stores);
  } finally {
    await stores.close();
  }
}

/** Where the stores are found, for help texts. */
export const STORE_LOCATION_HELP = `Stores are found as the server finds them: GOV_DATA_DIR (default ./data), GOV_EVENT_STORE_FILE,
GOV_READ_STORE_FILE.`;
