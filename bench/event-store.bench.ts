import path from 'node:path';
import pino from 'pino';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import { rebuildProjection } from '../projectors/engine/rebuild';
import { tenantsProjection } from '../projectors/governance/tenants';
import { createMetrics } from '../runtime/support/metrics';
import { sampleEvent } from './append-workload';
import { eventStoreVersusEmmett } from './event-store-vs-emmett';
import type { BenchRow, BenchSuite } from './report';
import { tempDir } from './temp-dir';

const SECONDS = Number(process.env.GOV_BENCH_SECONDS ?? 3);

/** Closed-loop appenders: each waits for its acknowledgement (a durable commit) before the next. */
async function measureAppends(store: SqliteEventStore, concurrency: number, perAppend: number) {
  let appends = 0;
  let seq = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (performance.now() < deadline) {
        const events = Array.from({ length: perAppend }, () => sampleEvent(seq++));
        await store.append(`bench-${w}-${appends % 100}`, events);
        appends += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { appendsPerSecond: appends / seconds, eventsPerSecond: (appends * perAppend) / seconds };
}

export const eventStoreBench: BenchSuite = async () => {
  const rows: BenchRow[] = [];
  const { dir, remove } = tempDir('gov-bench-es');
  try {
    const store = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    for (const perAppend of [1, 100]) {
      for (const concurrency of [1, 64]) {
        const r = await measureAppends(store, concurrency, perAppend);
        const target = perAppend === 1 && concurrency === 64 ? 20_000 : undefined;
        rows.push({
          suite: 'event-store (SQLite)',
          metric: `durable appends/s, ${perAppend} event${perAppend > 1 ? 's' : ''}/append, concurrency ${concurrency}`,
          value: Math.round(r.appendsPerSecond),
          unit: 'appends/s',
          ...(target ? { target: `>= ${target}`, met: r.appendsPerSecond >= target } : {}),
          notes: `${Math.round(r.eventsPerSecond).toLocaleString('en-US')} events/s; synchronous=FULL (fsync per group commit)`,
        });
      }
    }
    // Top up to a round size so read-all and rebuild run over a known amount.
    const total = 500_000;
    let head = await store.headPosition();
    for (let seq = head; head < total; seq += 1000) {
      head = (
        await store.append(
          `fill-${seq % 997}`,
          Array.from({ length: Math.min(1000, total - head) }, (_, i) => sampleEvent(seq + i)),
        )
      ).position;
    }

    const readStarted = performance.now();
    let read = 0;
    for await (const _event of store.readAll()) read += 1;
    const readRate = read / ((performance.now() - readStarted) / 1000);
    rows.push({
      suite: 'event-store (SQLite)',
      metric: `read-all ($all in order, ${read.toLocaleString('en-US')} events, JSON decoded)`,
      value: Math.round(readRate),
      unit: 'events/s',
      target: '>= 200000',
      met: readRate >= 200_000,
    });

    const readStore = new SqliteReadStore(path.join(dir, 'read.db'));
    const result = await rebuildProjection({
      projection: tenantsProjection,
      eventStore: store,
      readStore,
      metrics: createMetrics(undefined, { defaults: false }),
      logger: pino({ level: 'silent' }),
      mode: 'in-place',
    });
    rows.push({
      suite: 'projectors',
      metric: `rebuild 'tenants' (${result.events.toLocaleString('en-US')} events, 2 upserts each)`,
      value: Math.round(result.eventsPerSecond),
      unit: 'events/s',
      target: '>= 50000',
      met: result.eventsPerSecond >= 50_000,
    });
    await readStore.close();
    await store.close();
    rows.push(...(await eventStoreVersusEmmett(dir, SECONDS)));
  } finally {
    remove();
  }
  return rows;
};
