import { randomUUID } from 'node:crypto';
import {
  DuplicateEventIdError,
  type EventStore,
  EventTooLargeError,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../event-store';

export interface EventStoreContractOptions {
  create: () => Promise<{ store: EventStore; dispose: () => Promise<void> }>;
  /** The adapter's configured event size limit. */
  maxEventBytes: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The behaviour every event store adapter must have. It uses only the port and a stream prefix unique
 * to each test, so it runs unchanged against a shared EventStoreDB server that holds other data.
 */
export function eventStoreContract(name: string, options: EventStoreContractOptions): void {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    let dispose: () => Promise<void>;
    let prefix: string;

    beforeEach(async () => {
      ({ store, dispose } = await options.create());
      prefix = `contract_${randomUUID().replaceAll('-', '')}-`;
    });
    afterEach(async () => {
      await dispose();
    });

    const stream = (suffix: string) => `${prefix}${suffix}`;
    const event = (type: string, data: object = {}): NewEvent => ({
      type,
      data,
      tenant_id: 'tenant-a',
      correlation_id: randomUUID(),
    });
    const ours = () => ({ streamPrefixes: [prefix] });

    describe('append and optimistic concurrency', () => {
      it('given no stream, when appending with no-stream, then revisions start at 0', async () => {
        const result = await store.append(stream('a'), [event('A'), event('B')], {
          expectedRevision: 'no-stream',
        });
        expect(result.nextRevision).toBe(1);
        const events = await collect(store.readStream(stream('a')));
        expect(events.map((e) => [e.type, e.revision])).toEqual([
          ['A', 0],
          ['B', 1],
        ]);
        expect(result.position).toBe(events[1]!.position);
      });

      it('given a stream, when appending with no-stream, then WrongExpectedVersion and nothing is appended', async () => {
        await store.append(stream('a'), [event('A')]);
        await expect(
          store.append(stream('a'), [event('B')], { expectedRevision: 'no-stream' }),
        ).rejects.toThrow(WrongExpectedVersionError);
        expect((await collect(store.readStream(stream('a')))).map((e) => e.type)).toEqual(['A']);
      });

      it('given a stream at revision 1, when appending at revision 0, then the error names stream, expected and actual', async () => {
        await store.append(stream('a'), [event('A'), event('B')]);
        const error = await store.append(stream('a'), [event('C')], { expectedRevision: 0 }).catch((e) => e);
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        expect(error).toMatchObject({ stream: stream('a'), expected: 0, actual: 1 });
        await expect(store.append(stream('a'), [event('C')], { expectedRevision: 1 })).resolves.toMatchObject(
          {
            nextRevision: 2,
          },
        );
      });

      it('given no stream, when appending with exists, then WrongExpectedVersion with actual no-stream', async () => {
        const error = await store
          .append(stream('none'), [event('A')], { expectedRevision: 'exists' })
          .catch((e) => e);
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        expect(error.actual).toBe('no-stream');
        await store.append(stream('none'), [event('A')]);
        await expect(
          store.append(stream('none'), [event('B')], { expectedRevision: 'exists' }),
        ).resolves.toMatchObject({
          nextRevision: 1,
        });
      });

      it('when 20 writers append concurrently at the same expected revision, then exactly one wins', async () => {
        await store.append(stream('race'), [event('Init')]);
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            store.append(stream('race'), [event('Race', { writer: i })], { expectedRevision: 0 }),
          ),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results.filter((r) => r.status === 'rejected')) {
          expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
        }
        expect(await collect(store.readStream(stream('race')))).toHaveLength(2);
      });

      it('when the same event ids are appended again to the same stream, then it is an idempotent retry', async () => {
        const events = [event('A'), event('B')].map((e) => ({ ...e, id: randomUUID() }));
        const first = await store.append(stream('idem'), events);
        const again = await store.append(stream('idem'), events);
        expect(again).toEqual(first);
        expect(await collect(store.readStream(stream('idem')))).toHaveLength(2);
      });

      it('when an event id already used is appended to another stream, then DuplicateEventId', async () => {
        const id = randomUUID();
        await store.append(stream('one'), [{ ...event('A'), id }]);
        await expect(store.append(stream('two'), [{ ...event('A'), id }])).rejects.toThrow(
          DuplicateEventIdError,
        );
        expect(await collect(store.readStream(stream('two')))).toEqual([]);
      });

      it('when an event exceeds the size limit, then EventTooLarge and no event of that append is stored', async () => {
        const big = event('Big', { blob: 'x'.repeat(options.maxEventBytes + 1) });
        const error = await store.append(stream('big'), [event('Small'), big]).catch((e) => e);
        expect(error).toBeInstanceOf(EventTooLargeError);
        expect(error.message).toMatch(/limit/);
        expect(await collect(store.readStream(stream('big')))).toEqual([]);
      });

      it('when a batch of 5,000 events is appended at once, then all are stored in order', async () => {
        const batch = Array.from({ length: 5000 }, (_, i) => event('Bulk', { i }));
        const result = await store.append(stream('bulk'), batch);
        expect(result.nextRevision).toBe(4999);
        const read = await collect(store.readStream(stream('bulk')));
        expect(read.map((e) => (e.data as { i: number }).i)).toEqual(batch.map((_, i) => i));
        expect(isStrictlyIncreasing(read.map((e) => e.position))).toBe(true);
      });
    });

    describe('what every stored event carries', () => {
      it('id, type, stream, revision, position, recorded_at, tenant, correlation, causation and schema version', async () => {
        const id = randomUUID();
        await store.append(stream('meta'), [
          {
            id,
            type: 'Meta',
            data: { n: 1 },
            tenant_id: 't1',
            correlation_id: 'c1',
            causation_id: 'k1',
            schema_version: 2,
          },
          { type: 'Meta2', data: {}, tenant_id: 't1', correlation_id: 'c1' },
        ]);
        const [first, second] = await collect(store.readStream(stream('meta')));
        expect(first).toEqual({
          id,
          type: 'Meta',
          stream: stream('meta'),
          revision: 0,
          position: expect.any(Number),
          recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
          tenant_id: 't1',
          correlation_id: 'c1',
          causation_id: 'k1',
          schema_version: 2,
          data: { n: 1 },
        });
        expect(second!.id).toMatch(UUID);
        expect(second!.causation_id).toBeNull();
        expect(second!.schema_version).toBe(1);
      });
    });

    describe('reading a stream', () => {
      it('reads forwards from a revision, backwards from the end, and at most maxCount', async () => {
        await store.append(
          stream('r'),
          ['A', 'B', 'C', 'D'].map((t) => event(t)),
        );
        const types = async (it: AsyncIterable<RecordedEvent>) => (await collect(it)).map((e) => e.type);
        expect(await types(store.readStream(stream('r'), { fromRevision: 2 }))).toEqual(['C', 'D']);
        expect(await types(store.readStream(stream('r'), { direction: 'backwards' }))).toEqual([
          'D',
          'C',
          'B',
          'A',
        ]);
        expect(await types(store.readStream(stream('r'), { direction: 'backwards', maxCount: 1 }))).toEqual([
          'D',
        ]);
        expect(await types(store.readStream(stream('r'), { fromRevision: 1, maxCount: 2 }))).toEqual([
          'B',
          'C',
        ]);
      });

      it('a stream that does not exist reads as empty', async () => {
        expect(await collect(store.readStream(stream('missing')))).toEqual([]);
      });
    });

    describe('reading $all', () => {
      it('returns events of all streams in commit order, after a position, filtered by type', async () => {
        await store.append(stream('x'), [event('Keep', { n: 1 })]);
        await store.append(stream('y'), [event('Skip'), event('Keep', { n: 2 })]);
        await store.append(stream('x'), [event('Keep', { n: 3 })]);
        const all = await collect(store.readAll({ filter: ours() }));
        expect(all.map((e) => e.type)).toEqual(['Keep', 'Skip', 'Keep', 'Keep']);
        expect(isStrictlyIncreasing(all.map((e) => e.position))).toBe(true);

        const kept = await collect(store.readAll({ filter: { ...ours(), eventTypes: ['Keep'] } }));
        expect(kept.map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3]);

        const afterFirst = await collect(store.readAll({ after: all[0]!.position, filter: ours() }));
        expect(afterFirst).toEqual(all.slice(1));
        const fromSecond = await collect(
          store.readAll({ from: all[1]!.position, filter: ours(), maxCount: 1 }),
        );
        expect(fromSecond).toEqual([all[1]]);
        expect(await collect(store.readAll({ filter: ours(), maxCount: 2 }))).toEqual(all.slice(0, 2));
      });

      it('headPosition is the position of the newest event', async () => {
        const { position } = await store.append(stream('h'), [event('A')]);
        expect(await store.headPosition()).toBeGreaterThanOrEqual(position);
        const { position: next } = await store.append(stream('h'), [event('B')]);
        expect(await store.headPosition()).toBeGreaterThanOrEqual(next);
        expect(next).toBeGreaterThan(position);
      });

      it('headPosition with a filter is the position of the newest matching event', async () => {
        const { position: wanted } = await store.append(stream('hf'), [event('Wanted')]);
        await store.append(stream('hf'), [event('Other')]);
        expect(await store.headPosition({ ...ours(), eventTypes: ['Wanted'] })).toBe(wanted);
        expect(await store.headPosition({ ...ours(), eventTypes: ['Absent'] })).toBe(0);
      });
    });

    describe('catch-up subscriptions', () => {
      it('delivers history then live events, from a stored position, in order', async () => {
        await store.append(stream('s'), [event('H1'), event('H2'), event('H3')]);
        const history = await collect(store.readAll({ filter: ours() }));
        const subscription = store.subscribeToAll({ after: history[0]!.position, filter: ours() });
        const received = consume(subscription, 4);
        await store.append(stream('s'), [event('L1')]);
        await store.append(stream('t'), [event('L2')]);
        const types = (await received).map((e) => e.type);
        expect(types).toEqual(['H2', 'H3', 'L1', 'L2']);
      });

      it('applies the type filter on the live side too', async () => {
        const subscription = store.subscribeToAll({
          after: null,
          filter: { ...ours(), eventTypes: ['Wanted'] },
        });
        const received = consume(subscription, 2);
        await store.append(stream('f'), [event('Other'), event('Wanted', { n: 1 }), event('Other')]);
        await store.append(stream('f'), [event('Wanted', { n: 2 })]);
        expect((await received).map((e) => (e.data as { n: number }).n)).toEqual([1, 2]);
      });

      it('given dataMembers for a type, then its events carry at least those members and other types come whole, history and live alike', async () => {
        await store.append(stream('dm'), [
          event('Wanted', { leaf_hash: 'h1', big: { nested: [1, 2] }, n: 1 }),
        ]);
        const subscription = store.subscribeToAll({
          after: null,
          filter: { ...ours(), eventTypes: ['Wanted', 'Whole'] },
          dataMembers: { Wanted: ['leaf_hash', 'n', 'absent'] },
        });
        const received = consume(subscription, 3);
        await store.append(stream('dm'), [
          event('Wanted', { leaf_hash: 'h2', n: 2 }),
          event('Whole', { leaf_hash: 'h3', big: { nested: [3] } }),
        ]);
        const events = await received;
        expect(events.map((e) => e.type)).toEqual(['Wanted', 'Wanted', 'Whole']);
        expect(events.map((e) => e.data)).toEqual([
          expect.objectContaining({ leaf_hash: 'h1', n: 1 }),
          expect.objectContaining({ leaf_hash: 'h2', n: 2 }),
          { leaf_hash: 'h3', big: { nested: [3] } },
        ]);
        // A member the event lacks is never invented with a value.
        expect(events.map((e) => (e.data as { absent?: unknown }).absent ?? null)).toEqual([
          null,
          null,
          null,
        ]);
      });

      it('given dataMembers naming members of a member, then they are where the whole data has them', async () => {
        await store.append(stream('dn'), [
          event('Nested', { bundle: { parent: 'p1', big: 'x'.repeat(100), deep: { a: 1, b: 2 } }, n: 1 }),
          event('Nested', { bundle: { parent: null }, n: 2 }),
        ]);
        const subscription = store.subscribeToAll({
          after: null,
          filter: { ...ours(), eventTypes: ['Nested'] },
          dataMembers: { Nested: ['bundle.parent', 'bundle.deep.a', 'n'] },
        });
        const events = await consume(subscription, 2);
        expect(events.map((e) => e.data)).toEqual([
          expect.objectContaining({
            bundle: expect.objectContaining({ parent: 'p1', deep: expect.objectContaining({ a: 1 }) }),
            n: 1,
          }),
          expect.objectContaining({ bundle: expect.objectContaining({ parent: null }), n: 2 }),
        ]);
      });

      it('hands over from history to live with no gap and no duplicate under concurrent appends', async () => {
        const writers = 8;
        const appendsPerWriter = 60;
        // History exists before the subscription starts…
        await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.append(stream(`pre${i % 5}`), [event('Pre', { i })])),
        );
        // …and writers keep appending while it catches up and goes live.
        const writing = Promise.all(
          Array.from({ length: writers }, async (_, w) => {
            for (let i = 0; i < appendsPerWriter; i++) {
              await store.append(stream(`w${w}`), [event('Live', { w, i }), event('Live2', { w, i })]);
              if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
            }
          }),
        );
        const expectedTotal = 50 + writers * appendsPerWriter * 2;
        const subscription = store.subscribeToAll({ after: null, filter: ours(), maxBatchSize: 17 });
        const received = await consume(subscription, expectedTotal);
        await writing;
        const all = await collect(store.readAll({ filter: ours() }));
        expect(all).toHaveLength(expectedTotal);
        expect(received.map((e) => e.id)).toEqual(all.map((e) => e.id));
        expect(isStrictlyIncreasing(received.map((e) => e.position))).toBe(true);
      });

      it('close ends a subscription that is waiting for live events', async () => {
        const subscription = store.subscribeToAll({ after: await store.headPosition(), filter: ours() });
        const iterating = (async () => {
          for await (const _batch of subscription) {
            /* nothing is appended */
          }
          return 'ended';
        })();
        await new Promise((resolve) => setTimeout(resolve, 50));
        await subscription.close();
        await expect(iterating).resolves.toBe('ended');
      });
    });
  });
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Reads a subscription until `count` events have arrived, then closes it. */
export async function consume(
  subscription: AsyncIterable<RecordedEvent[]> & { close(): Promise<void> },
  count: number,
  timeoutMs = 20_000,
): Promise<RecordedEvent[]> {
  const received: RecordedEvent[] = [];
  const timer = setTimeout(() => void subscription.close(), timeoutMs);
  try {
    for await (const batch of subscription) {
      expect(batch.length).toBeGreaterThan(0);
      received.push(...batch);
      if (received.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    await subscription.close();
  }
  if (received.length < count)
    throw new Error(`subscription delivered ${received.length} of ${count} events`);
  return received;
}

function isStrictlyIncreasing(values: number[]): boolean {
  return values.every((v, i) => i === 0 || v > values[i - 1]!);
}
