/**
 * The EventStoreDB adapter against the event store contract and its own specifications:
 *
 * 1. always, on an in-memory imitation of the client (tests/support/fake-esdb-client.ts): the
 *    adapter's own logic, and what an import into it must do (adapters/ndjson/repositioning-import.contract.ts);
 * 2. on a real EventStoreDB 24.10: GOV_ESDB_URL (e.g. esdb://127.0.0.1:2113?tls=false), else a container
 *    started with testcontainers when a Docker engine answers; skipped, with the reason in its title,
 *    when there is neither. The choice is made when this file loads (Jest needs describe or
 *    describe.skip at once); the container itself starts in beforeAll.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collect, consume, eventStoreContract } from '../../ports/contract/event-store.contract';
import {
  DuplicateEventIdError,
  type EventStore,
  type NewEvent,
  WrongExpectedVersionError,
} from '../../ports/event-store';
import { FakeEsdbClient } from '../../tests/support/fake-esdb-client';
import { repositioningImportContract } from '../ndjson/repositioning-import.contract';
import { type EsdbClient, EsdbEventStore } from './event-store';
import { ForeignEventError } from './mapping';

const maxEventBytes = 64 * 1024;
const IMAGE = process.env.GOV_TEST_ESDB_IMAGE || 'eventstore/eventstore:24.10';

type Target = { url: string } | { docker: true } | { skip: string };

const target = chooseTarget();

// ── 1. The adapter's logic, on the imitation ───────────────────────────────────────────────────────

function onImitation(): { store: EsdbEventStore; client: FakeEsdbClient } {
  const client = new FakeEsdbClient();
  return { client, store: new EsdbEventStore(client as unknown as EsdbClient, { maxEventBytes }) };
}

eventStoreContract('EventStoreDB adapter on an in-memory imitation of the client', {
  maxEventBytes,
  create: async () => {
    const { store } = onImitation();
    return { store, dispose: () => store.close() };
  },
});

repositioningImportContract('EventStoreDB adapter on an in-memory imitation of the client', {
  create: async () => {
    const { store } = onImitation();
    return { store, dispose: () => store.close() };
  },
});

adapterSpecification('EventStoreDB adapter on an in-memory imitation of the client', async () => {
  const { store } = onImitation();
  return store;
});

describe('EventStoreDB adapter on an in-memory imitation of the client: what only the imitation can show', () => {
  let client: FakeEsdbClient;
  let store: EsdbEventStore;
  beforeEach(() => {
    ({ client, store } = onImitation());
  });
  afterEach(() => store.close());

  it('claims each appended id in a stream of its own, which no read returns', async () => {
    const { position } = await store.append('orders-1', [event('A'), event('B')]);
    expect(client.streamNames('gov-event-id-')).toHaveLength(2);
    const all = await collect(store.readAll());
    expect(all.map((e) => [e.stream, e.type])).toEqual([
      ['orders-1', 'A'],
      ['orders-1', 'B'],
    ]);
    expect(await store.headPosition()).toBe(position);
    expect(client.records().some((record) => record.type.startsWith('$'))).toBe(true);
  });

  it('given an event another application wrote, then an unfiltered read fails naming it, and a filtered one passes it by', async () => {
    await store.append('orders-1', [event('A')]);
    client.writeForeign('billing-7', 'InvoiceSent');
    await expect(collect(store.readAll())).rejects.toThrow(ForeignEventError);
    await expect(collect(store.readAll())).rejects.toThrow(/stream 'billing-7'.*not written by this service/);
    expect(await collect(store.readAll({ filter: { streamPrefixes: ['orders-'] } }))).toHaveLength(1);
  });

  it('when the node goes away during a subscription, then the iteration fails instead of waiting forever', async () => {
    const subscription = store.subscribeToAll({ after: null });
    const iterating = collect(subscription);
    await new Promise((resolve) => setTimeout(resolve, 20));
    client.goAway(new Error('14 UNAVAILABLE: Connection dropped'));
    await expect(iterating).rejects.toThrow(/UNAVAILABLE/);
  });

  it('when the node ends a subscription without an error, then the iteration fails: $all has no end', async () => {
    const subscription = store.subscribeToAll({ after: null });
    const iterating = collect(subscription);
    await new Promise((resolve) => setTimeout(resolve, 20));
    client.endSubscriptions();
    await expect(iterating).rejects.toThrow(/ended the subscription/);
  });

  it('when the store is closed, then its subscriptions end and further calls fail', async () => {
    const subscription = store.subscribeToAll({ after: null });
    const iterating = collect(subscription);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.close();
    await expect(iterating).resolves.toEqual([]);
    await expect(store.append('orders-1', [event('A')])).rejects.toThrow(/closed/);
  });
});

// ── 2. The same, and the contract, on a real EventStoreDB ──────────────────────────────────────────

if ('skip' in target) {
  describe.skip(`EventStoreDB event store on a real server (skipped: ${target.skip})`, () => {
    it('needs an EventStoreDB server', () => undefined);
  });
} else {
  describe(`EventStoreDB event store on a real server (${'url' in target ? 'GOV_ESDB_URL' : IMAGE})`, () => {
    let url = '';
    let stop: () => Promise<void> = async () => undefined;

    beforeAll(async () => {
      if ('url' in target) {
        url = target.url;
        return;
      }
      const { GenericContainer, Wait } = await import('testcontainers');
      const container = await new GenericContainer(IMAGE)
        .withEnvironment({
          EVENTSTORE_INSECURE: 'true',
          EVENTSTORE_RUN_PROJECTIONS: 'None',
          EVENTSTORE_MEM_DB: 'true',
          // The contract appends 5,000 events at once: more than the default 1 MiB per append.
          EVENTSTORE_MAX_APPEND_SIZE: String(8 * 1024 * 1024),
        })
        .withExposedPorts(2113)
        .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
        .withStartupTimeout(180_000)
        .start();
      url = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
      stop = async () => {
        await container.stop();
      };
    }, 240_000);
    afterAll(() => stop(), 60_000);

    const connect = () => EsdbEventStore.connect(url, { maxEventBytes });

    eventStoreContract('EventStoreDB', {
      maxEventBytes,
      create: async () => {
        const store = await connect();
        return { store, dispose: () => store.close() };
      },
    });

    repositioningImportContract('EventStoreDB', {
      create: async () => {
        const store = await connect();
        return { store, dispose: () => store.close() };
      },
    });

    adapterSpecification('EventStoreDB', connect);
  });
}

// ── Specifications of this adapter beyond the contract, run on both ────────────────────────────────

function adapterSpecification(name: string, open: () => Promise<EsdbEventStore>): void {
  describe(`${name}: beyond the contract`, () => {
    let store: EventStore;
    let prefix: string;
    beforeEach(async () => {
      store = await open();
      prefix = `esdb_${randomUUID().replaceAll('-', '')}-`;
    });
    afterEach(() => store.close());
    const ours = () => ({ streamPrefixes: [prefix] });

    it('given the log at revision 3, when two sequencers append their tree head at revision 3, then one wins and the other gets WrongExpectedVersion at 4', async () => {
      const log = `${prefix}merkle-log`;
      await store.append(
        log,
        ['H0', 'H1', 'H2', 'H3'].map((n) => event('TreeHeadSigned', { n })),
      );
      const outcomes = await Promise.allSettled([
        store.append(log, [event('TreeHeadSigned', { by: 'a' })], { expectedRevision: 3 }),
        store.append(log, [event('TreeHeadSigned', { by: 'b' })], { expectedRevision: 3 }),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const loser = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(loser.reason).toBeInstanceOf(WrongExpectedVersionError);
      expect(loser.reason).toMatchObject({ stream: log, expected: 3, actual: 4 });
      expect(await collect(store.readStream(log))).toHaveLength(5);
    });

    it('given an append refused for its expected revision, when it is retried with the right one, then its ids are still usable there', async () => {
      const events = [event('A'), event('B')].map((e) => ({ ...e, id: randomUUID() }));
      await store.append(`${prefix}s`, [event('Init')]);
      await expect(store.append(`${prefix}s`, events, { expectedRevision: 5 })).rejects.toThrow(
        WrongExpectedVersionError,
      );
      await expect(store.append(`${prefix}s`, events, { expectedRevision: 0 })).resolves.toMatchObject({
        nextRevision: 2,
      });
      expect((await collect(store.readStream(`${prefix}s`))).map((e) => e.id)).toEqual([
        expect.any(String),
        events[0]!.id,
        events[1]!.id,
      ]);
    });

    it('when an append is retried with the same ids at the same expected revision, then it answers as the first time and stores nothing twice', async () => {
      const events = [event('A'), event('B')].map((e) => ({ ...e, id: randomUUID() }));
      const first = await store.append(`${prefix}s`, events, { expectedRevision: 'no-stream' });
      await store.append(`${prefix}s`, [event('C')]);
      const again = await store.append(`${prefix}s`, events, { expectedRevision: 'no-stream' });
      expect(again).toEqual(first);
      expect(await collect(store.readStream(`${prefix}s`))).toHaveLength(3);
    });

    it('given a batch reusing one id of the stream among new ones, then DuplicateEventId and nothing is appended', async () => {
      const used = { ...event('A'), id: randomUUID() };
      await store.append(`${prefix}s`, [used]);
      await expect(store.append(`${prefix}s`, [event('B'), used])).rejects.toThrow(DuplicateEventIdError);
      expect(await collect(store.readStream(`${prefix}s`))).toHaveLength(1);
    });

    it('given two streams racing for the same new id, then exactly one gets it', async () => {
      const id = randomUUID();
      const outcomes = await Promise.allSettled(
        ['x', 'y', 'z'].map((s) => store.append(`${prefix}${s}`, [{ ...event('A'), id }])),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes.filter((o) => o.status === 'rejected'))
        expect((o as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventIdError);
    });

    it('subscriptions deliver in batches no larger than asked, in order, with both filters applied', async () => {
      await store.append(
        `${prefix}a`,
        Array.from({ length: 40 }, (_, i) => event(i % 2 ? 'Odd' : 'Even', { i })),
      );
      await store.append(`other_${prefix}a`, [event('Even', { i: -1 })]);
      const subscription = store.subscribeToAll({
        after: null,
        filter: { ...ours(), eventTypes: ['Even'] },
        maxBatchSize: 6,
      });
      const sizes: number[] = [];
      const received: number[] = [];
      for await (const batch of subscription) {
        sizes.push(batch.length);
        received.push(...batch.map((e) => (e.data as { i: number }).i));
        if (received.length >= 20) break;
      }
      await subscription.close();
      expect(received).toEqual(Array.from({ length: 20 }, (_, k) => 2 * k));
      expect(Math.max(...sizes)).toBeLessThanOrEqual(6);
    });

    it('a subscription from a stored position delivers nothing at or before it', async () => {
      const { position } = await store.append(`${prefix}p`, [event('A'), event('B')]);
      const subscription = store.subscribeToAll({ after: position, filter: ours() });
      const received = consume(subscription, 1);
      await store.append(`${prefix}p`, [event('C')]);
      expect((await received).map((e) => e.type)).toEqual(['C']);
    });

    it('refuses ids that are not UUIDs, and stream names reserved to EventStoreDB or to the id claims', async () => {
      await expect(store.append(`${prefix}s`, [{ ...event('A'), id: 'evt-1' }])).rejects.toThrow(
        /not a UUID/,
      );
      await expect(store.append('$system', [event('A')])).rejects.toThrow(/reserved/);
      await expect(store.append('gov-event-id-x', [event('A')])).rejects.toThrow(/reserved/);
      expect(await collect(store.readStream(`${prefix}s`))).toEqual([]);
    });
  });
}

function event(type: string, data: object = {}): NewEvent {
  return { type, data, tenant_id: 'tenant-a', correlation_id: randomUUID() };
}

// ── Where a real server comes from ─────────────────────────────────────────────────────────────────

function chooseTarget(): Target {
  const url = process.env.GOV_ESDB_URL?.trim();
  if (url) return { url };
  if (process.env.GOV_TEST_ESDB_DOCKER === '0')
    return {
      skip: 'no EventStoreDB: GOV_ESDB_URL is not set and GOV_TEST_ESDB_DOCKER=0 turns testcontainers off',
    };
  if (dockerAnswers()) return { docker: true };
  return {
    skip: 'no EventStoreDB: GOV_ESDB_URL is not set and no Docker engine is reachable for testcontainers',
  };
}

/**
 * Whether a Docker engine answers `GET /_ping`, decided synchronously and within 3 s: the socket (or
 * DOCKER_HOST) must exist, then a child process asks it.
 */
function dockerAnswers(): boolean {
  const host = process.env.DOCKER_HOST?.trim();
  let request: { socketPath: string } | { host: string; port: number };
  if (host?.startsWith('tcp://')) {
    const { hostname, port } = new URL(host.replace(/^tcp:/, 'http:'));
    request = { host: hostname, port: Number(port || 2375) };
  } else {
    const candidates = host?.startsWith('unix://')
      ? [host.slice('unix://'.length)]
      : ['/var/run/docker.sock', path.join(os.homedir(), '.docker/run/docker.sock')];
    const socketPath = candidates.find((candidate) => fs.existsSync(candidate));
    if (!socketPath) return false;
    request = { socketPath };
  }
  const script = `
    const req = require('node:http').get({ ...${JSON.stringify(request)}, path: '/_ping', timeout: 2500 }, (res) => {
      let body = ''; res.on('data', (c) => (body += c)); res.on('end', () => process.exit(body === 'OK' ? 0 : 1));
    });
    req.on('error', () => process.exit(1)); req.on('timeout', () => process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', script], { timeout: 3_000, stdio: 'ignore' });
  return result.status === 0;
}
