import path from 'node:path';
import pino from 'pino';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteLeaseManager } from '../adapters/sqlite/lease';
import { openSqlite } from '../adapters/sqlite/open';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import type { EventStore } from '../ports/event-store';
import { FencedOutError, type LeaseManager } from '../ports/lease';
import { ProjectionCatalog } from '../projectors/engine/catalog';
import { type Projection, physicalCollection } from '../projectors/engine/projection';
import {
  GenerationBusyError,
  RebuildLeaseLostError,
  type RebuildOptions,
  rebuildProjection,
} from '../projectors/engine/rebuild';
import { ProjectorRunner } from '../projectors/engine/runner';
import { ProjectionSupervisor } from '../projectors/engine/supervisor';
import { createMetrics } from '../runtime/support/metrics';
import { exited, lines, spawnChild, waitForLines } from './support/children';
import { dumpCollections, streamStatsProjection } from './support/stream-stats.projection';
import { tempDir } from './support/temp-dir';

const logger = pino({ level: 'silent' });
const metrics = () => createMetrics(undefined, { defaults: false });
const physical = (projection: Projection, generation: number) =>
  projection.collections.map((c) => physicalCollection(c, generation));

/** Appends `count` TestEvents over a few tenants and streams. */
async function seed(store: SqliteEventStore, count: number, offset = 0): Promise<void> {
  for (let i = 0; i < count; i += 100) {
    await store.append(
      `s-${(i / 100) % 7}`,
      Array.from({ length: Math.min(100, count - i) }, (_, k) => ({
        type: 'TestEvent',
        data: { n: offset + i + k },
        tenant_id: `tenant-${(i + k) % 5}`,
        correlation_id: 'seed',
      })),
    );
  }
}

/** A runner of the test projection in generation 1; `extra` overrides or adds options. */
function statsRunner(
  eventStore: SqliteEventStore,
  readStore: SqliteReadStore,
  extra: Partial<ConstructorParameters<typeof ProjectorRunner>[0]> = {},
): ProjectorRunner {
  return new ProjectorRunner({
    projection: streamStatsProjection,
    generation: 1,
    eventStore,
    readStore,
    metrics: metrics(),
    logger,
    ...extra,
  });
}

/** A rebuild of the test projection; `options` gives the mode and overrides or adds options. */
function rebuildStats(
  eventStore: EventStore,
  readStore: SqliteReadStore,
  options: Pick<RebuildOptions, 'mode'> & Partial<RebuildOptions>,
) {
  return rebuildProjection({
    projection: streamStatsProjection,
    eventStore,
    readStore,
    metrics: metrics(),
    logger,
    ...options,
  });
}

/** The event store and read store files of one test, with `count` events seeded. */
async function openStores(dir: string, count: number) {
  const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
  await seed(eventStore, count);
  const readStore = new SqliteReadStore(path.join(dir, 'read.db'));
  return {
    eventStore,
    readStore,
    close: async () => {
      await readStore.close();
      await eventStore.close();
    },
  };
}

/** A started supervisor of one projection (or several) that checks the catalog every 50 ms. */
async function supervise(
  eventStore: SqliteEventStore,
  readStore: SqliteReadStore,
  projection: Projection | Projection[] = streamStatsProjection,
): Promise<ProjectionSupervisor> {
  const supervisor = new ProjectionSupervisor({
    projections: Array.isArray(projection) ? projection : [projection],
    eventStore,
    readStore,
    metrics: metrics(),
    logger,
    catalogPollMs: 50,
  });
  await supervisor.start();
  return supervisor;
}

/** The read model an uninterrupted run produces, in its own read store. */
async function uninterruptedDump(eventStore: SqliteEventStore, file: string): Promise<string> {
  const readStore = new SqliteReadStore(file);
  const runner = statsRunner(eventStore, readStore);
  await runner.start();
  await runner.waitForPosition(await eventStore.headPosition());
  await runner.stop();
  const dump = await dumpCollections(readStore, physical(streamStatsProjection, 1));
  await readStore.close();
  return dump;
}

describe('projector runtime', () => {
  let dir: string;
  let remove: () => void;
  beforeEach(() => {
    ({ dir, remove } = tempDir('gov-proj'));
  });
  afterEach(() => remove());

  it('given a projector SIGKILLed mid-run several times, when it is restarted, then the read model equals an uninterrupted run', async () => {
    const eventsFile = path.join(dir, 'events.db');
    const readFile = path.join(dir, 'read.db');
    const eventStore = new SqliteEventStore({ file: eventsFile });
    await seed(eventStore, 40_000);

    for (let kill = 0; kill < 5; kill++) {
      const child = spawnChild('projector.ts', [eventsFile, readFile, '37']);
      const out = lines(child);
      await waitForLines(out, 1);
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 40));
      child.kill('SIGKILL');
      await exited(child);
    }
    const interruptedStore = new SqliteReadStore(readFile);
    const checkpointAfterKills = await interruptedStore.getCheckpoint('stream_stats@g1');
    await interruptedStore.close();
    expect(checkpointAfterKills).toBeGreaterThan(0);
    expect(checkpointAfterKills).toBeLessThan(await eventStore.headPosition());

    const finish = spawnChild('projector.ts', [eventsFile, readFile, '37']);
    const finishOut = lines(finish);
    expect((await exited(finish)).code).toBe(0);
    expect(finishOut).toContain('caught-up');

    const resumed = new SqliteReadStore(readFile);
    const resumedDump = await dumpCollections(resumed, physical(streamStatsProjection, 1));
    await resumed.close();
    expect(resumedDump).toBe(await uninterruptedDump(eventStore, path.join(dir, 'clean.db')));
    expect(
      JSON.parse(resumedDump).tenant_counts__g1.map((d: [string, number, { events: number }]) => d[2].events),
    ).toEqual([8000, 8000, 8000, 8000, 8000]);
    await eventStore.close();
  });

  describe('single-writer mode', () => {
    it('given two instances, then exactly one writes; when it stops, the standby takes over from its checkpoint', async () => {
      const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
      const readFile = path.join(dir, 'read.db');
      // Two processes' worth of connections to the same files.
      const instances = [0, 1].map((i) => {
        const db = openSqlite(readFile);
        const readStore = new SqliteReadStore(db);
        const runner = statsRunner(eventStore, readStore, {
          singleWriter: { leases: new SqliteLeaseManager(db), ttlMs: 300, owner: `instance-${i}` },
        });
        return { db, readStore, runner };
      });
      await Promise.all(instances.map((i) => i.runner.start()));
      await seed(eventStore, 1000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await Promise.race(instances.map((i) => i.runner.waitForPosition(1000)));

      const writers = instances.filter((i) => i.runner.isWriter);
      expect(writers).toHaveLength(1);
      const [leader] = writers;
      const standby = instances.find((i) => i !== leader)!;
      expect(leader!.runner.appliedEvents).toBe(1000);
      expect(standby.runner.appliedEvents).toBe(0);

      await leader!.runner.stop();
      await seed(eventStore, 500, 1000);
      await standby.runner.waitForPosition(1500);
      expect(standby.runner.isWriter).toBe(true);
      expect(standby.runner.appliedEvents).toBe(500);
      await standby.runner.stop();

      const dump = await dumpCollections(standby.readStore, physical(streamStatsProjection, 1));
      expect(dump).toBe(await uninterruptedDump(eventStore, path.join(dir, 'clean.db')));
      for (const i of instances) i.db.close();
      await eventStore.close();
    });

    it('given a supervisor of several projections, then each check of the catalog is one read of it, not one per projection', async () => {
      const { eventStore, readStore, close } = await openStores(dir, 10);
      const catalogReads: string[] = [];
      const { get, find } = readStore;
      readStore.get = ((collection: string, id: string) => {
        if (collection === '_projection_catalog') catalogReads.push('get');
        return get.call(readStore, collection, id);
      }) as typeof get;
      readStore.find = ((collection: string, query: Parameters<typeof find>[1]) => {
        if (collection === '_projection_catalog') catalogReads.push('find');
        return find.call(readStore, collection, query);
      }) as typeof find;
      const supervisor = await supervise(eventStore, readStore, [
        streamStatsProjection,
        { ...streamStatsProjection, name: 'stream_stats_copy' },
      ]);
      catalogReads.length = 0;
      await new Promise((resolve) => setTimeout(resolve, 400));
      await supervisor.stop();
      expect(catalogReads.length).toBeGreaterThanOrEqual(3);
      expect(new Set(catalogReads)).toEqual(new Set(['find']));
      await close();
    });

    it('given a supervisor with leases and a lease TTL, then its projectors take and renew their leases for that TTL', async () => {
      const { eventStore, readStore, close } = await openStores(dir, 10);
      const store = readStore.leases();
      const ttls: number[] = [];
      const leases: LeaseManager = {
        acquire: (name, owner, ttlMs) => {
          ttls.push(ttlMs);
          return store.acquire(name, owner, ttlMs);
        },
        renew: (grant, ttlMs) => {
          ttls.push(ttlMs);
          return store.renew(grant, ttlMs);
        },
        release: (grant) => store.release(grant),
        holder: (name) => store.holder(name),
      };
      const supervisor = new ProjectionSupervisor({
        projections: [streamStatsProjection],
        eventStore,
        readStore,
        metrics: metrics(),
        logger,
        leases,
        leaseTtlMs: 600,
      });
      await supervisor.start();
      await supervisor.waitForPosition(10);
      // Renewed every third of the TTL: at 200 ms, 400 ms, …
      await new Promise((resolve) => setTimeout(resolve, 700));
      await supervisor.stop();
      expect(ttls.length).toBeGreaterThanOrEqual(3);
      expect(new Set(ttls)).toEqual(new Set([600]));
      await close();
    });

    it('given an instance whose lease lapsed and was taken, when it writes with its old grant, then it is fenced out and nothing is written', async () => {
      const db = openSqlite(path.join(dir, 'read.db'));
      const readStore = new SqliteReadStore(db);
      let now = 1_000_000;
      const leases = new SqliteLeaseManager(db, () => now);
      const paused = (await leases.acquire('p@g1', 'a', 1000))!;
      now += 5000; // `a` is paused (GC, SIGSTOP) past its lease…
      const taken = (await leases.acquire('p@g1', 'b', 1000))!;
      expect(taken.epoch).toBe(paused.epoch + 1);
      await expect(leases.renew(paused, 1000)).resolves.toBeNull();

      const write = { kind: 'upsert' as const, collection: 'c', id: 'x', position: 5, data: { by: 'a' } };
      await expect(
        readStore.apply([write], { projector: 'p@g1', position: 5, fence: paused }),
      ).rejects.toThrow(FencedOutError);
      expect(await readStore.get('c', 'x')).toBeNull();
      expect(await readStore.getCheckpoint('p@g1')).toBeNull();

      await readStore.apply([{ ...write, data: { by: 'b' } }], {
        projector: 'p@g1',
        position: 5,
        fence: taken,
      });
      expect((await readStore.get('c', 'x'))?.data).toEqual({ by: 'b' });
      db.close();
    });

    it('given a lease free, held, lapsed or released, then its holder is the live owner or null, and asking takes nothing', async () => {
      const db = openSqlite(path.join(dir, 'read.db'));
      let now = 1_000_000;
      const leases = new SqliteLeaseManager(db, () => now);
      expect(await leases.holder('p')).toBeNull();
      const grant = (await leases.acquire('p', 'a', 1000))!;
      expect(grant.epoch).toBe(1);
      expect(await leases.holder('p')).toBe('a');
      now += 1000;
      expect(await leases.holder('p')).toBeNull();
      const taken = (await leases.acquire('p', 'b', 1000))!;
      expect(await leases.holder('p')).toBe('b');
      await leases.release(taken);
      expect(await leases.holder('p')).toBeNull();
      db.close();
    });
  });

  describe('rebuild', () => {
    it('in place: drops the projection and replays it to the same bytes', async () => {
      const { eventStore, readStore, close } = await openStores(dir, 3000);
      const live = statsRunner(eventStore, readStore, { batchSize: 64 });
      await live.start();
      await live.waitForPosition(3000);
      await live.stop();
      const before = await dumpCollections(readStore, physical(streamStatsProjection, 1));

      const progress: number[] = [];
      const result = await rebuildStats(eventStore, readStore, {
        mode: 'in-place',
        onProgress: (p) => progress.push(p.events),
      });
      expect(result).toMatchObject({ generation: 1, events: 3000 });
      expect(progress.at(-1)).toBe(3000);
      expect(await dumpCollections(readStore, physical(streamStatsProjection, 1))).toBe(before);
      await close();
    });

    it('beside: builds the next generation while the old one serves, switches, and a running server follows', async () => {
      const { eventStore, readStore, close } = await openStores(dir, 2000);
      const supervisor = await supervise(eventStore, readStore);
      await supervisor.waitForPosition(2000);
      const before = await dumpCollections(readStore, physical(streamStatsProjection, 1));

      const result = await rebuildStats(eventStore, readStore, { mode: 'beside' });
      expect(result.generation).toBe(2);
      const catalog = new ProjectionCatalog(readStore);
      expect(await catalog.servingGeneration('stream_stats')).toBe(2);
      const rebuilt = await dumpCollections(readStore, physical(streamStatsProjection, 2));
      expect(rebuilt.replaceAll('__g2', '__g1')).toBe(before);

      // The running server moves to generation 2 and keeps it live.
      await waitUntil(() => supervisor.runner('stream_stats')?.generation === 2);
      await seed(eventStore, 100, 2000);
      await supervisor.waitForPosition(2100);
      await supervisor.stop();
      expect(await readStore.count(physicalCollection('streams', 1))).toBe(0);
      const after = await dumpCollections(readStore, physical(streamStatsProjection, 2));
      expect(after.replaceAll('__g2', '__g1')).toBe(
        await uninterruptedDump(eventStore, path.join(dir, 'clean.db')),
      );
      await close();
    });

    it("under single-writer leases: refused while a projector holds the generation's lease, nothing dropped; run once it stopped, a standby started meanwhile waits and then takes over from the rebuild's checkpoint", async () => {
      const { eventStore, readStore, close } = await openStores(dir, 2000);
      const leases = readStore.leases();
      const leased = (owner: string) =>
        statsRunner(eventStore, readStore, { singleWriter: { leases, ttlMs: 300, owner } });
      let standby: ProjectorRunner | null = null;
      const rebuild = (startStandby = false) =>
        rebuildStats(eventStore, readStore, {
          mode: 'in-place',
          singleWriter: {
            ttlMs: 300,
            leases: {
              acquire: async (name, owner, ttlMs) => {
                const grant = await leases.acquire(name, owner, ttlMs);
                // A projectors process started once the rebuild holds the lease.
                if (startStandby && grant && !standby) {
                  standby = leased('projectors-b');
                  await standby.start();
                }
                return grant;
              },
              renew: (grant, ttlMs) => leases.renew(grant, ttlMs),
              release: (grant) => leases.release(grant),
              holder: (name) => leases.holder(name),
            },
          },
        });
      const live = leased('projectors-a');
      await live.start();
      await live.waitForPosition(2000);
      const before = await dumpCollections(readStore, physical(streamStatsProjection, 1));

      await expect(rebuild()).rejects.toThrow(GenerationBusyError);
      await expect(rebuild()).rejects.toThrow(
        /being written by a running projectors process \(it holds the lease stream_stats@g1\)/,
      );
      expect(await dumpCollections(readStore, physical(streamStatsProjection, 1))).toBe(before);
      expect(live.isWriter).toBe(true);

      await live.stop();
      const result = await rebuild(true);
      expect(result).toMatchObject({ generation: 1, events: 2000 });
      expect(await dumpCollections(readStore, physical(streamStatsProjection, 1))).toBe(before);
      // The standby wrote nothing beside the rebuild, and resumes after it: only what was appended since.
      const resumed = standby as ProjectorRunner | null;
      expect(resumed?.appliedEvents).toBe(0);
      await seed(eventStore, 100, 2000);
      await resumed!.waitForPosition(2100);
      expect(resumed!.appliedEvents).toBe(100);
      await resumed!.stop();
      expect(await dumpCollections(readStore, physical(streamStatsProjection, 1))).toBe(
        await uninterruptedDump(eventStore, path.join(dir, 'clean.db')),
      );
      await close();
    });

    it('under single-writer leases: when another process takes the lease mid-way, then the rebuild fails and nothing is switched', async () => {
      const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
      await seed(eventStore, 500);
      const db = openSqlite(path.join(dir, 'read.db'));
      const readStore = new SqliteReadStore(db);
      let now = 1_000_000;
      const leases = new SqliteLeaseManager(db, () => now);
      // A head that is never reached: the rebuild can end only by losing its lease.
      const unreachedHead = new Proxy(eventStore, {
        get(target, name) {
          if (name === 'headPosition') return async () => (await target.headPosition()) + 1000;
          const value = Reflect.get(target, name, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const rebuilding = rebuildStats(unreachedHead, readStore, {
        mode: 'beside',
        singleWriter: { leases, ttlMs: 300 },
      });
      rebuilding.catch(() => undefined);
      await waitUntilAsync(async () => (await readStore.getCheckpoint('stream_stats@g2')) === 500);
      now += 10_000; // the rebuild paused past its lease…
      expect(await leases.acquire('stream_stats@g2', 'intruder', 300)).not.toBeNull();
      await expect(rebuilding).rejects.toThrow(RebuildLeaseLostError);
      expect(await new ProjectionCatalog(readStore).entry('stream_stats')).toBeNull();
      db.close();
      await eventStore.close();
    });

    it('on deploy of a new projection version, the server builds it beside and switches when caught up', async () => {
      const { eventStore, readStore, close } = await openStores(dir, 1000);
      const start = (projection: Projection) => supervise(eventStore, readStore, projection);
      const v1 = await start(streamStatsProjection);
      await v1.waitForPosition(1000);
      await v1.stop();

      const v2: Projection = { ...streamStatsProjection, version: 2 };
      const upgraded = await start(v2);
      await waitUntil(() => upgraded.runner('stream_stats')?.generation === 2);
      const entry = await new ProjectionCatalog(readStore).entry('stream_stats');
      expect(entry).toMatchObject({ generation: 2, code_version: 2 });
      await upgraded.stop();
      expect(await readStore.count(physicalCollection('streams', 2))).toBe(7);
      await close();
    });
  });

  it('exposes lag and rate as metrics', async () => {
    const { eventStore, readStore, close } = await openStores(dir, 2000);
    const m = metrics();
    const runner = statsRunner(eventStore, readStore, { metrics: m, batchSize: 100 });
    await runner.start();
    await runner.waitForPosition(2000);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const text = await m.registry.metrics();
    await runner.stop();
    expect(text).toMatch(/gov_projector_events_total\{projector="stream_stats@g1"\} 2000/);
    expect(text).toMatch(/gov_projector_lag_events\{projector="stream_stats@g1"\} 0/);
    expect(text).toMatch(/gov_projector_checkpoint_position\{projector="stream_stats@g1"\} 2000/);
    const rate = Number(
      /gov_projector_events_per_second\{projector="stream_stats@g1"\} ([\d.e+]+)/.exec(text)?.[1],
    );
    expect(rate).toBeGreaterThan(0);
    await close();
  });
});

async function waitUntilAsync(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
