/**
 * Read-your-write without holding the writer. An admission is acknowledged (201) once its event is
 * durable and a signed tree head covers its leaf; the read models apply it a few milliseconds later,
 * on their own thread. Instead of every admission waiting for them, this process notes each position
 * it acknowledges, and a read of a read model that position changes waits here until that model has
 * applied it. Reads with nothing unapplied before them (the usual case) pass at once.
 *
 * Acknowledging may not outrun a follower (a read model, the webhook delivery queue) by more than its
 * bound: past it, the admission waits until the follower is back within it. So the read models stay within a
 * bounded backlog, and webhook delivery is not starved of the cores by admissions it cannot keep up
 * with (its deliveries would then fall further behind for as long as the load lasts).
 *
 * Only where this process serves the reads itself: a process whose reads are served elsewhere waits
 * for the read models before acknowledging (see `CoreServices.readYourWrite`).
 */

import type { AppliedPositions } from '../../projectors/engine/supervisor';
import { AcknowledgementTimeline } from './acknowledgement-timeline';

/** What follows the event log and is bounded by acknowledgements: its name and the events it reads. */
export interface Follower {
  name: string;
  eventTypes: readonly string[];
  /** How many positions acknowledging may run ahead of it (default `MAX_UNAPPLIED_POSITIONS`). */
  maxUnapplied?: number;
  /**
   * Instead of a bound in positions, one in time: the follower must have applied every position
   * acknowledged more than this many milliseconds ago. For a follower whose progress moves in steps
   * of a fixed period (one that groups its commits), whatever the rate of admissions: a bound in
   * positions smaller than the positions one period brings holds admissions up at every step, though
   * the follower is keeping up.
   */
  maxLagMs?: number;
}

/**
 * Acknowledging stops outrunning a read model when it falls this many positions behind: the
 * admission then waits for it as before, so a read never waits for more than a bounded backlog.
 */
export const MAX_UNAPPLIED_POSITIONS = 1000;

/** A read waited longer than the service allows for the read models to apply what it must see. */
export class ReadModelsBehindError extends Error {
  constructor(
    readonly projectionName: string,
    readonly position: number,
    waitedMs: number,
    message = `the read model '${projectionName}' is still applying writes this service has acknowledged (up to event position ${position}; waited ${waitedMs} ms): nothing is lost, retry shortly`,
  ) {
    super(message);
    this.name = 'ReadModelsBehindError';
  }
}

/** What a read of a read model waits at first, so that it sees the writes it must see. */
export interface ReadGate {
  /** Null (or a promise of nothing) when `projectionName` may be read now; otherwise resolves once it may. */
  before(projectionName: string): Promise<void> | null;
}

export class ReadBarrier implements ReadGate {
  /** Per projection: the newest acknowledged position it has to apply before it is read. */
  private readonly acknowledged = new Map<string, number>();
  /** Per follower bounded in time: when its positions were acknowledged. */
  private readonly timelines = new Map<string, AcknowledgementTimeline>();

  constructor(
    private readonly followers: readonly Follower[],
    private readonly applied: AppliedPositions,
    /** The longest a read waits for a read model before it is answered 503. */
    private readonly timeoutMs: number,
    private readonly maxUnapplied = MAX_UNAPPLIED_POSITIONS,
    /** A monotonic clock in milliseconds, for the bounds in time. */
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const follower of followers)
      if (follower.maxLagMs !== undefined) this.timelines.set(follower.name, new AcknowledgementTimeline());
  }

  /**
   * Events of `eventTypes` up to `position` are about to be acknowledged: reads of the read models
   * they change wait for them from now on. Resolves at once, or, when a follower of those events lags
   * more than its bound behind, once the lagging followers are back within it.
   */
  acknowledge(position: number, eventTypes: readonly string[]): Promise<void> {
    const lagging: Promise<void>[] = [];
    for (const follower of this.followers) {
      if (!follower.eventTypes.some((type) => eventTypes.includes(type))) continue;
      if (position > (this.acknowledged.get(follower.name) ?? 0))
        this.acknowledged.set(follower.name, position);
      const owed = this.owedBy(follower, position);
      if (owed !== null && (this.applied.appliedPosition(follower.name) ?? 0) < owed)
        lagging.push(this.applied.waitForProjection(follower.name, owed));
    }
    return lagging.length > 0 ? Promise.all(lagging).then(() => undefined) : Promise.resolve();
  }

  /**
   * The position `follower` must have applied for `position` to be acknowledged without waiting:
   * with a bound in positions, `position` less the bound (so an admission past it waits only until
   * the follower is back within it, not for the whole backlog: waiting for all of it held every
   * connection for as long as the follower took to apply a thousand events, the slowest
   * acknowledgements of a run); with a bound in time, the newest position acknowledged longer than
   * that ago. Null when nothing is owed.
   */
  private owedBy(follower: Follower, position: number): number | null {
    if (follower.maxLagMs !== undefined) {
      const timeline = this.timelines.get(follower.name)!; // made for it in the constructor
      const now = this.now();
      timeline.note(now, position);
      return timeline.newestAtOrBefore(now - follower.maxLagMs);
    }
    const owed = position - (follower.maxUnapplied ?? this.maxUnapplied);
    return owed > 0 ? owed : null;
  }

  /**
   * Null when `projectionName` has applied every position acknowledged so far (read now); otherwise
   * a promise that resolves once it has, or rejects with `ReadModelsBehindError` after the timeout.
   */
  before(projectionName: string): Promise<void> | null {
    const position = this.acknowledged.get(projectionName);
    if (position === undefined) return null;
    if ((this.applied.appliedPosition(projectionName) ?? 0) >= position) return null;
    return withinTimeout(
      this.applied.waitForProjection(projectionName, position),
      this.timeoutMs,
      () => new ReadModelsBehindError(projectionName, position, this.timeoutMs),
    );
  }
}

/** `work`, or a rejection with `late()` when it has not settled within `timeoutMs`. */
export function withinTimeout<T>(work: Promise<T>, timeoutMs: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
