/**
 * Publishes every committed event to the bus, in commit order, for consumers outside this process
 * (the dispatcher). Its checkpoint moves only after the bus acknowledged a batch, so a crash or a
 * failed publish republishes from the checkpoint: at least once, and consumers deduplicate by event id.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Bus } from '../../ports/bus';
import type { EventStore, EventSubscription, RecordedEvent } from '../../ports/event-store';
import { FencedOutError, type LeaseManager } from '../../ports/lease';
import type { ReadStore } from '../../ports/read-store';
import type { Metrics } from '../../runtime/support/metrics';
import { sleep } from '../../runtime/support/sleep';
import { PositionWaiters } from './position-waiters';
import { SingleWriterLease } from './single-writer-lease';

/** The forwarder's checkpoint and lease name. */
export const BUS_FORWARDER = 'bus-forwarder';

export interface BusForwarderOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  bus: Bus;
  logger: Logger;
  /** Reported as the projector `bus-forwarder` (events, checkpoint, lag, errors, writer). */
  metrics?: Metrics;
  /** Single-writer mode: only the holder of the `bus-forwarder` lease publishes. */
  singleWriter?: { leases: LeaseManager; ttlMs?: number; owner?: string };
  /** Events per publish. */
  batchSize?: number;
  /** First wait after a failed publish; doubled after each further failure, up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
}

export class BusForwarder {
  private stopped = false;
  private started = false;
  private writing = false;
  private subscription: EventSubscription | null = null;
  private loop: Promise<void> | null = null;
  private lagTimer: NodeJS.Timeout | null = null;
  private position: number | null = null;
  private readonly waiters = new PositionWaiters();
  private readonly stopSignal = new AbortController();
  private readonly lease: SingleWriterLease | null;
  /** The checkpoint's write in flight, the newest position waiting for it, and a failure of it. */
  private storingCheckpoint: Promise<void> | null = null;
  private unstoredCheckpoint: number | null = null;
  private checkpointFailure: unknown = null;
  /** The newest checkpoint stored by this instance (or read at its start). */
  private checkpointed: number | null = null;

  constructor(private readonly options: BusForwarderOptions) {
    const single = options.singleWriter;
    this.lease = single
      ? new SingleWriterLease({
          leases: single.leases,
          name: BUS_FORWARDER,
          owner: single.owner ?? `${process.pid}-${randomUUID().slice(0, 8)}`,
          ttlMs: single.ttlMs ?? 5000,
          logger: options.logger,
          signal: this.stopSignal.signal,
        })
      : null;
  }

  /** True while this instance publishes (always, unless in single-writer mode and standing by). */
  get isWriter(): boolean {
    return this.writing;
  }

  /** Position of the last event the bus acknowledged (the checkpoint), or null before any. */
  get forwardedPosition(): number | null {
    return this.position;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('the bus forwarder was already started');
    this.started = true;
    this.position = await this.options.readStore.getCheckpoint(BUS_FORWARDER);
    this.checkpointed = this.position;
    if (this.options.metrics) {
      this.lagTimer = setInterval(() => void this.updateLag(), 1000);
      this.lagTimer.unref();
    }
    this.loop = this.lease ? this.runAsSingleWriter(this.lease) : this.forwardUntilStopped();
  }

  /** Stops following the store; the batch in flight is published and checkpointed first. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.stopSignal.abort();
    await this.subscription?.close();
    await this.loop;
    await this.checkpointStored();
    if (this.lagTimer) clearInterval(this.lagTimer);
    await this.lease?.release();
  }

  /** Resolves once every event up to `position` has been acknowledged by the bus and checkpointed. */
  waitForPosition(position: number): Promise<void> {
    return this.waiters.wait(position, this.checkpointed);
  }

  private async runAsSingleWriter(lease: SingleWriterLease): Promise<void> {
    await lease.run(
      async () => {
        // A checkpoint write of an earlier turn as writer ends first; its failure is of that turn.
        await this.checkpointStored();
        this.checkpointFailure = null;
        // Another instance may have forwarded further while this one stood by.
        this.position = await this.options.readStore.getCheckpoint(BUS_FORWARDER);
        this.checkpointed = this.position;
        await this.forwardUntilStopped();
      },
      () => this.subscription?.close(),
    );
  }

  /** Publishes until stopped (or, in single-writer mode, until the lease is lost). */
  private async forwardUntilStopped(): Promise<void> {
    const { logger, metrics } = this.options;
    this.setWriting(true);
    let failures = 0;
    while (!this.stopped && (!this.lease || this.lease.grant)) {
      try {
        await this.follow(() => {
          failures = 0;
        });
        break;
      } catch (error) {
        if (error instanceof FencedOutError) {
          logger.warn({ projector: BUS_FORWARDER, err: error }, 'fenced out; standing by');
          this.lease?.lose();
          break;
        }
        failures += 1;
        const delayMs = Math.min(
          (this.options.retryDelayMs ?? 1000) * 2 ** (failures - 1),
          this.options.maxRetryDelayMs ?? 10_000,
        );
        metrics?.projectorErrors.inc({ projector: BUS_FORWARDER });
        logger.error(
          { projector: BUS_FORWARDER, err: error, position: this.position, retryInMs: delayMs },
          'forwarding to the bus failed; republishing from the checkpoint',
        );
        await this.subscription?.close();
        await sleep(delayMs, this.stopSignal.signal);
      }
    }
    this.setWriting(false);
  }

  /** Follows the store from the checkpoint; ends when the subscription is closed. */
  private async follow(onForwarded: () => void): Promise<void> {
    this.subscription = this.options.eventStore.subscribeToAll({
      after: this.position,
      maxBatchSize: this.options.batchSize ?? 500,
    });
    if (this.stopped) await this.subscription.close();
    for await (const batch of this.subscription) {
      await this.forward(batch);
      onForwarded();
    }
  }

  private async forward(batch: RecordedEvent[]): Promise<void> {
    const { bus, metrics } = this.options;
    this.throwCheckpointFailure();
    await bus.publish(batch);
    const last = batch[batch.length - 1]!.position;
    // Only now: an event is never counted as forwarded before the bus holds it.
    this.storeCheckpoint(last);
    this.position = last;
    metrics?.projectorEvents.inc({ projector: BUS_FORWARDER }, batch.length);
    metrics?.projectorCheckpoint.set({ projector: BUS_FORWARDER }, last);
  }

  /**
   * Stores the checkpoint while the next batch is read and published, newest first, one write at a
   * time: on a read store under load (FerretDB) a checkpoint write took 50–800 ms, and waiting for it
   * held every event behind it from the bus. A crash before it is stored republishes from the older
   * one (at least once, as after a failed publish); a failed write fails the next batch.
   */
  private storeCheckpoint(position: number): void {
    this.unstoredCheckpoint = position;
    this.storingCheckpoint ??= (async () => {
      while (this.unstoredCheckpoint !== null) {
        const next = this.unstoredCheckpoint;
        this.unstoredCheckpoint = null;
        await this.options.readStore.apply([], {
          projector: BUS_FORWARDER,
          position: next,
          fence: this.lease?.grant ?? undefined,
        });
        this.checkpointed = next;
        this.waiters.release(next);
      }
    })()
      .catch((error: unknown) => {
        this.unstoredCheckpoint = null;
        this.checkpointFailure = error;
      })
      .finally(() => {
        this.storingCheckpoint = null;
      });
  }

  private throwCheckpointFailure(): void {
    const failure = this.checkpointFailure;
    this.checkpointFailure = null;
    if (failure !== null) throw failure;
  }

  /** Resolves once the newest checkpoint is stored (or its write failed: the next batch throws it). */
  private async checkpointStored(): Promise<void> {
    while (this.storingCheckpoint) await this.storingCheckpoint;
  }

  private setWriting(writing: boolean): void {
    this.writing = writing;
    this.options.metrics?.projectorIsWriter.set({ projector: BUS_FORWARDER }, writing ? 1 : 0);
  }

  private async updateLag(): Promise<void> {
    try {
      const head = await this.options.eventStore.headPosition();
      this.options.metrics?.projectorLag.set(
        { projector: BUS_FORWARDER },
        Math.max(0, head - (this.position ?? 0)),
      );
    } catch {
      // The store may be closing; lag is refreshed on the next tick.
    }
  }
}
