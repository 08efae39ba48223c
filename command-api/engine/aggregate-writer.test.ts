/**
 * The aggregate writer over the real embedded event store, with a small capped counter as the
 * aggregate: at most `cap` `Counted` events per stream (3, raised by each `Raised`), as the trial cap
 * is at most five leaves until an operator changes the tier.
 */
import path from 'node:path';
import { SqliteEventStore } from '../../adapters/sqlite/event-store';
import { type EventStore, WrongExpectedVersionError } from '../../ports/event-store';
import { observeAppends } from '../../runtime/wiring/observed-appends';
import { tempDir } from '../../tests/support/temp-dir';
import { type Aggregate, AggregateWriter } from './aggregate-writer';

const CAP = 3;
interface Counter {
  count: number;
  cap: number;
}
const counter: Aggregate<Counter> = {
  initial: () => ({ count: 0, cap: CAP }),
  evolve: (state, event) => {
    if (event.type === 'Counted') return { ...state, count: state.count + 1 };
    if (event.type === 'Raised') return { ...state, cap: state.cap + 1 };
    return state;
  },
};
const anEvent = (type: string) => ({ type, data: {}, tenant_id: 't', correlation_id: 'c' });
const count = (state: Readonly<Counter>) =>
  state.count < state.cap
    ? { events: [anEvent('Counted')], result: { accepted: true } }
    : { events: [], result: { accepted: false } };

/** The store, counting the stream reads made through it. */
function counting(store: EventStore) {
  const reads = { streams: 0 };
  const wrapped = observeAppends(store, () => undefined);
  const readStream = wrapped.readStream;
  wrapped.readStream = (stream, options) => {
    reads.streams += 1;
    return readStream(stream, options);
  };
  return { store: wrapped, reads };
}

describe('AggregateWriter', () => {
  let temp: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  beforeEach(() => {
    temp = tempDir('aggregate-writer');
    store = new SqliteEventStore({ file: path.join(temp.dir, 'events.db') });
  });
  afterEach(async () => {
    await store.close();
    temp.remove();
  });

  it('given a stream this writer has decided on, when the next command comes, then it is decided on the cached state without reading the stream', async () => {
    const { store: observed, reads } = counting(store);
    const writer = new AggregateWriter(observed, counter);
    await writer.execute('s', count);
    expect(reads.streams).toBe(1);
    await writer.execute('s', count);
    await writer.execute('s', count);
    expect(reads.streams).toBe(1);
  });

  it('given another writer appended to the stream, when a command is decided on stale cached state, then the append is refused, the state reloaded and the cap still holds', async () => {
    const first = new AggregateWriter(store, counter);
    const second = new AggregateWriter(store, counter);
    expect((await first.execute('s', count)).accepted).toBe(true); // first caches count 1
    expect((await second.execute('s', count)).accepted).toBe(true); // count 2, unknown to first
    expect((await second.execute('s', count)).accepted).toBe(true); // count 3: the cap

    const late = await first.execute('s', count);
    expect(late.accepted).toBe(false);
    expect(late.eventIds).toEqual([]);
    let stored = 0;
    for await (const event of store.readStream('s')) if (event.type === 'Counted') stored += 1;
    expect(stored).toBe(CAP);
  });

  it('given another writer raised the cap, when a command would be refused on stale cached state, then it is decided again on the stream as it is and accepted', async () => {
    const writer = new AggregateWriter(store, counter);
    for (let i = 0; i < CAP; i++) await writer.execute('s', count);
    expect((await writer.execute('s', count)).accepted).toBe(false);

    await store.append('s', [anEvent('Raised')]); // as `gov tenant tier` does from another process
    const after = await writer.execute('s', count);
    expect(after.accepted).toBe(true);
    expect(after.eventIds).toHaveLength(1);
  });

  it('given concurrent commands on one stream, when they are decided in one round, then each sees the ones before it', async () => {
    const writer = new AggregateWriter(store, counter);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => writer.execute('s', count)));
    expect(outcomes.map((outcome) => outcome.accepted)).toEqual([true, true, true, false, false]);
  });
});

describe('AggregateWriter: how a command meets its stream', () => {
  let temp: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  beforeEach(() => {
    temp = tempDir('aggregate-writer-kinds');
    store = new SqliteEventStore({ file: path.join(temp.dir, 'events.db') });
  });
  afterEach(async () => {
    await store.close();
    temp.remove();
  });

  const start = () => ({ events: [anEvent('Counted')], result: { started: true } });

  it('given a new stream, when a command that starts it runs, then it is appended at no-stream without reading the stream', async () => {
    const { store: observed, reads } = counting(store);
    const writer = new AggregateWriter(observed, counter);
    const started = await writer.execute('new', start, { create: true });
    expect(started.eventIds).toHaveLength(1);
    expect(reads.streams).toBe(0);
    // The writer knows the stream from its own append: the next command reads nothing either.
    expect((await writer.execute('new', count)).accepted).toBe(true);
    expect(reads.streams).toBe(0);
  });

  it('given a stream that exists, when a command that starts it runs, then it fails with WrongExpectedVersionError and appends nothing, whether or not the writer knew the stream', async () => {
    await store.append('taken', [anEvent('Counted')]);
    const cold = new AggregateWriter(store, counter);
    await expect(cold.execute('taken', start, { create: true })).rejects.toBeInstanceOf(
      WrongExpectedVersionError,
    );
    const warm = new AggregateWriter(store, counter);
    await warm.execute('taken', count);
    await expect(warm.execute('taken', start, { create: true })).rejects.toBeInstanceOf(
      WrongExpectedVersionError,
    );
    let stored = 0;
    for await (const _ of store.readStream('taken')) stored += 1;
    expect(stored).toBe(2);
  });

  it('given consistency any, then nothing is read, every decision sees the initial state, and a repeated event id is kept once', async () => {
    const { store: observed, reads } = counting(store);
    const writer = new AggregateWriter(observed, counter, { consistency: 'any' });
    const once = () => ({
      events: [{ ...anEvent('Counted'), id: '00000000-0000-4000-8000-000000000001' }],
      result: {},
    });
    await store.append('any', [anEvent('Raised')]);
    await writer.execute('any', once);
    await writer.execute('any', once);
    expect(await writer.state('any')).toEqual({ count: 0, cap: CAP });
    expect(reads.streams).toBe(0);
    const types: string[] = [];
    for await (const event of store.readStream('any')) types.push(event.type);
    expect(types).toEqual(['Raised', 'Counted']);
  });

  it('given a stream, then state() reads it once and then answers from what the writer knows, new decisions included', async () => {
    const { store: observed, reads } = counting(store);
    await store.append('s', [anEvent('Counted')]);
    const writer = new AggregateWriter(observed, counter);
    expect(await writer.state('s')).toEqual({ count: 1, cap: CAP });
    await writer.execute('s', count);
    expect(await writer.state('s')).toEqual({ count: 2, cap: CAP });
    expect(reads.streams).toBe(1);
  });

  it('given an append that fails, then the state a decision was made on is left as it was, and the next command is decided without the failed one', async () => {
    const writer = new AggregateWriter(store, counter);
    await writer.execute('s', count);
    const before = await writer.state('s');
    const append = store.append.bind(store);
    store.append = () => Promise.reject(new Error('disk full'));
    await expect(writer.execute('s', count)).rejects.toThrow('disk full');
    store.append = append;
    expect(before).toEqual({ count: 1, cap: CAP });
    expect(await writer.state('s')).toEqual({ count: 1, cap: CAP });
    await writer.execute('s', count);
    expect(await writer.state('s')).toEqual({ count: 2, cap: CAP });
  });
});
