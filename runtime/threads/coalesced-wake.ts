/**
 * Wakes another thread for work that can wait a little: at most once per interval, unless someone
 * needs the work done now. The first note after a quiet interval wakes at the end of the event-loop
 * turn (the turn's other notes go with it); notes within the interval after a wake are held until it
 * is up; `now()` sends a held wake at once.
 */
export class CoalescedWake {
  /** A wake is on its way: at the turn's end, or held back (`held`). */
  private queued = false;
  private held: NodeJS.Timeout | null = null;
  private lastSentAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly send: () => void,
    private readonly intervalMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** There is work for the other thread. */
  note(): void {
    if (this.queued) return;
    this.queued = true;
    const delay = this.lastSentAt + this.intervalMs - this.clock();
    if (delay <= 0) setImmediate(() => this.flush());
    else this.held = setTimeout(() => this.flush(), delay).unref();
  }

  /** Someone waits for the work: a held wake goes now. */
  now(): void {
    if (this.held) this.flush();
  }

  /** Drops the wake on its way, if any (the other thread is going away). */
  cancel(): void {
    this.clearHeld();
    this.queued = false;
  }

  private clearHeld(): void {
    if (this.held) clearTimeout(this.held);
    this.held = null;
  }

  private flush(): void {
    if (!this.queued) return;
    this.clearHeld();
    this.queued = false;
    this.lastSentAt = this.clock();
    this.send();
  }
}
