import path from 'node:path';
import { EsdbEventStore } from '../adapters/eventstoredb/event-store';
import { isEventStoreDbUrl, redactConnectionString } from '../adapters/eventstoredb/mapping';
import type {
  ExportableEventStore,
  ImportableEventStore,
  RepositioningImportTarget,
} from '../adapters/ndjson/event-stores';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import { type AuditSource, AuditSourceError, eventsAuditSource, sqliteAuditSource } from '../audit';
import { ValidatingEventStore } from '../event-schemas';
import type { EventStore } from '../ports/event-store';
import { type Config, loadConfig } from '../runtime/config/config';
import { UsageError } from './command';

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

export const SUPPORTED_STORES_HELP = `Supported stores: the embedded SQLite event store (a file), and EventStoreDB (22.6 or later;
written for 24.10) named by a URL: esdb://host:2113?tls=false for one insecure node,
esdb://user:password@host:2113 with TLS, esdb+discover://cluster-dns:2113 for a cluster. Give it with
--store URL, or set GOV_EVENT_STORE_URL.`;

/** How long an operator command waits for EventStoreDB's first answer before it gives up (exit 1). */
const EVENT_STORE_CONNECT_TIMEOUT_MS = 5_000;

/** The event store an operator command works on. */
export type EventStoreLocation = { kind: 'sqlite'; file: string } | { kind: 'eventstoredb'; url: string };

/**
 * The one place an operator command's event store is chosen: `--store` (an esdb:// or esdb+discover://
 * URL, else a SQLite file), else the server's configured store, GOV_EVENT_STORE_URL before
 * GOV_EVENT_STORE_FILE (the configuration is read only then).
 */
export function chooseEventStore(
  store: string | undefined,
  configOf: () => Pick<Config, 'eventStoreFile' | 'eventStoreUrl'> = loadConfig,
): EventStoreLocation {
  if (store === undefined) {
    const config = configOf();
    return config.eventStoreUrl
      ? { kind: 'eventstoredb', url: config.eventStoreUrl }
      : { kind: 'sqlite', file: config.eventStoreFile };
  }
  const value = store.trim();
  if (value === '') throw new UsageError('--store needs a file or an esdb:// URL');
  if (isEventStoreDbUrl(value)) return { kind: 'eventstoredb', url: value };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    throw new UsageError(
      `--store: '${redactConnectionString(value)}' is neither a file nor an EventStoreDB URL (esdb://host:2113?tls=false)`,
    );
  return { kind: 'sqlite', file: path.resolve(value) };
}

/** Names the store in messages and in an export's header, never with a password. */
export function storeName(location: EventStoreLocation): string {
  return location.kind === 'sqlite' ? `sqlite:${location.file}` : redactConnectionString(location.url);
}

/**
 * How a store takes an import: the embedded one in one transaction, positions kept (`atomic`);
 * EventStoreDB event by event, with positions of its own (`repositioning`).
 */
type ImportTarget =
  | { kind: 'atomic'; store: ImportableEventStore }
  | { kind: 'repositioning'; store: RepositioningImportTarget };

/** The configured event store, as export and import see it. */
export interface TransferStore {
  store: ExportableEventStore & { close(): Promise<void> };
  /** The same store, as an import writes into it. */
  importer: ImportTarget;
  /** Names the store in messages and in an export's header, e.g. `sqlite:/data/events.db`. */
  name: string;
}

/**
 * Opens the chosen event store: a SQLite file (created empty if missing), or EventStoreDB, which must
 * answer within EVENT_STORE_CONNECT_TIMEOUT_MS (EventStoreConnectionError otherwise).
 */
export async function openTransferStore(location: EventStoreLocation): Promise<TransferStore> {
  if (location.kind === 'sqlite') {
    const store = new SqliteEventStore({ file: location.file });
    return { store, importer: { kind: 'atomic', store }, name: storeName(location) };
  }
  const store = await EsdbEventStore.connect(location.url, {
    connectTimeoutMs: EVENT_STORE_CONNECT_TIMEOUT_MS,
    // An import must not refuse an event its source accepted; the server's MaxAppendSize still applies.
    maxEventBytes: Number.MAX_SAFE_INTEGER,
  });
  return { store, importer: { kind: 'repositioning', store }, name: storeName(location) };
}

/** What `gov audit` reads: the embedded store's file directly, or EventStoreDB through the port. */
export function auditSourceOf(location: EventStoreLocation): AuditSource {
  return location.kind === 'sqlite'
    ? sqliteAuditSource(location.file)
    : eventStoreDbAuditSource(location.url);
}

/**
 * EventStoreDB read through the event store port, up to the head position found when the audit starts
 * (a running server may keep appending). A node that cannot be reached or read is an AuditSourceError.
 */
function eventStoreDbAuditSource(url: string): AuditSource {
  const description = redactConnectionString(url);
  return {
    description,
    async open() {
      let store: EsdbEventStore;
      let head: number;
      try {
        store = await EsdbEventStore.connect(url, { connectTimeoutMs: EVENT_STORE_CONNECT_TIMEOUT_MS });
      } catch (error) {
        throw new AuditSourceError((error as Error).message);
      }
      try {
        head = await store.headPosition();
      } catch (error) {
        void store.close().catch(() => undefined);
        throw new AuditSourceError(`${description} cannot be read: ${(error as Error).message}`);
      }
      async function* upToHead() {
        for await (const event of store.readAll()) {
          if (event.position > head) return;
          yield event;
        }
      }
      const opened = await eventsAuditSource(upToHead(), { description }).open();
      return {
        target: head,
        chunks: () => opened.chunks(),
        close() {
          void store.close().catch(() => undefined);
        },
      };
    },
  };
}
