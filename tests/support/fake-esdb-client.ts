/**
 * An in-memory imitation of the parts of `EventStoreDBClient` (6.2) the adapter calls, with
 * EventStoreDB's documented behaviour: optimistic concurrency per stream, event ids checked per stream
 * only (idempotent re-appends), `$all` commit positions that are distinct but not dense, system events
 * interleaved in `$all`, reads from a position that include it, catch-up subscriptions that start
 * after it, server-side filters on one field, and the client's own error classes. It lets the
 * adapter's logic (id claims, retries, filters, batching) run here; only a real server (see
 * adapters/eventstoredb/event-store.test.ts) proves the imitation right.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import {
  type AppendExpectedRevision,
  type EventData,
  type Filter,
  type Position,
  type ReadPosition,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import type { EsdbRecord } from '../../adapters/eventstoredb/mapping';

interface FakeRecord extends EsdbRecord {
  position: Position;
}

export class FakeEsdbClient {
  private readonly all: FakeRecord[] = [];
  private readonly streams = new Map<string, FakeRecord[]>();
  private readonly live = new Set<() => void>();
  private readonly outputs = new Set<PassThrough>();
  private logPosition = 1_000n;
  private appends = 0;
  /** Set by `goAway`: every call fails with it. */
  private unavailable: Error | null = null;

  constructor() {
    // A fresh EventStoreDB already holds system events.
    this.write('$epochs', [systemEvent('$epoch')]);
    this.write('$settings', [systemEvent('$settings')]);
  }

  async appendToStream(
    streamName: string,
    events: EventData | EventData[],
    options: { expectedRevision?: AppendExpectedRevision } = {},
  ) {
    const list = Array.isArray(events) ? events : [events];
    await new Promise((resolve) => setImmediate(resolve));
    if (this.unavailable) throw this.unavailable;
    const expected = options.expectedRevision ?? 'any';
    const stream = this.streams.get(streamName) ?? [];
    const current = stream.length === 0 ? ('no_stream' as const) : BigInt(stream.length - 1);

    const idempotent = this.idempotentResult(stream, list, expected);
    if (idempotent) return idempotent;
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === 'no_stream') ||
      (expected === 'stream_exists' && current !== 'no_stream') ||
      (typeof expected === 'bigint' && current === expected);
    if (!ok) throw new WrongExpectedVersionError(undefined, { streamName, expected, current });

    // Statistics and other system events land in $all between the applications' appends.
    if (++this.appends % 7 === 0) this.write('$stats-127.0.0.1:2113', [systemEvent('$statsCollected')]);
    const written = this.write(streamName, list);
    const last = written[written.length - 1]!;
    return { success: true, nextExpectedRevision: last.revision, position: last.position };
  }

  readStream(
    streamName: string,
    options: {
      fromRevision?: 'start' | 'end' | bigint;
      direction?: 'forwards' | 'backwards';
      maxCount?: number;
    } = {},
  ) {
    const client = this;
    return streamingRead(async function* () {
      await new Promise((resolve) => setImmediate(resolve));
      if (client.unavailable) throw client.unavailable;
      const stream = client.streams.get(streamName);
      if (!stream) throw new StreamNotFoundError(undefined, streamName);
      const backwards = options.direction === 'backwards';
      const from = options.fromRevision ?? (backwards ? 'end' : 'start');
      let index = from === 'start' ? 0 : from === 'end' ? stream.length - 1 : Number(from);
      let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
      while (remaining > 0 && index >= 0 && index < stream.length) {
        yield { event: stream[index]! };
        remaining -= 1;
        index += backwards ? -1 : 1;
      }
    });
  }

  readAll(
    options: { fromPosition?: ReadPosition; direction?: 'forwards' | 'backwards'; maxCount?: number } = {},
  ) {
    const client = this;
    return streamingRead(async function* () {
      await new Promise((resolve) => setImmediate(resolve));
      if (client.unavailable) throw client.unavailable;
      let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
      if (options.direction === 'backwards') {
        if (options.fromPosition !== undefined && options.fromPosition !== 'end')
          throw new Error('the imitation reads $all backwards from the end only');
        for (let i = client.all.length - 1; i >= 0 && remaining > 0; i--, remaining--)
          yield { event: client.all[i]! };
        return;
      }
      const from = options.fromPosition;
      // A read from a position includes the event there (positions of ours are record starts).
      const start =
        from === undefined || from === 'start' ? -1n : from === 'end' ? client.logPosition : from.commit;
      for (let i = 0; i < client.all.length && remaining > 0; i++) {
        const record = client.all[i]!;
        if (record.position.commit < start) continue;
        yield { event: record };
        remaining -= 1;
      }
    });
  }

  subscribeToAll(options: { fromPosition?: ReadPosition; filter?: Filter } = {}) {
    const client = this;
    const output = new PassThrough({ objectMode: true, highWaterMark: 64 });
    let stopped = false;
    let wake: (() => void) | null = null;
    const notify = () => {
      const resolve = wake;
      wake = null;
      resolve?.();
    };
    const subscription = Object.assign(output, {
      async unsubscribe() {
        stopped = true;
        client.live.delete(notify);
        notify();
      },
    });
    client.live.add(notify);
    client.outputs.add(output);
    output.once('close', () => client.outputs.delete(output));
    const from = options.fromPosition;
    // A catch-up subscription from a position starts after it.
    const after =
      from === undefined || from === 'start' ? -1n : from === 'end' ? client.logPosition : from.commit;
    void (async () => {
      let index = 0;
      let caughtUp = false;
      while (!stopped) {
        if (client.unavailable) {
          output.destroy(client.unavailable);
          return;
        }
        if (index < client.all.length) {
          const record = client.all[index++]!;
          if (record.position.commit <= after || !passes(options.filter, record)) continue;
          if (!output.write({ event: record, commitPosition: record.position.commit }))
            await new Promise<void>((resolve) => {
              const done = () => {
                output.off('drain', done);
                resolve();
              };
              output.once('drain', done);
              wake = done;
            });
          continue;
        }
        if (!caughtUp) {
          caughtUp = true;
          output.emit('caughtUp');
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    })();
    return subscription;
  }

  /** Every call fails with `error` from now on, and open subscriptions fail with it: a node that went away. */
  goAway(error: Error): void {
    this.unavailable = error;
    for (const notify of this.live) notify();
  }

  /** Ends every open subscription cleanly, as a node that shuts down gracefully. */
  endSubscriptions(): void {
    for (const output of this.outputs) output.end();
  }

  async dispose(): Promise<void> {
    for (const notify of this.live) notify();
    this.live.clear();
  }

  /** Every record of `$all`, system events included (for assertions). */
  records(): readonly EsdbRecord[] {
    return this.all;
  }

  /** Streams whose name starts with `prefix` (for assertions). */
  streamNames(prefix: string): string[] {
    return [...this.streams.keys()].filter((name) => name.startsWith(prefix));
  }

  /** Appends an event another application wrote (not JSON metadata of ours). */
  writeForeign(streamName: string, type: string): void {
    this.write(streamName, [
      { id: randomUUID(), contentType: 'application/json', type, data: { x: 1 }, metadata: undefined },
    ]);
  }

  private write(streamName: string, events: EventData[]): FakeRecord[] {
    const stream = this.streams.get(streamName) ?? [];
    this.streams.set(streamName, stream);
    const written = events.map((event) => {
      const position = this.logPosition;
      const json = event.contentType === 'application/json';
      const record: FakeRecord = {
        streamId: streamName,
        id: event.id.toLowerCase(),
        revision: BigInt(stream.length),
        type: event.type,
        created: new Date(),
        isJson: json,
        data: json ? JSON.parse(JSON.stringify(event.data)) : event.data,
        metadata: event.metadata === undefined ? undefined : JSON.parse(JSON.stringify(event.metadata)),
        position: { commit: position, prepare: position },
      };
      this.logPosition += 64n + BigInt(JSON.stringify(record.data ?? null).length);
      stream.push(record);
      this.all.push(record);
      return record;
    });
    for (const notify of this.live) notify();
    return written;
  }

  /** EventStoreDB's idempotence: the same ids, in order, already in the stream where the append would put them. */
  private idempotentResult(stream: FakeRecord[], events: EventData[], expected: AppendExpectedRevision) {
    const firstIndex =
      typeof expected === 'bigint'
        ? Number(expected) + 1
        : expected === 'no_stream'
          ? 0
          : stream.findIndex((record) => record.id === events[0]!.id.toLowerCase());
    if (firstIndex < 0 || firstIndex + events.length > stream.length) return null;
    const same = events.every((event, i) => stream[firstIndex + i]!.id === event.id.toLowerCase());
    if (!same) return null;
    const last = stream[firstIndex + events.length - 1]!;
    // The server answers an idempotent append without a position of the append's own.
    return { success: true, nextExpectedRevision: last.revision, position: undefined };
  }
}

function systemEvent(type: string): EventData {
  return { id: randomUUID(), contentType: 'application/json', type, data: {}, metadata: undefined };
}

function passes(filter: Filter | undefined, record: FakeRecord): boolean {
  if (!filter) return true;
  const value = filter.filterOn === 'streamName' ? record.streamId : record.type;
  if ('prefixes' in filter) return filter.prefixes.some((prefix) => value.startsWith(prefix));
  return new RegExp(filter.regex).test(value);
}

/** A Readable of resolved events with the client's `cancel()`. */
function streamingRead(source: () => AsyncGenerator<{ event: FakeRecord }>) {
  const readable = Readable.from(source(), { objectMode: true });
  return Object.assign(readable, {
    async cancel() {
      readable.destroy();
    },
  });
}
