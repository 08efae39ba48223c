/**
 * A runner keeps the documents it stored between batches (applied-documents.ts). Given any batches,
 * failed applies among them, then the read model is the same as a runner's that reads every document
 * from the store, and a document the runner stored is not read back.
 */
import path from 'node:path';
import pino from 'pino';
import { SqliteEventStore } from '../../adapters/sqlite/event-store';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type { ReadStore } from '../../ports/read-store';
import { createMetrics } from '../../runtime/support/metrics';
import { dumpCollections, streamStatsProjection } from '../../tests/support/stream-stats.projection';
import { tempDir } from '../../tests/support/temp-dir';
import { AppliedDocuments } from './applied-documents';
import { physicalCollection } from './projection';
import { ProjectorRunner } from './runner';

const logger = pino({ level: 'silent' });

/** A read store that counts its gets and fails the applies numbered in `failing` (1-based). */
function observed(store: SqliteReadStore, failing: ReadonlySet<number>) {
  const counts = { gets: 0, applies: 0 };
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'get')
        return (...args: Parameters<ReadStore['get']>) => {
          counts.gets++;
          return target.get(...args);
        };
      if (property === 'apply')
        return (...args: Parameters<ReadStore['apply']>) => {
          counts.applies++;
          if (failing.has(counts.applies)) return Promise.reject(new Error('the disk is full'));
          return target.apply(...args);
        };
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped as ReadStore, counts };
}

async function runToHead(
  dir: string,
  name: string,
  eventStore: SqliteEventStore,
  failing: ReadonlySet<number>,
) {
  const readStore = new SqliteReadStore(path.join(dir, `${name}.db`));
  const { store, counts } = observed(readStore, failing);
  const runner = new ProjectorRunner({
    projection: streamStatsProjection,
    generation: 1,
    eventStore,
    readStore: store,
    metrics: createMetrics(undefined, { defaults: false }),
    logger,
    batchSize: 7,
    retryDelayMs: 5,
  });
  await runner.start();
  await runner.waitForPosition(await eventStore.headPosition());
  await runner.stop();
  const dump = await dumpCollections(
    readStore,
    streamStatsProjection.collections.map((c) => physicalCollection(c, 1)),
  );
  await readStore.close();
  return { dump, counts };
}

describe('a runner keeping the documents it stored', () => {
  it('given 120 events over 3 streams in batches of 7, then each document is read from the store once, and the read model is the same whatever applies failed', async () => {
    const { dir, remove } = tempDir('applied-documents');
    const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    for (let i = 0; i < 120; i++)
      await eventStore.append(`s-${i % 3}`, [
        { type: 'TestEvent', data: { n: i }, tenant_id: `tenant-${i % 2}`, correlation_id: 'c' },
      ]);
    try {
      const clean = await runToHead(dir, 'clean', eventStore, new Set());
      // The 3 stream and 2 tenant-count documents are each read once (absent), then known.
      expect(clean.counts.gets).toBe(5);
      const flaky = await runToHead(dir, 'flaky', eventStore, new Set([2, 5, 6, 11]));
      expect(flaky.dump).toBe(clean.dump);
      // After each failed apply the next subscription reads them from the store again.
      expect(flaky.counts.gets).toBeGreaterThan(5);
    } finally {
      await eventStore.close();
      remove();
    }
  });
});

describe('AppliedDocuments', () => {
  it('given more documents than it keeps, then the least recently used is forgotten', () => {
    const documents = new AppliedDocuments(2);
    documents.remember('c', 'a', { id: 'a', position: 1, data: {} });
    documents.remember('c', 'b', null);
    documents.get('c', 'a');
    documents.remember('c', 'd', { id: 'd', position: 3, data: {} });
    expect([documents.get('c', 'a')?.id, documents.get('c', 'b'), documents.get('c', 'd')?.id]).toEqual([
      'a',
      undefined,
      'd',
    ]);
  });

  it('given a document known absent, then it answers null (not unknown)', () => {
    const documents = new AppliedDocuments();
    documents.remember('c', 'x', null);
    expect(documents.get('c', 'x')).toBeNull();
    expect(documents.get('c', 'y')).toBeUndefined();
  });
});
