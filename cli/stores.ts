import fs from 'node:fs';
import path from 'node:path';
import { EsdbEventStore } from '../adapters/eventstoredb/event-store';
import { hidePassword, isEventStoreDbUrl, redactConnectionString } from '../adapters/eventstoredb/mapping';
import type {
  ExportableEventStore,
  ImportableEventStore,
  RepositioningImportTarget,
} from '../adapters/ndjson/event-stores';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { type AuditSource, AuditSourceError, eventsAuditSource, sqliteAuditSource } from '../audit';
import type { EventStore } from '../ports/event-store';
import { type Config, loadConfig } from '../runtime/config/config';
import {
  type OpenedReadStore,
  openEventStore,
  openReadStore,
  type ReadStoreLocation,
  readStoreLocation,
} from '../runtime/stores/stores';
import { UsageError } from './command';

/**
 * A store the deployment is configured with cannot be used by an operator command: an embedded file
 * that is not there (never created by a command that only reads or changes what exists), or a server
 * that does not answer. The message names it (never with a password) and says what to check; gov
 * prints it and exits 1, having changed nothing.
 */
export class OperatorStoreError extends Error {
  override readonly name = 'OperatorStoreError';
}

/** What to say when the embedded event store's file is not there: `named` with --store, or `configured`. */
export function noEventStoreMessage(file: string, how: 'named' | 'configured'): string {
  return (
    `there is no event store at ${file}; ` +
    (how === 'named'
      ? 'check --store'
      : "set GOV_DATA_DIR (or GOV_EVENT_STORE_FILE) to the server's, or GOV_EVENT_STORE_URL to its EventStoreDB")
  );
}

/** The event store as the server of this environment opens it (runtime/stores/stores.ts). */
async function openServerEventStore(config: Config): Promise<EventStore> {
  const location = chooseEventStore(undefined, () => config);
  if (location.kind === 'sqlite' && !fs.existsSync(location.file))
    throw new OperatorStoreError(noEventStoreMessage(location.file, 'configured'));
  try {
    return (await openEventStore(config)).store;
  } catch (error) {
    // EventStoreDB's own message names it without the password and says what to check.
    if (location.kind === 'eventstoredb') throw new OperatorStoreError((error as Error).message);
    throw error;
  }
}

/** The read store as the server of this environment finds it, for messages: never with a password. */
function readStoreName(location: ReadStoreLocation): string {
  return location.kind === 'sqlite'
    ? `sqlite:${location.file}`
    : `${redactConnectionString(location.url)} (database ${location.database})`;
}

/** The read store an operator command works on, opened as the server opens it. */
interface OperatorReadStore extends OpenedReadStore {
  /** Names it in output (readStoreName). */
  name: string;
  close(): Promise<void>;
}

/**
 * The read store as the server of this environment opens it (runtime/stores/stores.ts). The embedded
 * file is created only `ifMissing: 'create'` (a rebuild into a fresh data folder); in MongoDB, opening
 * declares the leases' index, as every process of the deployment does at its start.
 */
async function openServerReadStore(
  config: Config,
  ifMissing: 'refuse' | 'create',
): Promise<OperatorReadStore> {
  const location = readStoreLocation(config);
  const name = readStoreName(location);
  if (location.kind === 'sqlite' && ifMissing === 'refuse' && !fs.existsSync(location.file))
    throw new OperatorStoreError(
      `there is no read store at ${location.file}; set GOV_DATA_DIR (or GOV_READ_STORE_FILE) to the ` +
        "server's, or GOV_READ_STORE_URL to its MongoDB",
    );
  try {
    const opened = await openReadStore(location);
    return { ...opened, name, close: () => opened.store.close() };
  } catch (error) {
    if (location.kind === 'sqlite') throw error;
    throw new OperatorStoreError(
      `the read store at ${name} cannot be reached: ${hidePassword((error as Error).message, location.url)}. ` +
        'Check the address, that the server runs, and GOV_READ_STORE_URL',
    );
  }
}

/** Runs `work` on what `open` opened, and closes it whatever happens. */
async function using<S extends { close(): Promise<void> }, T>(
  open: () => Promise<S>,
  work: (opened: S) => Promise<T>,
): Promise<T> {
  const opened = await open();
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

/**
 * Runs `work` on the configured event store, as the server finds it: GOV_EVENT_STORE_URL (EventStoreDB),
 * else the embedded file (GOV_EVENT_STORE_FILE, GOV_DATA_DIR), which must exist. Appends are validated
 * as the server's are.
 */
export function withEventStore<T>(
  work: (eventStore: EventStore) => Promise<T>,
  config: Config = loadConfig(),
): Promise<T> {
  return using(() => openServerEventStore(config), work);
}

/**
 * Runs `work` on the configured read store, as the server finds it: GOV_READ_STORE_URL (MongoDB,
 * GOV_READ_STORE_DATABASE), else the embedded file (GOV_READ_STORE_FILE, GOV_DATA_DIR), which must exist.
 */
export function withReadStore<T>(work: (read: OperatorReadStore) => Promise<T>): Promise<T> {
  const config = loadConfig();
  return using(() => openServerReadStore(config, 'refuse'), work);
}

/** What `gov rebuild` works on: the configured event store (which must exist) and read store. */
interface ProjectionStores {
  config: Config;
  eventStore: EventStore;
  read: OperatorReadStore;
}

/**
 * Runs `work` on the configured event and read stores. The embedded read store's file is created when
 * missing: the read models of a fresh data folder (after `gov import`) are built this way.
 */
export function withProjectionStores<T>(work: (stores: ProjectionStores) => Promise<T>): Promise<T> {
  const config = loadConfig();
  return withEventStore(
    (eventStore) =>
      using(
        () => openServerReadStore(config, 'create'),
        (read) => work({ config, eventStore, read }),
      ),
    config,
  );
}

/** Where the stores are found, for help texts. */
export const STORE_LOCATION_HELP = `Stores are found as the server finds them: the event store in EventStoreDB when GOV_EVENT_STORE_URL
is set, else in GOV_EVENT_STORE_FILE (default <GOV_DATA_DIR>/events.db); the read store in MongoDB
when GOV_READ_STORE_URL is set (database GOV_READ_STORE_DATABASE), else in GOV_READ_STORE_FILE
(default <GOV_DATA_DIR>/read-models.db). GOV_DATA_DIR defaults to ./data.`;

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
