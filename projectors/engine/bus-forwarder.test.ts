import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { KafkaBus } from '../../adapters/kafka/bus';
import { ensureTopic } from '../../adapters/kafka/topic';
import { SqliteEventStore } from '../../adapters/sqlite/event-store';
import { SqliteLeaseManager } from '../../adapters/sqlite/lease';
import { openSqlite } from '../../adapters/sqlite/open';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type { Bus, BusConsumer } from '../../ports/bus';
import type { RecordedEvent } from '../../ports/event-store';
import { heldApplies } from '../../tests/support/held-applies';
import { describeWithServer, KAFKA_SERVER } from '../../tests/support/servers';
import { tempDir } from '../../tests/support/temp-dir';
import { BUS_FORWARDER, BusForwarder, type BusForwarderOptions } from './bus-forwarder';

const logger = pino({ level: 'silent' });

/** The real bus, except that `publish` rejects while `failuresLeft` > 0 (a broker that is down). */
class FlakyBus implements Bus {
  failuresLeft = 0;
  readonly published: RecordedEvent[][] = [];
  private failed: () => void = () => undefined;
  /** Resolves once a publish has been refused. */
  readonly firstFailure = new Promise<void>((resolve) => {
    this.failed = resolve;
  });

  constructor(private readonly inner: Bus) {}

  async publish(events: readonly RecordedEvent[]): Promise<void> {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      this.failed();
      throw new Error('broker unavailable');
    }
    await this.inner.publish(events);
    this.published.push([...events]);
  }

  subscribe(group: string, handle: (events: RecordedEvent[]) => Promise<void>): Promise<BusConsumer> {
    return this.inner.subscribe(group, handle);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

describeWithServer(KAFKA_SERVER, 'bus forwarder (Kafka)', (address) => {
  const brokers = address.split(',').map((broker) => broker.trim());
  let admin: Admin;
  let dir: string;
  let remove: () => void;
  let topic: string;
  let eventStore: SqliteEventStore;
  let readStore: SqliteReadStore;
  let bus: FlakyBus;
  let received: RecordedEvent[];
  let consumer: BusConsumer;
  const forwarders: BusForwarder[] = [];
  /** Run after the forwarders stopped (their own read-store connections). */
  const cleanups: Array<() => void> = [];

  beforeAll(async () => {
    admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  beforeEach(async () => {
    ({ dir, remove } = tempDir('gov-bus-forwarder'));
    topic = `gov.test.${randomUUID()}`;
    await ensureTopic(admin, {
      name: topic,
      partitions: 3,
      replicationFactor: 1,
      retentionMs: 24 * 60 * 60 * 1000,
      minInsyncReplicas: 1,
      maxMessageBytes: 2 * 1024 * 1024,
    });
    eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    readStore = new SqliteReadStore(path.join(dir, 'read.db'));
    bus = new FlakyBus(
      new KafkaBus({ brokers, topic, groupIdPrefix: `${topic}.`, maxWaitTimeMs: 200, redeliveryDelayMs: 50 }),
    );
    received = [];
    consumer = await bus.subscribe('dispatcher', async (batch) => void received.push(...batch));
  });

  afterEach(async () => {
    await Promise.all(forwarders.splice(0).map((forwarder) => forwarder.stop()));
    for (const cleanup of cleanups.splice(0)) cleanup();
    await consumer.stop();
    await bus.close();
    const { groups } = await admin.listGroups();
    const ours = groups.map((group) => group.groupId).filter((id) => id.startsWith(`${topic}.`));
    await admin.deleteGroups(ours).catch(() => undefined);
    await admin.deleteTopics({ topics: [topic] });
    await eventStore.close();
    await readStore.close();
    remove();
  });

  function forwarder(extra: Partial<BusForwarderOptions> = {}): BusForwarder {
    const created = new BusForwarder({ eventStore, readStore, bus, logger, retryDelayMs: 50, ...extra });
    forwarders.push(created);
    return created;
  }

  async function append(tenant: string, count: number): Promise<number> {
    const { position } = await eventStore.append(
      `tenant-${tenant}`,
      Array.from({ length: count }, (_, i) => ({
        type: i % 2 === 0 ? 'EvidenceSubmitted' : 'AccountUpdated',
        data: { i },
        tenant_id: tenant,
        correlation_id: 'c',
      })),
    );
    return position;
  }

  const positionsOf = (events: readonly RecordedEvent[], tenant: string) =>
    events.filter((event) => event.tenant_id === tenant).map((event) => event.position);

  it('given events committed before and after it starts, then a consumer group receives all of them, in order per tenant', async () => {
    await append('t1', 20);
    await append('t2', 10);
    const forwarding = forwarder({ batchSize: 7 });
    await forwarding.start();
    await append('t1', 5);
    await append('t3', 5);
    const head = await append('t2', 10);

    await forwarding.waitForPosition(head);
    await until(() => received.length >= 50);
    for (const tenant of ['t1', 't2', 't3']) {
      const expected = (await collectAll(eventStore))
        .filter((e) => e.tenant_id === tenant)
        .map((e) => e.position);
      expect(positionsOf(received, tenant)).toEqual(expected);
    }
    expect(await readStore.getCheckpoint(BUS_FORWARDER)).toBe(head);
  });

  it('given a checkpoint write that takes long, then the next batches are published meanwhile, and the checkpoint catches up once it is done', async () => {
    const { held: slowStore, release } = heldApplies(readStore);
    await append('t1', 10);
    const forwarding = forwarder({ readStore: slowStore, batchSize: 4 });
    await forwarding.start();
    const head = await append('t1', 10);

    await until(() => received.length >= 20);
    expect(await readStore.getCheckpoint(BUS_FORWARDER)).toBeNull();
    release();
    await forwarding.waitForPosition(head);
    expect(await readStore.getCheckpoint(BUS_FORWARDER)).toBe(head);
  });

  it('given a publish that fails, then the checkpoint stays where it was, and the events arrive after the retry', async () => {
    bus.failuresLeft = 1;
    const head = await append('t1', 10);
    const forwarding = forwarder();
    await forwarding.start();

    await bus.firstFailure;
    expect(await readStore.getCheckpoint(BUS_FORWARDER)).toBeNull();
    expect(forwarding.forwardedPosition).toBeNull();

    await forwarding.waitForPosition(head);
    await until(() => received.length >= 10);
    expect(received.map((e) => e.position)).toEqual(positionsOf(await collectAll(eventStore), 't1'));
    expect(await readStore.getCheckpoint(BUS_FORWARDER)).toBe(head);
  });

  it('given a forwarder that stopped, when another starts from its checkpoint, then nothing is lost and nothing acknowledged is republished', async () => {
    const first = forwarder();
    await first.start();
    const early = await append('t1', 10);
    await first.waitForPosition(early);
    await first.stop();
    const late = await append('t1', 10);

    bus.published.length = 0;
    const second = forwarder();
    await second.start();
    await second.waitForPosition(late);
    await until(() => received.length >= 20);

    expect(received.map((e) => e.position)).toEqual(positionsOf(await collectAll(eventStore), 't1'));
    expect(bus.published.flat().map((e) => e.position)).toEqual(
      positionsOf(await collectAll(eventStore), 't1').slice(10),
    );
  });

  it('given two instances in single-writer mode, then one publishes; when it stops, the standby takes over from the checkpoint', async () => {
    const instances = [0, 1].map((i) => {
      const db = openSqlite(path.join(dir, 'read.db'));
      cleanups.push(() => db.close());
      return forwarder({
        readStore: new SqliteReadStore(db),
        singleWriter: { leases: new SqliteLeaseManager(db), ttlMs: 300, owner: `instance-${i}` },
      });
    });
    await Promise.all(instances.map((instance) => instance.start()));
    const early = await append('t1', 10);
    await Promise.race(instances.map((instance) => instance.waitForPosition(early)));
    const writers = instances.filter((instance) => instance.isWriter);
    expect(writers).toHaveLength(1);
    const leader = writers[0]!;
    const standby = instances.find((instance) => instance !== leader)!;

    await leader.stop();
    const late = await append('t1', 10);
    await standby.waitForPosition(late);
    expect(standby.isWriter).toBe(true);
    await until(() => received.length >= 20);
    expect(received.map((e) => e.position)).toEqual(positionsOf(await collectAll(eventStore), 't1'));
    expect(await readStore.getCheckpoint(BUS_FORWARDER)).toBe(late);
  });
});

async function collectAll(eventStore: SqliteEventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of eventStore.readAll()) events.push(event);
  return events;
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for deliveries');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
