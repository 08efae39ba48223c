/**
 * The append workloads run the same way on this project's event store and on a peer's: closed-loop
 * appenders with an expected-version check on every append, each owning its own streams (so no append
 * conflicts and every failure is a real one), and reading a stream back.
 */
import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../ports/event-store';

/** An event store as the workloads see it. */
export interface AppendTarget {
  /** Appends to a stream that holds exactly `countBefore` events (0: the stream must not exist). */
  append(stream: string, events: readonly NewEvent[], countBefore: number): Promise<void>;
  /** Reads a whole stream, oldest first; resolves with how many events it holds. */
  readStream(stream: string): Promise<number>;
  close(): Promise<void>;
}

/** A realistic small event (~350 bytes of JSON), like a tenant or admission event. */
export function sampleEvent(i: number): NewEvent {
  return {
    type: 'TenantRegistered',
    data: {
      tenant_id: `ten_${i.toString(16).padStart(24, '0')}`,
      node_id: `node_${i.toString(16).padStart(24, '0')}`,
      email: `user${i}@example.com`,
      mode: 'live',
      tier: 'L1',
      key_id: i.toString(16).padStart(16, '0'),
      key_hash: randomUUID().replaceAll('-', '').repeat(2),
      registered_at: new Date().toISOString(),
    },
    tenant_id: `ten_${i}`,
    correlation_id: randomUUID(),
  };
}

export interface StreamAppendOptions {
  /** Appenders, each waiting for its acknowledgement before the next append. */
  concurrency: number;
  eventsPerAppend: number;
  /** Streams in all, dealt round-robin to the appenders; each appender cycles through its own. */
  streams: number;
  seconds: number;
  /** Keeps this run's streams apart from other runs on the same store. */
  prefix: string;
}

/** Appends per second (and events per second) until `seconds` have passed. */
export async function measureStreamAppends(
  target: AppendTarget,
  options: StreamAppendOptions,
): Promise<{ appendsPerSecond: number; eventsPerSecond: number }> {
  let appends = 0;
  let seq = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      const mine = ownedStreams(worker, options.concurrency, options.streams);
      const counts = new Array<number>(mine.length).fill(0);
      for (let turn = 0; performance.now() < deadline; turn++) {
        const k = turn % mine.length;
        const events = Array.from({ length: options.eventsPerAppend }, () => sampleEvent(seq++));
        await target.append(`${options.prefix}-${mine[k]}`, events, counts[k]!);
        counts[k]! += events.length;
        appends += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    appendsPerSecond: appends / seconds,
    eventsPerSecond: (appends * options.eventsPerAppend) / seconds,
  };
}

/** The streams appender `worker` of `workers` owns: worker, worker + workers, … below `streams`. */
export function ownedStreams(worker: number, workers: number, streams: number): number[] {
  const owned: number[] = [];
  for (let stream = worker; stream < streams; stream += workers) owned.push(stream);
  return owned.length > 0 ? owned : [worker];
}

/** Writes one stream of `events` events (100 per append), then reads it whole until `seconds` pass. */
export async function measureStreamReads(
  target: AppendTarget,
  stream: string,
  events: number,
  seconds: number,
): Promise<{ eventsPerSecond: number }> {
  for (let count = 0; count < events; count += 100)
    await target.append(
      stream,
      Array.from({ length: Math.min(100, events - count) }, (_, i) => sampleEvent(count + i)),
      count,
    );
  let read = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    const count = await target.readStream(stream);
    if (count !== events) throw new Error(`read ${count} events back from ${stream}, wrote ${events}`);
    read += count;
  }
  return { eventsPerSecond: read / ((performance.now() - started) / 1000) };
}
