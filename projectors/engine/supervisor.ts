import type { Logger } from 'pino';
import type { EventStore } from '../../ports/event-store';
import type { LeaseManager } from '../../ports/lease';
import type { ReadStore } from '../../ports/read-store';
import type { Metrics } from '../../runtime/support/metrics';
import { ProjectionCatalog } from './catalog';
import type { Projection } from './projection';
import { clearGeneration } from './rebuild';
import { ProjectorRunner } from './runner';

export interface SupervisorOptions {
  projections: readonly Projection[];
  eventStore: EventStore;
  readStore: ReadStore;
  metrics: Metrics;
  logger: Logger;
  /** Run every projector in single-writer mode with these leases (several processes may run them). */
  leases?: LeaseManager;
  /** How long a projector that stopped renewing keeps its lease (GOV_LEASE_TTL_MS); default 5 s. */
  leaseTtlMs?: number;
  /** How often the catalog is checked for a generation switched by `gov rebuild --beside`. */
  catalogPollMs?: number;
  /** Told after each batch a serving projection stores, with the position it reached. */
  onApplied?: (projectionName: string, position: number) => void;
}

/**
 * How far the followers of the event log (this thread's projections, or other threads') have got: what
 * the read barrier (read-api/engine/read-barrier.ts) waits on.
 */
export interface AppliedPositions {
  /** The position follower `name` has applied up to, as this process last learned; null before any. */
  appliedPosition(name: string): number | null;
  /** Resolves once follower `name` has applied everything up to `position`. */
  waitForProjection(name: string, position: number): Promise<void>;
}

/** What a server needs of its projectors, wherever they run (this thread, or one of their own). */
export interface RunningProjections extends AppliedPositions {
  /**
   * Resolves when every projection has applied the events up to `position` (read-your-write). With
   * `eventTypes` (the types just appended), only projections reading one of them are waited for: a
   * filtered projection never sees, so never passes, a position holding none of its types.
   */
  waitForPosition(position: number, eventTypes?: readonly string[]): Promise<void>;
  /** Resolves once every projection has applied what the store held when this was called (start-up). */
  catchUp(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs the server's projectors. It serves each projection from the catalog's generation, follows a
 * switch made by an operator's rebuild, and performs the blue/green step itself when the code's
 * `Projection.version` is newer than the serving generation's: it builds the next generation beside
 * the serving one and switches once that has caught up.
 */
export class ProjectionSupervisor implements RunningProjections {
  private readonly runners = new Map<string, ProjectorRunner>();
  private readonly upgrades = new Map<string, Promise<void>>();
  private readonly catalog: ProjectionCatalog;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The catalog check in progress; checks never overlap (a switch stops and starts runners). */
  private following: Promise<void> = Promise.resolve();

  constructor(private readonly options: SupervisorOptions) {
    this.catalog = new ProjectionCatalog(options.readStore);
  }

  async start(): Promise<void> {
    for (const projection of this.options.projections) await this.startProjection(projection);
    this.timer = setInterval(() => void this.followCatalog(), this.options.catalogPollMs ?? 2000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled(this.upgrades.values());
    await this.following;
    await Promise.all([...this.runners.values()].map((runner) => runner.stop()));
  }

  /**
   * Resolves when every projection has applied the events up to `position` (read-your-write). With
   * `eventTypes` (the types just appended), only projections reading one of them are waited for: a
   * filtered projection never sees, so never passes, a position holding none of its types.
   */
  async waitForPosition(position: number, eventTypes?: readonly string[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const projection of this.options.projections) {
      if (eventTypes && !projection.eventTypes.some((type) => eventTypes.includes(type))) continue;
      const runner = this.runners.get(projection.name);
      if (runner) waits.push(runner.waitForPosition(position));
    }
    await Promise.all(waits);
  }

  /** Resolves once every projection has applied what the store held when this was called (start-up). */
  async catchUp(): Promise<void> {
    await Promise.all(
      this.options.projections.map(async (projection) => {
        const head = await this.options.eventStore.headPosition({ eventTypes: projection.eventTypes });
        await this.runners.get(projection.name)?.waitForPosition(head);
      }),
    );
  }

  appliedPosition(projectionName: string): number | null {
    return this.runners.get(projectionName)?.appliedPosition ?? null;
  }

  async waitForProjection(projectionName: string, position: number): Promise<void> {
    await this.runners.get(projectionName)?.waitForPosition(position);
  }

  runner(projectionName: string): ProjectorRunner | undefined {
    return this.runners.get(projectionName);
  }

  private async startProjection(projection: Projection): Promise<void> {
    const entry = await this.catalog.entry(projection.name);
    const generation = entry?.generation ?? 1;
    if (!entry) await this.catalog.switchTo(projection, generation);
    await this.run(projection, generation);
    if (entry && entry.code_version < projection.version) {
      this.upgrades.set(projection.name, this.buildBeside(projection, generation));
    }
  }

  private async run(projection: Projection, generation: number): Promise<void> {
    const runner = new ProjectorRunner({
      ...this.options,
      projection,
      generation,
      singleWriter: this.options.leases
        ? { leases: this.options.leases, ttlMs: this.options.leaseTtlMs }
        : undefined,
    });
    this.runners.set(projection.name, runner);
    await runner.start();
  }

  /** Builds `serving + 1` from the first event while `serving` keeps answering, then switches. */
  private async buildBeside(projection: Projection, serving: number): Promise<void> {
    const next = serving + 1;
    const { logger, eventStore, readStore } = this.options;
    logger.info({ projection: projection.name, from: serving, to: next }, 'building a new generation beside');
    await clearGeneration(readStore, projection, next);
    // Not serving yet: its progress answers no read-your-write wait.
    const builder = new ProjectorRunner({
      ...this.options,
      onApplied: undefined,
      projection,
      generation: next,
    });
    await builder.start();
    const filter = { eventTypes: projection.eventTypes };
    await builder.waitForPosition(await eventStore.headPosition(filter));
    await builder.waitForPosition(await eventStore.headPosition(filter));
    await builder.stop();
    if (this.stopped) return;
    await this.catalog.switchTo(projection, next);
    await this.followCatalog();
  }

  private followCatalog(): Promise<void> {
    this.following = this.following
      .then(() => this.moveToServingGenerations())
      .catch((error) => {
        this.options.logger.error({ err: error }, 'following the projection catalog failed');
      });
    return this.following;
  }

  /** Moves each runner to the catalog's serving generation and drops the generation it leaves. */
  private async moveToServingGenerations(): Promise<void> {
    // One read of the whole catalog, not one per projection: it is polled every few seconds.
    const generations = await this.catalog.generations();
    for (const projection of this.options.projections) {
      if (this.stopped) return;
      const current = this.runners.get(projection.name);
      const serving = generations.get(projection.name) ?? 1;
      if (!current || current.generation === serving) continue;
      this.options.logger.info(
        { projection: projection.name, from: current.generation, to: serving },
        'switching to the serving generation',
      );
      await current.stop();
      await this.run(projection, serving);
      if (current.generation < serving)
        await clearGeneration(this.options.readStore, projection, current.generation);
    }
  }
}
