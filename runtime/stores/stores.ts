/**
 * Which adapter serves each port, chosen from the configuration: the embedded SQLite stores and the
 * in-process bus by default; EventStoreDB, MongoDB and Kafka when their connection settings are given.
 * The one place a deployment's adapters are picked.
 */

import type { Logger } from 'pino';
import { EventStoreBus } from '../../adapters/embedded/event-store-bus';
import { EsdbEventStore } from '../../adapters/eventstoredb/event-store';
import { KafkaBus, type KafkaBusOptions } from '../../adapters/kafka/bus';
import { MongoReadStore } from '../../adapters/mongodb/read-store';
import { SqliteEventStore } from '../../adapters/sqlite/event-store';
import { SplitReadStore } from '../../adapters/sqlite/split-read-store';
import { ValidatingEventStore } from '../../event-schemas';
import type { Bus } from '../../ports/bus';
import type { EventStore } from '../../ports/event-store';
import type { LeaseManager } from '../../ports/lease';
import type { ReadStore } from '../../ports/read-store';
import { isWebhookDeliveryState } from '../../projectors/webhooks/webhook-delivery-state';
import type { Config } from '../config/config';

/**
 * Where the read store is, in a form a worker thread can be handed. The SQLite one is two files: the
 * read models in `file`, webhook delivery's state in `dispatchFile` (SplitReadStore).
 */
export type ReadStoreLocation =
  | { kind: 'sqlite'; file: string; dispatchFile: string }
  | { kind: 'mongodb'; url: string; database: string };

export function readStoreLocation(config: Config): ReadStoreLocation {
  return config.readStoreUrl
    ? { kind: 'mongodb', url: config.readStoreUrl, database: config.readStoreDatabase }
    : { kind: 'sqlite', file: config.readStoreFile, dispatchFile: config.dispatchStoreFile };
}

export interface OpenedReadStore {
  store: ReadStore;
  /** The leases its fenced `apply` checks (single writers across processes). */
  leases: LeaseManager;
  /** The adapter's name, for /health. */
  binding: string;
}

/**
 * Page size of a new webhook delivery file (dispatch.db). Its writes are ~5 KB per admission with
 * webhooks (a delivery with its body, its log entry, index entries landing on scattered pages); with
 * 8 KB pages each commit and checkpoint moves fewer, fuller pages, and the delivery thread spends ~8%
 * less CPU per admission than with SQLite's 4 KB. A page size is fixed when its file is made: an
 * existing file keeps its own.
 */
const DISPATCH_FILE_PAGE_BYTES = 8192;

export async function openReadStore(
  location: ReadStoreLocation,
  /** Told when the MongoDB client is replaced because its server monitor stalled. */
  logger?: Pick<Logger, 'warn'>,
  /**
   * Embedded only: commit the webhook delivery file's writes together, at most once per this many ms. For
   * the delivery thread, the file's one writer, whose writes wait for nothing on the admission path.
   */
  options: { dispatchCommitIntervalMs?: number } = {},
): Promise<OpenedReadStore> {
  if (location.kind === 'mongodb') {
    const store = await MongoReadStore.connect(location.url, {
      database: location.database,
      onClientRenewed: (silentMs) =>
        logger?.warn(
          { silent_ms: silentMs },
          'the read store client reported no server heartbeat for too long; replaced it with a new client',
        ),
    });
    return { store, leases: store.leases(), binding: 'mongodb' };
  }
  const store = SplitReadStore.open(location.file, location.dispatchFile, isWebhookDeliveryState, {
    commitIntervalMs: options.dispatchCommitIntervalMs,
    pageBytes: DISPATCH_FILE_PAGE_BYTES,
  });
  return { store, leases: store.leases(), binding: 'sqlite' };
}

export interface OpenedEventStore {
  /** Validating: every event is checked against its schema before it is appended. */
  store: EventStore;
  binding: string;
}

/**
 * How often a topology role looks for other processes' appends while they keep coming: the SQLite
 * file has no notification across processes, and an admission crosses processes twice (to the
 * sequencer and back), each crossing waiting for the next poll. A poll is one cheap pragma.
 */
const OTHER_PROCESSES_POLL_MS = 1;

export async function openEventStore(
  config: Config,
  /**
   * `writerThread`: the embedded store commits on a writer thread (the server's appends). `follower`:
   * this thread or process only reads what others append (a smaller page cache; see SqliteEventStore).
   */
  options: {
    writerThread?: boolean;
    follower?: boolean;
    /** A topology role: what it follows is appended by other processes (see AppendNotifier). */
    otherProcessesAppend?: boolean;
  } = {},
): Promise<OpenedEventStore> {
  if (config.eventStoreUrl) {
    const store = await EsdbEventStore.connect(config.eventStoreUrl, { maxEventBytes: config.maxEventBytes });
    return { store: new ValidatingEventStore(store), binding: 'eventstoredb' };
  }
  const store = new SqliteEventStore({
    file: config.eventStoreFile,
    maxEventBytes: config.maxEventBytes,
    writerThread: options.writerThread,
    follower: options.follower,
    ...(options.otherProcessesAppend ? { activePollIntervalMs: OTHER_PROCESSES_POLL_MS } : {}),
  });
  return { store: new ValidatingEventStore(store), binding: 'sqlite' };
}

export interface OpenedBus {
  bus: Bus;
  /** Partitions of the Kafka topic; null for the in-process bus (one global order). */
  partitions: number | null;
  /** Kafka needs the forwarder to publish committed events; the in-process bus reads the store. */
  needsForwarder: boolean;
  binding: string;
  /** Resolves once the bus answers (a broker round trip; the in-process bus is the event store): /health. */
  ping(): Promise<unknown>;
}

export async function openBus(
  config: Config,
  eventStore: EventStore,
  readStore: ReadStore,
  observe: Pick<KafkaBusOptions, 'logger' | 'metrics'> = {},
): Promise<OpenedBus> {
  if (config.kafka) {
    const bus = await KafkaBus.connect(config.kafka, observe);
    return {
      bus,
      partitions: bus.partitions,
      needsForwarder: true,
      binding: 'kafka',
      ping: () => bus.ping(),
    };
  }
  const bus = new EventStoreBus({ eventStore, readStore });
  return {
    bus,
    partitions: null,
    needsForwarder: false,
    binding: 'in-process',
    ping: () => eventStore.headPosition(),
  };
}

/**
 * The delivery-queue projection decides in global commit order: a leaf's webhooks fire when the tree head
 * (an event of the log, not of the tenant) that integrates it is projected, and replays are told by
 * position. Kafka keeps order only within a partition, so the dispatcher refuses a topic of several.
 */
export function assertDispatchOrder(opened: OpenedBus): void {
  if (opened.partitions !== null && opened.partitions > 1)
    throw new Error(
      `the bus topic has ${opened.partitions} partitions, but the dispatcher needs events in global commit order, ` +
        'which Kafka keeps only within one partition: use a topic with one partition (GOV_KAFKA_PARTITIONS=1, the default; ' +
        'an existing topic cannot lose partitions, so name a new one with GOV_KAFKA_TOPIC)',
    );
}
