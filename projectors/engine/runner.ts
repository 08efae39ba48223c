import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventStore, EventSubscription, RecordedEvent } from '../../ports/event-store';
import { FencedOutError, type LeaseManager } from '../../ports/lease';
import type { Change, ReadStore } from '../../ports/read-store';
import type { Metrics } from '../../runtime/support/metrics';
import { sleep } from '../../runtime/support/sleep';
import { AppliedDocuments, documentKey } from './applied-documents';
import { BatchState } from './batch-state';
import { compactChanges } from './compact-changes';
import { PositionWaiters } from './position-waiters';
import { checkpointName, type Projection, physicalCollection } from './projection';
import { RateMeter } from './rate-meter';
import { SingleWriterLease } from './single-writer-lease';

export interface ProjectorRunnerOptions {
  projection: Projection;
  eventStore: EventStore;
  readStore: ReadStore;
  metrics: Metrics;
  logger: Logger;
  /** The generation (set of physical collections) to build; see `catalog.ts`. */
  generation: number;
  /** Single-writer mode: only the holder of this projector's lease applies events. */
  singleWriter?: { leases: LeaseManager; ttlMs?: number; owner?: string };
  /** Events per batch (one read-store transaction each). */
  batchSize?: number;
  /** Wait before resuming after a failed batch. */
  retryDelayMs?: number;
  /** Told after each batch is stored, with the position it reached (read-your-write across threads). */
  onApplied?: (projectionName: string, position: number) => void;
}

type State = 'idle' | 'standby' | 'running' | 'stopped';

/**
 * Runs one projection: resumes from its checkpoint, projects batches of events into read-store changes
 * and applies each batch together with the checkpoint. Changes are position-guarded, so a batch seen
 * twice (crash before the checkpoint, redelivery) leaves the same state.
 */
export class ProjectorRunner {
  readonly generation: number;
  readonly checkpoint: string;
  private state: State = 'idle';
  private subscription: EventSubscription | null = null;
  private loop: Promise<void> | null = null;
  private readonly lease: SingleWriterLease | null;
  private lagTimer: NodeJS.Timeout | null = null;
  private position: number | null = null;
  private applied = 0;
  private readonly positionWaiters = new PositionWaiters();
  private readonly rate = new RateMeter();
  private readonly owner: string;
  private readonly stopSignal = new AbortController();
  /** What this runner stored, between batches of one subscription (see applied-documents.ts). */
  private readonly documents = new AppliedDocuments();

  constructor(private readonly options: ProjectorRunnerOptions) {
    this.generation = options.generation;
    this.checkpoint = checkpointName(options.projection, this.generation);
    this.owner = options.singleWriter?.owner ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
    const single = options.singleWriter;
    this.lease = single
      ? new SingleWriterLease({
          leases: single.leases,
          name: this.checkpoint,
          owner: this.owner,
          ttlMs: single.ttlMs ?? 5000,
          logger: options.logger,
          signal: this.stopSignal.signal,
        })
      : null;
  }

  get isWriter(): boolean {
    return this.state === 'running';
  }

  /** Last position applied (from the store at start), or null before anything was applied. */
  get appliedPosition(): number | null {
    return this.position;
  }

  async start(): Promise<void> {
    if (this.state !== 'idle') throw new Error(`projector ${this.checkpoint} was already started`);
    for (const index of this.options.projection.indexes ?? []) {
      await this.options.readStore.ensureIndex({
        collection: physicalCollection(index.collection, this.generation),
        fields: index.fields,
      });
    }
    this.position = await this.options.readStore.getCheckpoint(this.checkpoint);
    this.lagTimer = setInterval(() => void this.updateLag(), 1000);
    this.lagTimer.unref();
    this.loop = this.lease ? this.runAsSingleWriter(this.lease) : this.runUntilStopped();
  }

  /** Stops reading, lets the batch in flight finish (its checkpoint is stored), and releases the lease. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.stopSignal.abort();
    await this.subscription?.close();
    await this.loop;
    if (this.lagTimer) clearInterval(this.lagTimer);
    await this.lease?.release();
    this.options.metrics.projectorIsWriter.set({ projector: this.checkpoint }, 0);
  }

  /** Events this runner has applied since it started. */
  get appliedEvents(): number {
    return this.applied;
  }

  /** Resolves once every event up to `position` has been applied. */
  waitForPosition(position: number): Promise<void> {
    return this.positionWaiters.wait(position, this.position);
  }

  private async runAsSingleWriter(lease: SingleWriterLease): Promise<void> {
    const name = this.checkpoint;
    this.state = 'standby';
    await lease.run(
      async () => {
        this.options.metrics.projectorIsWriter.set({ projector: name }, 1);
        // Another instance may have advanced the checkpoint while we stood by.
        this.position = await this.options.readStore.getCheckpoint(name);
        await this.runUntilStopped();
        this.options.metrics.projectorIsWriter.set({ projector: name }, 0);
        if (this.state !== 'stopped') this.state = 'standby';
      },
      () => this.subscription?.close(),
    );
  }

  /** Applies batches until stopped (or, in single-writer mode, until the lease is lost). */
  private async runUntilStopped(): Promise<void> {
    if (this.state !== 'stopped') this.state = 'running';
    while (this.state === 'running' && (!this.lease || this.lease.grant)) {
      try {
        await this.consume();
        return;
      } catch (error) {
        if (error instanceof FencedOutError) {
          this.options.logger.warn({ projector: this.checkpoint, err: error }, 'fenced out; standing by');
          this.lease?.lose();
          return;
        }
        this.options.metrics.projectorErrors.inc({ projector: this.checkpoint });
        this.options.logger.error(
          { projector: this.checkpoint, err: error },
          'batch failed; resuming from checkpoint',
        );
        await this.subscription?.close();
        await sleep(this.options.retryDelayMs ?? 1000, this.stopSignal.signal);
        this.position = await this.options.readStore.getCheckpoint(this.checkpoint);
      }
    }
  }

  private async consume(): Promise<void> {
    const { projection, eventStore } = this.options;
    // A new subscription follows a failed batch or a lease (re)gained: the store is the truth again.
    this.documents.clear();
    this.subscription = eventStore.subscribeToAll({
      after: this.position,
      filter: { eventTypes: projection.eventTypes },
      maxBatchSize: this.options.batchSize ?? 1000,
      ...(projection.dataMembers ? { dataMembers: projection.dataMembers } : {}),
    });
    if ((this.state as State) === 'stopped') await this.subscription.close();
    for await (const batch of this.subscription) {
      await this.applyBatch(batch);
    }
  }

  private async applyBatch(batch: RecordedEvent[]): Promise<void> {
    const { projection, readStore, metrics } = this.options;
    const state = new BatchState(readStore, this.generation, this.documents);
    const changes = await projectInto(state, projection, this.generation, batch);
    const last = batch[batch.length - 1]!.position;
    try {
      await readStore.apply(changes, {
        projector: this.checkpoint,
        position: last,
        fence: this.lease?.grant ?? undefined,
      });
    } catch (error) {
      this.documents.clear(); // a store without transactions may hold part of the batch
      throw error;
    }
    state.stored();
    this.position = last;
    this.applied += batch.length;
    metrics.projectorEvents.inc({ projector: this.checkpoint }, batch.length);
    metrics.projectorCheckpoint.set({ projector: this.checkpoint }, last);
    metrics.projectorRate.set({ projector: this.checkpoint }, this.rate.record(batch.length));
    this.positionWaiters.release(last);
    this.options.onApplied?.(projection.name, last);
  }

  private async updateLag(): Promise<void> {
    try {
      const head = await this.options.eventStore.headPosition();
      this.options.metrics.projectorLag.set(
        { projector: this.checkpoint },
        Math.max(0, head - (this.position ?? 0)),
      );
    } catch {
      // The store may be closing; lag is refreshed on the next tick.
    }
  }
}

/**
 * The changes a batch of events causes in one generation of a projection, each event seeing the
 * batch's earlier changes; nothing is written.
 */
export async function projectEvents(
  projection: Projection,
  readStore: ReadStore,
  generation: number,
  batch: readonly RecordedEvent[],
): Promise<Change[]> {
  return projectInto(new BatchState(readStore, generation), projection, generation, batch);
}

/** As `projectEvents`, seeing the batch through `state` (which may keep documents between batches). */
export async function projectInto(
  state: BatchState,
  projection: Projection,
  generation: number,
  batch: readonly RecordedEvent[],
): Promise<Change[]> {
  const changes: Change[] = [];
  // A state that keeps what its runner stored answers most gets from memory: reading ahead there
  // would read documents the batch itself creates.
  if (projection.reads && !state.keepsApplied)
    await state.prefetch(batch.flatMap((event) => projection.reads!(event)));
  const born = new Set<string>();
  for (const event of batch) {
    for (const change of await projection.project(event, state)) {
      await state.record(change);
      const collection = physicalCollection(change.collection, generation);
      changes.push({ ...change, collection });
      if (projection.isBirth?.(change)) born.add(documentKey(collection, change.id));
    }
  }
  // A read model updated by every event (an agent's, a subject's) is written once per batch.
  return compactChanges(changes, born);
}
