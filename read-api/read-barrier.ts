/**
 * Read-your-write without holding the writer. An admission is acknowledged (201) once its event is
 * durable and a signed tree head covers its leaf; the read models apply it a few milliseconds later,
 * on their own thread. Instead of every admission waiting for them, this process notes each position
 * it acknowledges, and a read of a read model that position changes waits here until that model has
 * applied it. Reads with nothing unapplied before them (the usual case) pass at once.
 *
 * Only where this process serves the reads itself: a process whose reads are served elsewhere waits
 * for the read models before acknowledging (see `Services.readYourWrite`).
 */
import type { Projection } from '../projectors/projection';

/** What the barrier needs of the running projections (this thread's or the projection thread's). */
export interface AppliedPositions {
  /** The position `projectionName` has applied up to, as this process last learned; null before any. */
  appliedPosition(projectionName: string): number | null;
  /** Resolves once `projectionName` has applied everything up to `position`. */
  waitForProjection(projectionName: string, position: number): Promise<void>;
}

/**
 * Acknowledging stops outrunning the read models when they fall this many positions behind: the
 * admission then waits for them as before, so a read never waits for more than a bounded backlog.
 */
export const MAX_UNAPPLIED_POSITIONS = 1000;

/** A read waited longer than the service allows for the read models to apply what it must see. */
export class ReadModelsBehindError extends Error {
  constructor(
    readonly projectionName: string,
    readonly position: number,
    waitedMs: number,
  ) {
    super(
      `the read model '${projectionName}' is still applying writes this service has acknowledged (up to event position ${position}; waited ${waitedMs} ms): nothing is lost, retry shortly`,
    );
    this.name = 'ReadModelsBehindError';
  }
}

export class ReadBarrier {
  /** Per projection: the newest acknowledged position it has to apply before it is read. */
  private readonly acknowledged = new Map<string, number>();

  constructor(
    private readonly projections: readonly Pick<Projection, 'name' | 'eventTypes'>[],
    private readonly applied: AppliedPositions,
    /** The longest a read waits for a read model before it is answered 503. */
    private readonly timeoutMs: number,
    private readonly maxUnapplied = MAX_UNAPPLIED_POSITIONS,
  ) {}

  /**
   * Events of `eventTypes` up to `position` are about to be acknowledged: reads of the read models
   * they change wait for them from now on. Resolves at once, or, when one of those read models lags
   * more than `maxUnapplied` positions behind, once the read models have applied them.
   */
  acknowledge(position: number, eventTypes: readonly string[]): Promise<void> {
    let lagging = false;
    for (const projection of this.projections) {
      if (!projection.eventTypes.some((type) => eventTypes.includes(type))) continue;
      if (position > (this.acknowledged.get(projection.name) ?? 0))
        this.acknowledged.set(projection.name, position);
      if (position - (this.applied.appliedPosition(projection.name) ?? 0) > this.maxUnapplied) lagging = true;
    }
    if (!lagging) return Promise.resolve();
    return Promise.all(
      this.projections
        .filter((projection) => projection.eventTypes.some((type) => eventTypes.includes(type)))
        .map((projection) => this.applied.waitForProjection(projection.name, position)),
    ).then(() => undefined);
  }

  /**
   * Null when `projectionName` has applied every position acknowledged so far (read now); otherwise
   * a promise that resolves once it has, or rejects with `ReadModelsBehindError` after the timeout.
   */
  before(projectionName: string): Promise<void> | null {
    const position = this.acknowledged.get(projectionName);
    if (position === undefined) return null;
    if ((this.applied.appliedPosition(projectionName) ?? 0) >= position) return null;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ReadModelsBehindError(projectionName, position, this.timeoutMs)),
        this.timeoutMs,
      );
    });
    return Promise.race([this.applied.waitForProjection(projectionName, position), timeout]).finally(() =>
      clearTimeout(timer),
    );
  }
}
