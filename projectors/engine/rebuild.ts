import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventStore } from '../../ports/event-store';
import type { LeaseGrant, LeaseManager } from '../../ports/lease';
import type { ReadStore } from '../../ports/read-store';
import type { Metrics } from '../../runtime/support/metrics';
import type { Progress } from '../../runtime/support/progress-bar';
import { ProjectionCatalog } from './catalog';
import { checkpointName, type Projection, physicalCollection } from './projection';
import { ProjectorRunner } from './runner';

export interface RebuildOptions {
  projection: Projection;
  eventStore: EventStore;
  readStore: ReadStore;
  metrics: Metrics;
  logger: Logger;
  /**
   * `in-place`: drop the serving generation and replay it (stop the projectors first).
   * `beside`: build the next generation while the current one keeps serving, then switch to it; a
   * running server follows the switch.
   */
  mode: 'in-place' | 'beside';
  /**
   * The read store's single-writer leases: the rebuild then writes the generation only while it holds
   * that generation's lease, the one every leased projector of it takes (`checkpointName`), so it never
   * writes beside a running projectors process. A lease another process holds refuses the rebuild
   * (GenerationBusyError, nothing changed); losing it mid-way fails the rebuild (RebuildLeaseLostError).
   */
  singleWriter?: { leases: LeaseManager; ttlMs: number };
  onProgress?: (progress: Progress) => void;
}

/** Another process holds the lease of the generation a rebuild would write: nothing was changed. */
export class GenerationBusyError extends Error {
  override readonly name = 'GenerationBusyError';
}

/** The rebuild's lease was taken by another process mid-way: it stopped writing, nothing was switched. */
export class RebuildLeaseLostError extends Error {
  override readonly name = 'RebuildLeaseLostError';
}

export interface RebuildResult {
  projection: string;
  generation: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

/** Replays a projection from the first event into a clean generation and makes it the serving one. */
export async function rebuildProjection(options: RebuildOptions): Promise<RebuildResult> {
  const { projection, readStore } = options;
  const catalog = new ProjectionCatalog(readStore);
  const serving = await catalog.servingGeneration(projection.name);
  const generation = options.mode === 'beside' ? serving + 1 : serving;
  const lease = options.singleWriter
    ? await RebuildLease.take(options.singleWriter, projection, generation, options.mode)
    : null;
  try {
    return await replayInto(options, catalog, serving, generation, lease);
  } finally {
    await lease?.end();
  }
}

async function replayInto(
  options: RebuildOptions,
  catalog: ProjectionCatalog,
  serving: number,
  generation: number,
  lease: RebuildLease | null,
): Promise<RebuildResult> {
  const { projection, eventStore, readStore } = options;
  await clearGeneration(readStore, projection, generation);

  // Under the rebuild's lease (same owner, so the runner holds it too, renews it and fences with it).
  const runner = new ProjectorRunner({ ...options, generation, singleWriter: lease?.runnerLease });
  const reached = (position: number) =>
    lease ? lease.unlessLost(runner.waitForPosition(position)) : runner.waitForPosition(position);
  const filter = { eventTypes: projection.eventTypes };
  const started = performance.now();
  let target = await eventStore.headPosition(filter);
  const progress = (): Progress => {
    const seconds = (performance.now() - started) / 1000;
    const position = runner.appliedPosition ?? 0;
    const rate = runner.appliedEvents / Math.max(seconds, 1e-3);
    const remaining = target - position;
    const positionRate = position / Math.max(seconds, 1e-3);
    return {
      events: runner.appliedEvents,
      position,
      target,
      rate,
      etaSeconds: positionRate > 0 ? remaining / positionRate : null,
    };
  };
  const ticker = options.onProgress ? setInterval(() => options.onProgress!(progress()), 200) : null;
  try {
    await runner.start();
    await reached(target);
    // Events kept arriving while we replayed: catch up with them before switching.
    target = await eventStore.headPosition(filter);
    await reached(target);
  } finally {
    if (ticker) clearInterval(ticker);
    await runner.stop();
  }
  await catalog.switchTo(projection, generation);
  if (generation !== serving) await clearGeneration(readStore, projection, serving);

  const seconds = (performance.now() - started) / 1000;
  options.onProgress?.(progress());
  return {
    projection: projection.name,
    generation,
    events: runner.appliedEvents,
    seconds,
    eventsPerSecond: runner.appliedEvents / Math.max(seconds, 1e-6),
  };
}

/**
 * The lease of the generation a rebuild writes, taken before the generation is cleared and held (renewed
 * here and by the runner, as one owner) until the runner has stopped.
 */
class RebuildLease {
  private grant: LeaseGrant;
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> = Promise.resolve();
  private readonly lost: Promise<never>;
  private markLost!: (error: Error) => void;

  private constructor(
    private readonly leases: LeaseManager,
    private readonly ttlMs: number,
    grant: LeaseGrant,
  ) {
    this.grant = grant;
    this.lost = new Promise<never>((_, reject) => {
      this.markLost = reject;
    });
    this.lost.catch(() => undefined);
    this.timer = setInterval(() => {
      this.renewing = this.renew();
    }, ttlMs / 3);
  }

  static async take(
    options: { leases: LeaseManager; ttlMs: number },
    projection: Projection,
    generation: number,
    mode: RebuildOptions['mode'],
  ): Promise<RebuildLease> {
    const name = checkpointName(projection, generation);
    const owner = `rebuild-${process.pid}-${randomUUID().slice(0, 8)}`;
    const grant = await options.leases.acquire(name, owner, options.ttlMs);
    if (!grant)
      throw new GenerationBusyError(
        mode === 'in-place'
          ? `generation ${generation} of ${projection.name} is being written by a running projectors process ` +
              `(it holds the lease ${name}): stop every projectors process first (a standby takes the lease ` +
              'over), or rebuild beside the serving generation with --beside while they run'
          : `generation ${generation} of ${projection.name} is already being built by another process (it holds ` +
              `the lease ${name}): wait for that rebuild to end, then see gov projections`,
      );
    return new RebuildLease(options.leases, options.ttlMs, grant);
  }

  /** The runner's single-writer settings: the same lease, as the same owner. */
  get runnerLease(): { leases: LeaseManager; ttlMs: number; owner: string } {
    return { leases: this.leases, ttlMs: this.ttlMs, owner: this.grant.owner };
  }

  /** `work`, or a RebuildLeaseLostError as soon as the lease is found lost. */
  unlessLost<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.lost]);
  }

  /** Stops renewing and releases the lease (once the runner has stopped), so a projector takes it at once. */
  async end(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
    await this.leases.release(this.grant);
  }

  private async renew(): Promise<void> {
    let renewed: LeaseGrant | null;
    try {
      renewed = await this.leases.renew(this.grant, this.ttlMs);
    } catch {
      // Writes stay fenced: if the lease lapses meanwhile and is taken, the store refuses them.
      return;
    }
    if (renewed) this.grant = renewed;
    else
      this.markLost(
        new RebuildLeaseLostError(
          `lost the lease ${this.grant.name} to another process mid-way; nothing was switched. Run the ` +
            'rebuild again once that process has stopped',
        ),
      );
  }
}

/** Drops a generation's collections and checkpoint. */
export async function clearGeneration(
  readStore: ReadStore,
  projection: Projection,
  generation: number,
): Promise<void> {
  await readStore.dropCollections(projection.collections.map((c) => physicalCollection(c, generation)));
  await readStore.deleteCheckpoint(checkpointName(projection, generation));
}
