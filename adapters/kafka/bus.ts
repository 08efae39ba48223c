/**
 * The production bus: one Kafka topic keyed by tenant (a tenant's events share a partition, so they
 * stay in order), an idempotent producer that resolves only once every message is acknowledged by
 * all in-sync replicas, and one consumer group per subscriber that commits a batch's offset only after
 * its handler resolved. Delivery is at least once: each consumer skips the event ids it handled
 * recently (a bounded window, so a republished batch reaches the handler once), and the durable
 * deduplication is downstream, in the position-guarded read store.
 */
import {
  type Admin,
  type Batch,
  type Consumer,
  type EachBatchPayload,
  Kafka,
  type KafkaMessage,
  type LogEntry,
  logLevel,
  type Message,
  Partitioners,
  type Producer,
} from 'kafkajs';
import type { Logger } from 'pino';
import type { Bus, BusConsumer, BusSubscribeOptions } from '../../ports/bus';
import type { RecordedEvent } from '../../ports/event-store';
import type { Metrics } from '../../runtime/support/metrics';
import { sleep } from '../../runtime/support/sleep';
import { decodeEvent, encodeEvent, MalformedMessageError, messageEventId } from './event-codec';
import { ensureTopic, type KafkaSettings, TopicMismatchError, type TopicSettings } from './topic';

export interface KafkaBusOptions {
  brokers: string[];
  topic: string;
  clientId?: string;
  /** Prepended to each group name (`dispatcher` → `<prefix>dispatcher`): the Kafka group id. */
  groupIdPrefix?: string;
  /** Receives kafkajs's warnings and errors; without it they are discarded. */
  logger?: Logger;
  metrics?: Pick<Metrics, 'busMalformedMessages'>;
  /** Wait before redelivering a batch whose handler failed. */
  redeliveryDelayMs?: number;
  /** `publish` rejects after this long (broker down), so the caller retries from its checkpoint. */
  publishTimeoutMs?: number;
  /** Largest sum of message sizes per produce request; below the topic's `max.message.bytes`. */
  maxBatchBytes?: number;
  /** A consumer that stops heartbeating is out of its group after this long. */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** How long a fetch waits for new messages (bounds how long `stop` waits for an idle consumer). */
  maxWaitTimeMs?: number;
  /** Most bytes of messages one fetch takes, per partition and in all: one handler call at most. */
  maxFetchBytes?: number;
  /** Event ids each consumer remembers to skip duplicates. */
  dedupWindow?: number;
}

/**
 * A handler is called with what one fetch brought, and the next fetch waits for it: under load a
 * batch holds what arrived while the previous one was handled. Kafka's default (1 MiB a partition,
 * ~200 events) made the dispatcher write its per-tenant documents (chain depths, subjects) once
 * per ~200 events however far behind it was; a larger fetch lets its batches grow with its
 * backlog, so those writes are shared by more admissions the more it has to catch up.
 */
const MAX_FETCH_BYTES = 16 * 1024 * 1024;

export class KafkaBus implements Bus {
  private readonly kafka: Kafka;
  /** The producer and its connection; replaced after a failed publish. */
  private producer: { client: Producer; connected: Promise<void> } | null = null;
  private admin: Promise<Admin> | null = null;
  private readonly consumers = new Set<GroupConsumer>();
  /** The topic's partition count, once `connect` has created or checked it. */
  partitions: number | null = null;
  private closed = false;

  constructor(private readonly options: KafkaBusOptions) {
    this.kafka = new Kafka({
      brokers: options.brokers,
      clientId: options.clientId ?? 'gov-clearinghouse',
      connectionTimeout: 3000,
      retry: { initialRetryTime: 300, maxRetryTime: 5000, retries: 5 },
      logLevel: options.logger ? logLevel.WARN : logLevel.NOTHING,
      logCreator: () => (entry) => forwardLog(options.logger, entry),
    });
  }

  /** A bus over the configured topic, created (or checked against the settings) first. */
  static async connect(
    settings: KafkaSettings,
    options: Omit<KafkaBusOptions, 'brokers' | 'topic' | 'clientId' | 'groupIdPrefix'> = {},
  ): Promise<KafkaBus> {
    const bus = new KafkaBus({
      ...options,
      brokers: settings.brokers,
      topic: settings.topic.name,
      clientId: settings.clientId,
      groupIdPrefix: settings.groupIdPrefix,
    });
    try {
      bus.partitions = await bus.ensureTopic(settings.topic);
    } catch (error) {
      await bus.close();
      if (error instanceof TopicMismatchError) throw error;
      throw new Error(
        `could not set up the bus topic on Kafka at ${settings.brokers.join(',')} (GOV_KAFKA_BROKERS): ${(error as Error).message}`,
        { cause: error },
      );
    }
    return bus;
  }

  /** Creates or checks the bus topic (see `ensureTopic`); returns its partition count. */
  async ensureTopic(settings: TopicSettings): Promise<number> {
    if (settings.name !== this.options.topic)
      throw new Error(`this bus publishes to '${this.options.topic}', not '${settings.name}'`);
    return ensureTopic(await this.connectedAdmin(), settings);
  }

  /** Asks a broker for the topic's metadata: resolves once the cluster answers (for /health). */
  async ping(): Promise<void> {
    await (await this.connectedAdmin()).fetchTopicMetadata({ topics: [this.options.topic] });
  }

  async publish(events: readonly RecordedEvent[]): Promise<void> {
    if (this.closed) throw new Error('the Kafka bus is closed');
    if (events.length === 0) return;
    const timeoutMs = this.options.publishTimeoutMs ?? 30_000;
    const producer = this.connectedProducer();
    try {
      await withTimeout(
        (async () => {
          await producer.connected;
          // Chunks go out one after the other: a tenant's events keep their order.
          for (const messages of chunks(events.map(encodeEvent), this.options.maxBatchBytes ?? 1_000_000))
            await producer.client.send({ topic: this.options.topic, messages, acks: -1 });
        })(),
        timeoutMs,
        `publishing ${events.length} events to Kafka topic '${this.options.topic}'`,
      );
    } catch (error) {
      // A send given up on may still land; a fresh producer id keeps its sequence numbers from
      // making the broker take the next batch for a duplicate of it.
      this.discardProducer(producer);
      throw error;
    }
  }

  async subscribe(
    group: string,
    handle: (events: RecordedEvent[]) => Promise<void>,
    options: BusSubscribeOptions = {},
  ): Promise<BusConsumer> {
    if (this.closed) throw new Error('the Kafka bus is closed');
    const consumer = new GroupConsumer(this.kafka, this.options, group, handle, {
      onAssigned: options.onAssigned,
      partitions: () => this.partitions,
    });
    this.consumers.add(consumer);
    try {
      await consumer.start();
    } catch (error) {
      this.consumers.delete(consumer);
      await consumer.stop();
      throw error;
    }
    return {
      stop: async () => {
        await consumer.stop();
        this.consumers.delete(consumer);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
    this.consumers.clear();
    const [producer, admin] = [this.producer, this.admin];
    this.producer = null;
    this.admin = null;
    await Promise.all([disconnect(producer?.client ?? null), disconnect(admin)]);
  }

  private connectedProducer(): { client: Producer; connected: Promise<void> } {
    if (!this.producer) {
      const client = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
        // Bounded, so that `publish` fails while the broker is down instead of retrying forever.
        retry: { initialRetryTime: 300, maxRetryTime: 5000, retries: 5 },
      });
      this.producer = { client, connected: client.connect() };
    }
    return this.producer;
  }

  private discardProducer(producer: { client: Producer }): void {
    if (this.producer === producer) this.producer = null;
    void disconnect(producer.client);
  }

  private connectedAdmin(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      const connecting = admin.connect().then(() => admin);
      this.admin = connecting;
      connecting.catch(() => {
        if (this.admin === connecting) this.admin = null;
      });
    }
    return this.admin;
  }
}

/**
 * One subscriber: a kafkajs consumer in the group, restarted when kafkajs gives up on it (kafkajs
 * restarts it itself after retriable failures such as a broker restart).
 */
class GroupConsumer {
  private consumer: Consumer | null = null;
  private stopped = false;
  private readonly stopping = new AbortController();
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly handled: RecentIds;
  private readonly groupId: string;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly kafka: Kafka,
    private readonly options: KafkaBusOptions,
    private readonly group: string,
    private readonly handle: (events: RecordedEvent[]) => Promise<void>,
    private readonly assignment: {
      onAssigned: BusSubscribeOptions['onAssigned'];
      /** The topic's partition count, when known. */
      partitions(): number | null;
    },
  ) {
    this.handled = new RecentIds(options.dedupWindow ?? 10_000);
    this.groupId = `${options.groupIdPrefix ?? ''}${group}`;
  }

  async start(): Promise<void> {
    const sessionTimeout = this.options.sessionTimeoutMs ?? 10_000;
    const consumer = this.kafka.consumer({
      groupId: this.groupId,
      sessionTimeout,
      rebalanceTimeout: sessionTimeout,
      heartbeatInterval: this.options.heartbeatIntervalMs ?? 1000,
      maxWaitTimeInMs: this.options.maxWaitTimeMs ?? 1000,
      maxBytesPerPartition: this.options.maxFetchBytes ?? MAX_FETCH_BYTES,
      maxBytes: this.options.maxFetchBytes ?? MAX_FETCH_BYTES,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) this.restartLater(consumer, payload.error);
    });
    // kafkajs reports a join once the member has its assignment, before it fetches for it.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const assigned = payload.memberAssignment[this.options.topic]?.length ?? 0;
      this.assignment.onAssigned?.(assigned > 0 && assigned === this.assignment.partitions());
    });
    try {
      await consumer.connect();
      // A new group starts at the beginning of the topic; a known one at its committed offsets.
      await consumer.subscribe({ topics: [this.options.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: (payload) => {
          const batch = this.handleBatch(payload);
          this.inFlight = batch.then(
            () => undefined,
            () => undefined,
          );
          return batch;
        },
      });
    } catch (error) {
      await disconnect(consumer);
      throw error;
    }
    // Stopped while (re)starting: `stop` may have disconnected it before it connected.
    if (this.stopped) await disconnect(consumer);
  }

  /** Resolves once the batch in flight is handled (its offset committed) and the consumer left. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await disconnect(this.consumer);
    await this.inFlight;
  }

  private async handleBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
    const events = this.newEvents(batch);
    if (events.length > 0) {
      // kafkajs heartbeats only between batches: a slow handler must not cost the group its member.
      const keepAlive = setInterval(
        () => void heartbeat().catch(() => undefined),
        this.options.heartbeatIntervalMs ?? 1000,
      );
      try {
        await this.handle(events);
      } catch (error) {
        this.options.logger?.warn(
          { err: error, group: this.group, partition: batch.partition, offset: batch.firstOffset() },
          'bus handler failed; the batch will be redelivered',
        );
        // Nothing is committed; fetching resumes at this batch.
        const first = batch.firstOffset();
        if (first !== null && isRunning() && !isStale())
          this.consumer?.seek({ topic: batch.topic, partition: batch.partition, offset: first });
        await sleep(this.options.redeliveryDelayMs ?? 1000, this.stopping.signal);
        return;
      } finally {
        clearInterval(keepAlive);
      }
      for (const event of events) this.handled.add(event.id);
    }
    resolveOffset(batch.lastOffset());
    await commitOffsetsIfNecessary({
      topics: [
        {
          topic: batch.topic,
          partitions: [{ partition: batch.partition, offset: (BigInt(batch.lastOffset()) + 1n).toString() }],
        },
      ],
    });
    await heartbeat();
  }

  /** The batch's events, less those this consumer handled already and the malformed ones. */
  private newEvents(batch: Batch): RecordedEvent[] {
    const events: RecordedEvent[] = [];
    const ids = new Set<string>();
    for (const message of batch.messages) {
      const headerId = messageEventId(message);
      if (headerId !== null && (this.handled.has(headerId) || ids.has(headerId))) continue;
      const event = this.decode(batch, message);
      if (!event || this.handled.has(event.id) || ids.has(event.id)) continue;
      ids.add(event.id);
      events.push(event);
    }
    return events;
  }

  /**
   * A message that is not an event is logged (with where to find it) and counted, then skipped: the
   * forwarder publishes only events read back from the event store, so it was written by something
   * else, and blocking the partition on it would stop every tenant there. It stays in the topic
   * until retention for inspection.
   */
  private decode(batch: Batch, message: KafkaMessage): RecordedEvent | null {
    try {
      return decodeEvent(message);
    } catch (error) {
      if (!(error instanceof MalformedMessageError)) throw error;
      this.options.metrics?.busMalformedMessages.inc({ group: this.group });
      this.options.logger?.error(
        {
          group: this.group,
          topic: batch.topic,
          partition: batch.partition,
          offset: message.offset,
          key: message.key?.toString('utf8').slice(0, 200) ?? null,
          reason: error.reason,
        },
        'skipped a bus message that is not an event',
      );
      return null;
    }
  }

  private restartLater(crashed: Consumer, error: Error): void {
    if (this.stopped || this.consumer !== crashed) return;
    this.options.logger?.error({ err: error, group: this.group }, 'bus consumer failed; restarting it');
    this.restartTimer = setTimeout(() => {
      if (this.stopped) return;
      this.start().catch((failure: unknown) => this.restartLater(this.consumer!, failure as Error));
    }, this.options.redeliveryDelayMs ?? 1000);
  }
}

/** The last `capacity` ids added, oldest forgotten first. */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly capacity: number) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
  }
}

/** Consecutive runs of messages whose values add up to at most `maxBytes` (a larger one goes alone). */
function chunks(messages: Message[], maxBytes: number): Message[][] {
  const runs: Message[][] = [];
  let run: Message[] = [];
  let size = 0;
  for (const message of messages) {
    const bytes = Buffer.byteLength(message.value as string) + 256;
    if (run.length > 0 && size + bytes > maxBytes) {
      runs.push(run);
      run = [];
      size = 0;
    }
    run.push(message);
    size += bytes;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms (is the broker up?)`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function disconnect(
  client: Promise<{ disconnect(): Promise<void> }> | { disconnect(): Promise<void> } | null,
): Promise<void> {
  try {
    await (await client)?.disconnect();
  } catch {
    // Never connected, or already gone: nothing to let go of.
  }
}

const DISCARDED_WARNINGS = [
  // Retries are bounded on purpose, and a producer that failed a send is replaced (see `publish`).
  'Limiting retries for the idempotent producer',
];

function forwardLog(logger: Logger | undefined, { namespace, level, log }: LogEntry): void {
  if (!logger) return;
  const { message, timestamp: _timestamp, ...extra } = log;
  if (DISCARDED_WARNINGS.some((prefix) => message.startsWith(prefix))) return;
  const fields = { kafkajs: namespace, ...extra };
  if (level === logLevel.ERROR) logger.error(fields, message);
  else if (level === logLevel.WARN) logger.warn(fields, message);
  else logger.debug(fields, message);
}
