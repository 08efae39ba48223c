import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import { type Admin, ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { Registry } from 'prom-client';
import { busContract } from '../../ports/contract/bus.contract';
import { collect } from '../../ports/contract/event-store.contract';
import type { RecordedEvent } from '../../ports/event-store';
import { createMetrics } from '../../runtime/support/metrics';
import { describeWithServer, KAFKA_SERVER } from '../../tests/support/servers';
import { tempDir } from '../../tests/support/temp-dir';
import { SqliteEventStore } from '../sqlite/event-store';
import { KafkaBus, type KafkaBusOptions } from './bus';
import { decodeEvent, encodeEvent, MalformedMessageError, messageEventId } from './event-codec';
import { ensureTopic, kafkaSettingsFromEnv, TopicMismatchError, type TopicSettings } from './topic';

const DAY_MS = 24 * 60 * 60 * 1000;

function sampleEvent(overrides: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    id: randomUUID(),
    type: 'TestEvent',
    stream: 'bus-t1',
    revision: 0,
    position: 7,
    recorded_at: '2026-01-01T00:00:00.000Z',
    tenant_id: 't1',
    correlation_id: 'c',
    causation_id: null,
    schema_version: 1,
    data: { n: 1 },
    ...overrides,
  };
}

/** The message as a consumer receives it: key, value and headers as buffers. */
function received(message: ReturnType<typeof encodeEvent>) {
  const buffer = (value: unknown) => (value === null ? null : Buffer.from(String(value)));
  return {
    key: buffer(message.key ?? null),
    value: buffer(message.value),
    headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, buffer(v)!])),
  };
}

describe('event codec', () => {
  it('given an event, when encoded and decoded, then it is the same event, keyed by tenant with id, type and position headers', () => {
    const event = sampleEvent({ causation_id: 'cause', data: { nested: [1, 'two', null] } });
    const message = received(encodeEvent(event));
    expect(message.key?.toString()).toBe('t1');
    expect(messageEventId(message)).toBe(event.id);
    expect(message.headers['gov-event-type']?.toString()).toBe('TestEvent');
    expect(message.headers['gov-event-position']?.toString()).toBe('7');
    expect(decodeEvent(message)).toEqual(event);
  });

  it.each([
    ['no value', (m: ReturnType<typeof received>) => ({ ...m, value: null }), /no value/],
    [
      'a value that is not JSON',
      (m: ReturnType<typeof received>) => ({ ...m, value: Buffer.from('{oops') }),
      /not JSON/,
    ],
    [
      'a JSON array',
      (m: ReturnType<typeof received>) => ({ ...m, value: Buffer.from('[]') }),
      /not a JSON object/,
    ],
    [
      'a missing member',
      (m: ReturnType<typeof received>) => {
        const { stream: _stream, ...rest } = JSON.parse(m.value!.toString());
        return { ...m, value: Buffer.from(JSON.stringify(rest)) };
      },
      /'stream'/,
    ],
    [
      'a fractional position',
      (m: ReturnType<typeof received>) => ({
        ...m,
        value: Buffer.from(JSON.stringify({ ...JSON.parse(m.value!.toString()), position: 1.5 })),
      }),
      /'position'/,
    ],
    [
      'a key that is not its tenant',
      (m: ReturnType<typeof received>) => ({ ...m, key: Buffer.from('t2') }),
      /key 't2'/,
    ],
    [
      'an id header that is not its id',
      (m: ReturnType<typeof received>) => ({
        ...m,
        headers: { ...m.headers, 'gov-event-id': Buffer.from('x') },
      }),
      /header 'x'/,
    ],
  ])('given a message with %s, when decoded, then it fails loudly', (_case, corrupt, reason) => {
    const message = corrupt(received(encodeEvent(sampleEvent())));
    expect(() => decodeEvent(message)).toThrow(MalformedMessageError);
    expect(() => decodeEvent(message)).toThrow(reason);
  });
});

describe('Kafka settings from the environment', () => {
  it('given no GOV_KAFKA_BROKERS, then there are no settings (the in-process bus)', () => {
    expect(kafkaSettingsFromEnv({})).toEqual({ settings: null, problems: [] });
  });

  it('given only brokers, then the topic gets the documented defaults', () => {
    const { settings, problems } = kafkaSettingsFromEnv({ GOV_KAFKA_BROKERS: 'k1:9092, k2:9093' });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      brokers: ['k1:9092', 'k2:9093'],
      clientId: 'gov-clearinghouse',
      groupIdPrefix: '',
      topic: {
        name: 'gov.events',
        partitions: 1,
        replicationFactor: 1,
        retentionMs: 7 * DAY_MS,
        minInsyncReplicas: 1,
        maxMessageBytes: 2 * 1024 * 1024,
      },
    });
  });

  it('given every variable, then each is used', () => {
    const { settings, problems } = kafkaSettingsFromEnv({
      GOV_KAFKA_BROKERS: '[::1]:9092',
      GOV_KAFKA_TOPIC: 'prod.gov-events',
      GOV_KAFKA_PARTITIONS: '12',
      GOV_KAFKA_REPLICATION_FACTOR: '3',
      GOV_KAFKA_RETENTION_MS: '-1',
      GOV_KAFKA_CLIENT_ID: 'gov-eu',
      GOV_KAFKA_GROUP_PREFIX: 'eu.',
      GOV_KAFKA_MAX_MESSAGE_BYTES: '4194304',
    });
    expect(problems).toEqual([]);
    expect(settings?.topic).toEqual({
      name: 'prod.gov-events',
      partitions: 12,
      replicationFactor: 3,
      retentionMs: -1,
      minInsyncReplicas: 2,
      maxMessageBytes: 4194304,
    });
    expect(settings?.clientId).toBe('gov-eu');
    expect(settings?.groupIdPrefix).toBe('eu.');
  });

  it('given invalid values, then every problem is reported, naming its variable', () => {
    const { problems } = kafkaSettingsFromEnv({
      GOV_KAFKA_BROKERS: 'k1,k2:99999',
      GOV_KAFKA_TOPIC: 'a topic',
      GOV_KAFKA_PARTITIONS: '0',
      GOV_KAFKA_REPLICATION_FACTOR: '1',
      GOV_KAFKA_MIN_INSYNC_REPLICAS: '2',
      GOV_KAFKA_RETENTION_MS: '10',
      GOV_KAFKA_MAX_MESSAGE_BYTES: '1000',
    });
    expect(problems).toEqual([
      "GOV_KAFKA_BROKERS entry 'k1' is not host:port",
      "GOV_KAFKA_BROKERS entry 'k2:99999' is not host:port",
      expect.stringMatching(/^GOV_KAFKA_TOPIC must be/),
      expect.stringMatching(/^GOV_KAFKA_MIN_INSYNC_REPLICAS must be an integer from 1 to 1/),
      expect.stringMatching(/^GOV_KAFKA_RETENTION_MS must be -1 \(keep events forever\) or milliseconds/),
      expect.stringMatching(/^GOV_KAFKA_MAX_MESSAGE_BYTES must be an integer from 1114112/),
      expect.stringMatching(/^GOV_KAFKA_PARTITIONS must be an integer from 1/),
    ]);
  });

  it('given Kafka settings without GOV_KAFKA_BROKERS, then that is a problem rather than silently unused', () => {
    expect(kafkaSettingsFromEnv({ GOV_KAFKA_TOPIC: 'gov.events' }).problems).toEqual([
      'GOV_KAFKA_TOPIC set, but GOV_KAFKA_BROKERS is not (host:port,host:port,…)',
    ]);
  });
});

describe('Kafka bus without a broker', () => {
  it('given no broker is reachable, when publishing, then publish rejects instead of hanging', async () => {
    const bus = new KafkaBus({ brokers: ['127.0.0.1:1'], topic: 'gov.unreachable', publishTimeoutMs: 1500 });
    const started = Date.now();
    await expect(bus.publish([sampleEvent()])).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    await bus.close();
  });
});

describeWithServer(KAFKA_SERVER, 'Kafka bus', (address) => {
  const brokers = address.split(',').map((broker) => broker.trim());
  const kafka = new Kafka({ brokers, clientId: 'gov-bus-test', logLevel: logLevel.NOTHING });
  let admin: Admin;
  const topics: string[] = [];

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    // Only those still there: kafkajs retries the deletion of an unknown topic for seconds.
    const existing = new Set(await admin.listTopics());
    const left = topics.filter((topic) => existing.has(topic));
    if (left.length > 0) await admin.deleteTopics({ topics: left });
    await admin.disconnect();
  });

  /** A topic of this test run's own (deleted in afterAll). */
  function topicSettings(partitions: number, overrides: Partial<TopicSettings> = {}): TopicSettings {
    const name = `gov.test.${randomUUID()}`;
    topics.push(name);
    return {
      name,
      partitions,
      replicationFactor: 1,
      retentionMs: DAY_MS,
      minInsyncReplicas: 1,
      maxMessageBytes: 2 * 1024 * 1024,
      ...overrides,
    };
  }

  /** Fast enough for tests: short fetch waits and redelivery delay. */
  function testBus(topic: string, extra: Partial<KafkaBusOptions> = {}): KafkaBus {
    return new KafkaBus({
      brokers,
      topic,
      clientId: 'gov-bus-test',
      groupIdPrefix: `${topic}.`,
      redeliveryDelayMs: 50,
      maxWaitTimeMs: 200,
      ...extra,
    });
  }

  /** A store to commit real events to, and a way to append `count` of them for a tenant. */
  function eventSource() {
    const { dir, remove } = tempDir('gov-kafka-bus');
    const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    let sequence = 0;
    return {
      async append(tenant: string, count: number): Promise<RecordedEvent[]> {
        const { position } = await eventStore.append(
          `bus-${tenant}`,
          Array.from({ length: count }, () => ({
            type: 'TestEvent',
            data: { n: sequence++ },
            tenant_id: tenant,
            correlation_id: 'c',
          })),
        );
        return collect(eventStore.readAll({ after: position - count }));
      },
      async dispose() {
        await eventStore.close();
        remove();
      },
    };
  }

  busContract('kafka', async () => {
    const settings = topicSettings(3);
    await ensureTopic(admin, settings);
    const source = eventSource();
    const open: KafkaBus[] = [];
    const newBus = () => {
      const bus = testBus(settings.name);
      open.push(bus);
      return bus;
    };
    const bus = newBus();
    return {
      bus,
      async emit(tenant, count) {
        const events = await source.append(tenant, count);
        await bus.publish(events);
        return events;
      },
      reopen: async () => newBus(),
      async dispose() {
        await Promise.all(open.map((each) => each.close()));
        await deleteGroups(admin, `${settings.name}.`);
        await admin.deleteTopics({ topics: [settings.name] });
        await source.dispose();
      },
    };
  });

  describe('topic', () => {
    it('given no topic, when ensured, then it is created with the configured partitions, retention and limits', async () => {
      const settings = topicSettings(4, { retentionMs: 3_600_000, maxMessageBytes: 3 * 1024 * 1024 });
      expect(await ensureTopic(admin, settings)).toBe(4);
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [settings.name] });
      expect(metadata[0]?.partitions).toHaveLength(4);
      expect(await topicConfig(admin, settings.name)).toMatchObject({
        'retention.ms': '3600000',
        'min.insync.replicas': '1',
        'max.message.bytes': String(3 * 1024 * 1024),
      });
    });

    it("given an existing topic whose retention differs, when ensured, then retention is changed and an operator's other settings are kept", async () => {
      const settings = topicSettings(2);
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: settings.name,
            numPartitions: 2,
            replicationFactor: 1,
            configEntries: [
              { name: 'retention.ms', value: '60000' },
              { name: 'segment.ms', value: '3600000' },
            ],
          },
        ],
      });
      expect(await ensureTopic(admin, settings)).toBe(2);
      expect(await topicConfig(admin, settings.name)).toMatchObject({
        'retention.ms': String(DAY_MS),
        'segment.ms': '3600000',
        'max.message.bytes': String(2 * 1024 * 1024),
      });
      // Idempotent: ensuring again changes nothing and succeeds.
      await ensureTopic(admin, settings);
    });

    it('given an existing topic with fewer partitions than configured, when ensured, then it is refused with a clear message', async () => {
      const settings = topicSettings(6);
      await admin.createTopics({
        waitForLeaders: true,
        topics: [{ topic: settings.name, numPartitions: 2, replicationFactor: 1 }],
      });
      const ensuring = ensureTopic(admin, settings);
      await expect(ensuring).rejects.toThrow(TopicMismatchError);
      await expect(ensuring).rejects.toThrow(
        `Kafka topic '${settings.name}' has 2 partitions but 6 are configured`,
      );
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [settings.name] });
      expect(metadata[0]?.partitions).toHaveLength(2);
    });

    it('given settings, when a bus connects, then its topic exists and it publishes to it', async () => {
      const settings = topicSettings(2);
      const bus = await KafkaBus.connect({
        brokers,
        clientId: 'gov-bus-test',
        groupIdPrefix: 'x.',
        topic: settings,
      });
      const source = eventSource();
      try {
        await bus.publish(await source.append('t1', 3));
        const offsets = await admin.fetchTopicOffsets(settings.name);
        expect(offsets.reduce((sum, partition) => sum + Number(partition.high), 0)).toBe(3);
      } finally {
        await bus.close();
        await source.dispose();
      }
    });
  });

  describe('consumers', () => {
    let settings: TopicSettings;
    let source: ReturnType<typeof eventSource>;
    let bus: KafkaBus;

    beforeEach(async () => {
      settings = topicSettings(2);
      await ensureTopic(admin, settings);
      source = eventSource();
      bus = testBus(settings.name);
    });
    afterEach(async () => {
      await bus.close();
      await deleteGroups(admin, `${settings.name}.`);
      await source.dispose();
    });

    it('given an event published twice (a forwarder retrying), then the handler receives it once', async () => {
      const ids: string[] = [];
      const consumer = await bus.subscribe(
        'dedup',
        async (batch) => void ids.push(...batch.map((e) => e.id)),
      );
      const first = await source.append('t1', 5);
      await bus.publish(first);
      await bus.publish(first);
      await bus.publish(first.slice(2));
      // Published after the copies to the same partition: once it arrives, so have they.
      const marker = await source.append('t1', 1);
      await bus.publish(marker);
      await until(() => ids.includes(marker[0]!.id));
      await consumer.stop();
      expect(ids).toEqual([...first, ...marker].map((e) => e.id));
    });

    it('given one consumer in the group, then it is told it takes every event; when a second joins, each is told it takes a share; when that one leaves, the first takes every event again', async () => {
      bus.partitions = await bus.ensureTopic(settings);
      const other = testBus(settings.name);
      other.partitions = bus.partitions;
      const told: Array<[string, boolean]> = [];
      const handler = async () => undefined;
      const first = await bus.subscribe('shares', handler, {
        onAssigned: (whole) => told.push(['first', whole]),
      });
      await until(() => told.length > 0);
      expect(told).toEqual([['first', true]]);

      const second = await other.subscribe('shares', handler, {
        onAssigned: (whole) => told.push(['second', whole]),
      });
      await until(
        () => told.some(([who]) => who === 'second') && told.filter(([who]) => who === 'first').length > 1,
      );
      expect(told.slice(1).sort()).toEqual([
        ['first', false],
        ['second', false],
      ]);

      await second.stop();
      await other.close();
      await until(() => told.filter(([who]) => who === 'first').length > 2, 30_000);
      expect(told[told.length - 1]).toEqual(['first', true]);
      await first.stop();
    }, 60_000);

    it('given a malformed message between two events, then it is logged and counted, and the events around it are delivered', async () => {
      const lines: Array<Record<string, unknown>> = [];
      const logger = pino(
        { level: 'warn' },
        new Writable({
          write(chunk, _encoding, done) {
            lines.push(JSON.parse(chunk.toString()));
            done();
          },
        }),
      );
      const metrics = createMetrics(new Registry(), { defaults: false });
      const observed = testBus(settings.name, { logger, metrics });
      const ids: string[] = [];
      const consumer = await observed.subscribe(
        'poison',
        async (batch) => void ids.push(...batch.map((e) => e.id)),
      );

      const [before] = await source.append('t1', 1);
      const [after] = await source.append('t1', 1);
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({
        topic: settings.name,
        messages: [encodeEvent(before!), { key: 't1', value: 'not an event' }, encodeEvent(after!)],
      });
      await producer.disconnect();

      await until(() => ids.length >= 2);
      await consumer.stop();
      await observed.close();
      expect(ids).toEqual([before!.id, after!.id]);
      const skipped = lines.filter((line) => line.msg === 'skipped a bus message that is not an event');
      expect(skipped).toHaveLength(1);
      expect(skipped[0]).toMatchObject({ group: 'poison', topic: settings.name, offset: '1', key: 't1' });
      expect(String(skipped[0]!.reason)).toMatch(/not JSON/);
      expect((await metrics.busMalformedMessages.get()).values).toEqual([
        expect.objectContaining({ labels: { group: 'poison' }, value: 1 }),
      ]);

      // Skipped for good: the group's offset is past it, so a restarted consumer does not see it again.
      const resumed: string[] = [];
      const again = await bus.subscribe(
        'poison',
        async (batch) => void resumed.push(...batch.map((e) => e.id)),
      );
      const [marker] = await source.append('t1', 1);
      await bus.publish([marker!]);
      await until(() => resumed.length >= 1);
      await again.stop();
      expect(resumed).toEqual([marker!.id]);
    });

    it('given a handler still running, when the consumer stops, then stop waits for it and commits its batch', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let entered = false;
      const consumer = await bus.subscribe('slow', async () => {
        entered = true;
        await gate;
      });
      await bus.publish(await source.append('t1', 3));
      await until(() => entered);
      let stopped = false;
      const stopping = consumer.stop().then(() => {
        stopped = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(stopped).toBe(false);
      release();
      await stopping;

      const offsets = await admin.fetchOffsets({ groupId: `${settings.name}.slow`, topics: [settings.name] });
      const committed = offsets[0]!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
      expect(committed).toBe(3);
    });
  });
});

async function topicConfig(admin: Admin, topic: string): Promise<Record<string, string>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
  });
  return Object.fromEntries((resources[0]?.configEntries ?? []).map((e) => [e.configName, e.configValue]));
}

/** Consumer groups are not deleted with their topic: remove this test's (all empty by now). */
async function deleteGroups(admin: Admin, prefix: string): Promise<void> {
  const { groups } = await admin.listGroups();
  const ours = groups.map((group) => group.groupId).filter((id) => id.startsWith(prefix));
  if (ours.length > 0) await admin.deleteGroups(ours).catch(() => undefined);
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for deliveries');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
