import type { ExportableEventStore, ImportableEventStore } from '../adapters/ndjson/event-stores';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import { ValidatingEventStore } from '../event-schemas';
import type { EventStore } from '../ports/event-store';
import { type Config, loadConfig } from '../runtime/config';

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

export const SUPPORTED_STORES_HELP = `Supported stores: the embedded SQLite event store only. EventStoreDB is not supported yet (this
release has no EventStoreDB adapter).`;

/** The configured event store, as export and import see it. */
export interface TransferStore {
  store: ExportableEventStore & ImportableEventStore & { close(): Promise<void> };
  /** Names the store in messages and in an export's header, e.g. `sqlite:/data/events.db`. */
  name: string;
}

/**
 * Opens the event store the server is configured with (created empty if missing). The one place a
 * second kind of store (EventStoreDB) would be chosen: it needs only the two small interfaces of
 * adapters/ndjson/event-stores.ts.
 */
export function openTransferStore(config: Config): TransferStore {
  return {
    store: new SqliteEventStore({ file: config.eventStoreFile }),
    name: `sqlite:${config.eventStoreFile}`,
  };
}
