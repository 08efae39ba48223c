/**
 * Wakes live subscriptions when events are appended. Appends made through this process notify at
 * once; appends made by other processes sharing the file are noticed by polling SQLite's
 * `data_version`, which changes only when another connection commits (a cheap pragma, no table read).
 * The timer runs only while someone is waiting.
 *
 * A process that follows other processes' appends (a topology role) polls at `activePollIntervalMs`
 * while they keep coming, then backs off to `pollIntervalMs` once they stop for a while: each poll is
 * a wake-up of the process, and a wait for the next one is added to the latency of everything that
 * crosses processes (an admission crosses twice: to the sequencer and back).
 */
/** At the active interval, this many empty polls in a row before the interval starts doubling. */
const QUIET_POLLS_BEFORE_BACKING_OFF = 100;

export class AppendNotifier {
  private counter = 0;
  private readonly waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private lastDataVersion: number;
  private closed = false;
  /** The current delay between polls; `activePollIntervalMs` right after a foreign append. */
  private delayMs: number;
  /** Polls in a row at the active interval that found nothing. */
  private quietPolls = 0;

  constructor(
    private readonly pollIntervalMs: number,
    private readonly readDataVersion: () => number,
    private readonly activePollIntervalMs = pollIntervalMs,
  ) {
    this.lastDataVersion = readDataVersion();
    this.delayMs = pollIntervalMs;
  }

  /** A token that changes whenever an append may have happened since it was taken. */
  version(): number {
    return this.counter;
  }

  notify(): void {
    this.counter += 1;
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiting) wake();
    this.stopTimerIfIdle();
  }

  /** Resolves once the version differs from `seen`, or when `signal` aborts or the notifier closes. */
  waitForChange(seen: number, signal: AbortSignal): Promise<void> {
    if (this.counter !== seen || signal.aborted || this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
      this.startTimer();
    });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.notify();
  }

  private startTimer(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => this.poll(), this.delayMs);
    this.timer.unref();
  }

  private poll(): void {
    this.timer = null;
    const dataVersion = this.readDataVersion();
    if (dataVersion !== this.lastDataVersion) {
      this.lastDataVersion = dataVersion;
      this.delayMs = this.activePollIntervalMs;
      this.quietPolls = 0;
      this.notify();
    } else if (++this.quietPolls >= QUIET_POLLS_BEFORE_BACKING_OFF) {
      this.delayMs = Math.min(this.pollIntervalMs, this.delayMs * 2);
    }
    if (this.waiters.size > 0) this.startTimer();
  }

  private stopTimerIfIdle(): void {
    if (this.timer && this.waiters.size === 0) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }
}
