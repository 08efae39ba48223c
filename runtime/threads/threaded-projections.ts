/**
 * The main thread's side of the projection thread (projection-thread.ts): it wakes the thread
 * when this thread commits events, answers read-your-write waits from the positions the thread reports,
 * and serves the thread's projector metrics. A thread that fails or exits is logged and started
 * again: it resumes from the checkpoints it stored, and waits in progress carry on.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { projections } from '../../projectors';
import { FollowedPosition } from '../../projectors/engine/position-waiters';
import type { RunningProjections } from '../../projectors/engine/supervisor';
import type { Config } from '../config/config';
import type { Metrics } from '../support/metrics';
import { startWorker } from '../support/worker-entry';
import { CoalescedWake } from './coalesced-wake';
import type {
  MetricUpdate,
  ProjectionThreadData,
  ProjectionThreadReport,
  ProjectionThreadRequest,
} from './projection-thread-protocol';

export interface ProjectionThreadOptions {
  config: Config;
  metrics: Metrics;
  logger: Logger;
  /** Wait before starting a failed thread again. */
  restartDelayMs?: number;
  /** The least time between two wakes for appends nobody waits for (PROJECTION_WAKE_INTERVAL_MS). */
  wakeIntervalMs?: number;
}

/**
 * Appends nobody waits for wake the projection thread at most this often. Woken at every event-loop
 * turn with appends, it would apply batches of a few events (~150 a second under load, each a commit
 * per projector writing the same hot pages again), and each wake would cost the main thread a message
 * and, on 2 busy cores, often its time slice to the woken thread. Reads and admissions that wait for
 * the read models wake it at once, so read-your-write does not wait for this interval. At ~3,000
 * admissions/s a wake brings ~300 positions, well within the read barrier's bound of 1,000. The
 * thread's CPU falls as the interval grows to this one (a third of a core under that load, against
 * two fifths when woken at every turn); shorter intervals save less.
 */
const PROJECTION_WAKE_INTERVAL_MS = 100;

export class ProjectionThread implements RunningProjections {
  private thread: Worker | null = null;
  /** The position each projection has stored, as last reported. */
  private readonly applied = new Map<string, FollowedPosition>();
  private readonly catchUps = new Map<number, { resolve(): void; reject(error: Error): void }>();
  private nextCatchUp = 0;
  private readonly wake: CoalescedWake;
  private stopping = false;
  private whenStopped: (() => void) | null = null;

  private constructor(private readonly options: ProjectionThreadOptions) {
    this.wake = new CoalescedWake(
      () => this.post({ kind: 'appended' }),
      options.wakeIntervalMs ?? PROJECTION_WAKE_INTERVAL_MS,
    );
    for (const projection of projections) this.applied.set(projection.name, new FollowedPosition());
  }

  /** The thread, running its projectors from their checkpoints. */
  static async start(options: ProjectionThreadOptions): Promise<ProjectionThread> {
    const handle = new ProjectionThread(options);
    await handle.launch();
    return handle;
  }

  /**
   * This thread committed events: the projection thread reads them at the end of this turn, or, within
   * `wakeIntervalMs` of its last wake, when that is up or as soon as someone waits for them.
   */
  noteAppended(): void {
    if (this.thread) this.wake.note();
  }

  waitForPosition(position: number, eventTypes?: readonly string[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const projection of projections) {
      if (eventTypes && !projection.eventTypes.some((type) => eventTypes.includes(type))) continue;
      waits.push(this.waitFor(projection.name, position));
    }
    return Promise.all(waits).then(() => undefined);
  }

  appliedPosition(projectionName: string): number | null {
    return this.applied.get(projectionName)?.position ?? null;
  }

  waitForProjection(projectionName: string, position: number): Promise<void> {
    return this.waitFor(projectionName, position);
  }

  private waitFor(projectionName: string, position: number): Promise<void> {
    const applied = this.applied.get(projectionName);
    if (!applied) return Promise.resolve();
    if ((applied.position ?? Number.NEGATIVE_INFINITY) < position) this.wake.now();
    return applied.wait(position);
  }

  catchUp(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const id = this.nextCatchUp++;
      this.catchUps.set(id, { resolve, reject });
      this.post({ kind: 'catch-up', id });
    });
  }

  /** Lets each projector store the batch in flight, then ends the thread. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.wake.cancel();
    const thread = this.thread;
    if (!thread) return;
    const stopped = new Promise<void>((resolve) => {
      this.whenStopped = resolve;
      thread.once('exit', () => resolve());
    });
    this.post({ kind: 'stop' });
    await stopped;
    await thread.terminate();
    this.thread = null;
  }

  private launch(): Promise<void> {
    const data: ProjectionThreadData = { config: this.options.config };
    const thread = startWorker(__dirname, __filename, 'projection-thread', data);
    this.thread = thread;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      thread.on('message', (report: ProjectionThreadReport) => {
        if (report.kind === 'started') {
          started = true;
          for (const [name, position] of Object.entries(report.positions))
            if (position !== null) this.advance(name, position);
          resolve();
          return;
        }
        this.handle(report);
      });
      thread.on('error', (error) => {
        this.options.logger.error({ err: error }, 'the projection thread failed');
        if (!started) reject(error);
      });
      thread.on('exit', (code) => {
        if (this.thread === thread) this.thread = null;
        if (!started)
          return reject(new Error(`the projection thread exited (code ${code}) before it started`));
        if (this.stopping) return this.whenStopped?.();
        this.failCatchUps(new Error(`the projection thread exited (code ${code})`));
        this.options.logger.error({ code }, 'the projection thread exited; starting it again');
        setTimeout(() => {
          if (!this.stopping)
            this.launch().catch((restartError: unknown) =>
              this.options.logger.error({ err: restartError }, 'the projection thread could not restart'),
            );
        }, this.options.restartDelayMs ?? 1000).unref();
      });
    });
  }

  private handle(report: Exclude<ProjectionThreadReport, { kind: 'started' }>): void {
    switch (report.kind) {
      case 'progress':
        for (const [name, position] of Object.entries(report.applied)) this.advance(name, position);
        for (const update of report.metrics) this.applyMetric(update);
        return;
      case 'caught-up': {
        const waiting = this.catchUps.get(report.id);
        this.catchUps.delete(report.id);
        if (report.error === undefined) waiting?.resolve();
        else waiting?.reject(new Error(`the projections could not catch up: ${report.error}`));
        return;
      }
      case 'stopped':
        this.whenStopped?.();
        return;
    }
  }

  private advance(projectionName: string, position: number): void {
    this.applied.get(projectionName)?.advance(position);
  }

  private applyMetric({ metric, operation, labels, value }: MetricUpdate): void {
    const target = this.options.metrics[metric] as {
      inc(labels: Record<string, string>, value: number): void;
      set(labels: Record<string, string>, value: number): void;
    };
    target[operation](labels, value);
  }

  private failCatchUps(error: Error): void {
    for (const waiting of this.catchUps.values()) waiting.reject(error);
    this.catchUps.clear();
  }

  private post(request: ProjectionThreadRequest): void {
    if (this.thread) this.thread.postMessage(request);
    else if (request.kind === 'catch-up')
      this.failCatchUps(new Error('the projection thread is not running'));
  }
}
