/**
 * Read-your-write across processes. In the production topology the projectors and the dispatcher run
 * in other processes, so this process cannot wait on their in-memory positions: it reads what they
 * store instead (a projection's checkpoint, the dispatcher's progress per tenant).
 *
 * No request polls on its own: one poll at a time per process reads every position someone waits
 * for, and every waiter is released from it. An admission does not wait at all (unless the read
 * models fall more than a bounded backlog behind): the read API makes its reads wait instead, for the
 * events of the store at the moment the read arrived (`StoreHeadGate`), which is the same guarantee —
 * a read that follows an acknowledgement sees its effect — without putting the read models on the
 * admission's path.
 */
import type { EventStore } from '../../ports/event-store';
import type { ReadStore } from '../../ports/read-store';
import { projections } from '../../projectors';
import { ProjectionCatalog } from '../../projectors/engine/catalog';
import { FreshRead } from '../../projectors/engine/fresh-read';
import { checkpointName, type Projection, physicalCollection } from '../../projectors/engine/projection';
import { DELIVERY_QUEUE_PROGRESS } from '../../projectors/webhooks/delivery-queue-consumer';
import { DELIVERY_QUEUE_GENERATION } from '../../projectors/webhooks/delivery-queue-projection';
import {
  MAX_UNAPPLIED_POSITIONS,
  type ReadGate,
  ReadModelsBehindError,
} from '../../read-api/engine/read-barrier';
import { sleep } from '../support/sleep';

/** Between polls while someone waits: quick at first (the other process is usually milliseconds behind), then backing off. */
const POLL_DELAYS_MS = [1, 2, 4, 8, 16, 25];
/** A position remembered longer than this is read again before it is trusted to hold an admission. */
const STALE_AFTER_MS = 100;

/** A wait for a stored position to reach `position`. */
interface Waiter {
  position: number;
  resolve(): void;
  reject(error: Error): void;
}

/** One remotely stored position: a projection's checkpoint, or the dispatcher's progress of a tenant. */
interface Tracked {
  read(): Promise<number>;
  reached: number;
  /** Monotonic ms of the last read. */
  readAt: number;
  waiters: Set<Waiter>;
}

/**
 * The positions other processes have stored, as this process last read them, with waits released by
 * one shared poll loop: however many requests wait, each position is read once per poll.
 */
export class RemoteProgress {
  private readonly tracked = new Map<string, Tracked>();
  private polling: Promise<void> | null = null;
  private readonly stopped = new AbortController();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The position last read for `key` (0 before any read); `read` says how to read it. */
  reached(key: string, read: () => Promise<number>): number {
    return this.track(key, read).reached;
  }

  /** Whether the position of `key` was read less than `STALE_AFTER_MS` ago. */
  fresh(key: string): boolean {
    const tracked = this.tracked.get(key);
    return tracked !== undefined && this.now() - tracked.readAt < STALE_AFTER_MS;
  }

  /**
   * Resolves once the position stored for `key` is at or past `position`; rejects with `late()` after
   * `timeoutMs` (and stops waiting: a wait given up on polls no more), or when the progress is closed.
   */
  wait(
    key: string,
    read: () => Promise<number>,
    position: number,
    timeoutMs: number,
    late: () => Error,
  ): Promise<void> {
    const tracked = this.track(key, read);
    if (tracked.reached >= position) return Promise.resolve();
    if (this.stopped.signal.aborted) return Promise.reject(new Error('the remote waits are closed'));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => settle(() => reject(late())), timeoutMs);
      const settle = (then: () => void) => {
        clearTimeout(timer);
        tracked.waiters.delete(waiter);
        then();
      };
      const waiter: Waiter = {
        position,
        resolve: () => settle(resolve),
        reject: (error) => settle(() => reject(error)),
      };
      tracked.waiters.add(waiter);
      this.poll();
    });
  }

  /** Reads `key` again soon (in the background), so that `reached` is current. */
  refresh(key: string, read: () => Promise<number>): void {
    this.track(key, read).readAt = Number.NEGATIVE_INFINITY;
    this.poll();
  }

  /** Stops polling; every wait still pending is rejected. */
  async close(): Promise<void> {
    this.stopped.abort();
    for (const tracked of this.tracked.values())
      for (const waiter of [...tracked.waiters]) waiter.reject(new Error('the remote waits are closed'));
    await this.polling;
  }

  private track(key: string, read: () => Promise<number>): Tracked {
    let tracked = this.tracked.get(key);
    if (!tracked) {
      tracked = { read, reached: 0, readAt: Number.NEGATIVE_INFINITY, waiters: new Set() };
      this.tracked.set(key, tracked);
    }
    return tracked;
  }

  private poll(): void {
    if (this.stopped.signal.aborted) return;
    this.polling ??= this.pollWhileWanted().finally(() => {
      this.polling = null;
    });
  }

  private async pollWhileWanted(): Promise<void> {
    for (let round = 0; !this.stopped.signal.aborted; round++) {
      const wanted = [...this.tracked.values()].filter(
        (tracked) => tracked.waiters.size > 0 || tracked.readAt === Number.NEGATIVE_INFINITY,
      );
      if (wanted.length === 0) return;
      let moved = false;
      await Promise.all(
        wanted.map(async (tracked) => {
          try {
            const position = await tracked.read();
            tracked.readAt = this.now();
            if (position > tracked.reached) {
              tracked.reached = position;
              moved = true;
              for (const waiter of [...tracked.waiters]) if (waiter.position <= position) waiter.resolve();
            }
          } catch {
            // The store is unreachable for now: the waiters' own deadlines decide when to give up.
            tracked.readAt = this.now();
          }
        }),
      );
      if (moved) round = 0;
      if (wanted.some((tracked) => tracked.waiters.size > 0))
        await sleep(POLL_DELAYS_MS[Math.min(round, POLL_DELAYS_MS.length - 1)]!, this.stopped.signal);
    }
  }
}

export interface RemoteWaitsOptions {
  readStore: ReadStore;
  catalog: ProjectionCatalog;
  projections: readonly Projection[];
  /** The generation the delivery queue's collections live in. */
  deliveryQueueGeneration: number;
  /** Give up after this long (the other process is down or far behind): the request fails with 500. */
  timeoutMs?: number;
}

export class RemoteWaits {
  readonly progress = new RemoteProgress();

  constructor(private readonly options: RemoteWaitsOptions) {}

  /** Resolves once every projection reading one of `eventTypes` has checkpointed `position`. */
  async awaitProjections(position: number, eventTypes: readonly string[]): Promise<void> {
    await Promise.all(
      this.readersOf(eventTypes).map(async (projection) => {
        const checkpoint = await this.checkpointOf(projection.name);
        await this.within(
          checkpoint,
          this.checkpointReader(checkpoint),
          position,
          `read model '${projection.name}' (checkpoint ${checkpoint}) has not reached position ${position}: is a projectors process running?`,
        );
      }),
    );
  }

  /**
   * Read-your-write for an admission about to be acknowledged by a process whose reads are served
   * elsewhere: the read API makes its reads wait (`StoreHeadGate`), so this waits only when a read
   * model reading `eventTypes` is more than `MAX_UNAPPLIED_POSITIONS` behind, as the embedded
   * server's read barrier does: a read never waits for more than a bounded backlog.
   */
  async boundBacklog(position: number, eventTypes: readonly string[]): Promise<void> {
    const lagging: Promise<void>[] = [];
    for (const projection of this.readersOf(eventTypes)) {
      const checkpoint = await this.checkpointOf(projection.name);
      const read = this.checkpointReader(checkpoint);
      if (!this.progress.fresh(checkpoint)) this.progress.refresh(checkpoint, read);
      const owed = position - MAX_UNAPPLIED_POSITIONS;
      if (this.progress.reached(checkpoint, read) < owed)
        lagging.push(
          this.within(
            checkpoint,
            read,
            owed,
            `read model '${projection.name}' is more than ${MAX_UNAPPLIED_POSITIONS} positions behind position ${position}: is a projectors process running?`,
          ),
        );
    }
    await Promise.all(lagging);
  }

  /** Resolves once the dispatcher has handled the events of `tenantId` up to `position`. */
  async awaitDeliveryQueue(position: number, tenantId: string): Promise<void> {
    const progress = physicalCollection(DELIVERY_QUEUE_PROGRESS, this.options.deliveryQueueGeneration);
    const read = async () =>
      (await this.options.readStore.get<{ position: number }>(progress, tenantId))?.data.position ?? 0;
    await this.within(
      `${progress}/${tenantId}`,
      read,
      position,
      `the dispatcher has not handled position ${position} of tenant ${tenantId}: is a dispatcher process running?`,
    );
  }

  /** The projection's checkpoint, for reads that must see `position`. */
  async checkpointOf(projectionName: string): Promise<string> {
    return checkpointName(
      { name: projectionName },
      await this.options.catalog.servedGeneration(projectionName),
    );
  }

  checkpointReader(checkpoint: string): () => Promise<number> {
    return async () => (await this.options.readStore.getCheckpoint(checkpoint)) ?? 0;
  }

  private readersOf(eventTypes: readonly string[]): Projection[] {
    return this.options.projections.filter((projection) =>
      projection.eventTypes.some((type) => eventTypes.includes(type)),
    );
  }

  /** Stops polling; pending waits are rejected. */
  close(): Promise<void> {
    return this.progress.close();
  }

  private within(key: string, read: () => Promise<number>, position: number, failure: string): Promise<void> {
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    return this.progress.wait(
      key,
      read,
      position,
      timeoutMs,
      () => new Error(`${failure} (waited ${timeoutMs} ms)`),
    );
  }
}

/**
 * Read-your-write where the reads are served and the writes acknowledged by other processes (the read
 * API of the topology): a read of a read model first waits until that model has applied every event
 * of its types the store held when the read arrived, so it sees whatever was acknowledged before it.
 * The store's head is read once for all reads arriving meanwhile; a read model that keeps up costs a
 * read no wait.
 */
export class StoreHeadGate implements ReadGate {
  private readonly heads = new Map<string, FreshRead<number>>();

  constructor(
    private readonly eventStore: EventStore,
    private readonly waits: RemoteWaits,
    private readonly projections: readonly Projection[],
    /** The longest a read waits for a read model before it is answered 503. */
    private readonly timeoutMs: number,
  ) {}

  async before(projectionName: string): Promise<void> {
    const head = await this.headOf(projectionName).get();
    const checkpoint = await this.waits.checkpointOf(projectionName);
    const read = this.waits.checkpointReader(checkpoint);
    if (this.waits.progress.reached(checkpoint, read) >= head) return;
    await this.waits.progress.wait(
      checkpoint,
      read,
      head,
      this.timeoutMs,
      () => new ReadModelsBehindError(projectionName, head, this.timeoutMs),
    );
  }

  private headOf(projectionName: string): FreshRead<number> {
    let head = this.heads.get(projectionName);
    if (!head) {
      const projection = this.projections.find((candidate) => candidate.name === projectionName);
      if (!projection) throw new Error(`no projection is named '${projectionName}'`);
      const eventTypes = [...projection.eventTypes];
      head = new FreshRead(() => this.eventStore.headPosition({ eventTypes }));
      this.heads.set(projectionName, head);
    }
    return head;
  }
}

/** The waits of a process whose projectors and dispatcher may run elsewhere, over `readStore`. */
export function remoteWaitsOn(readStore: ReadStore, timeoutMs?: number): RemoteWaits {
  return new RemoteWaits({
    readStore,
    // Request paths may see a switch of generation a second late, as the read models' own reads do.
    catalog: new ProjectionCatalog(readStore, 1000),
    projections,
    deliveryQueueGeneration: DELIVERY_QUEUE_GENERATION,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}
