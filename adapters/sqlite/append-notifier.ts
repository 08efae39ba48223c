/**
 * Wakes live subscriptions when events are appended. Appends made through this process notify at
 * once; appends made by other processes sharing the file are noticed by polling SQLite's
 * `data_version`, which changes only when another connection commits (a cheap pragma, no table read).
 * The timer runs only while someone is waiting.
 */
export class AppendNotifier {
  private counter = 0;
  private readonly waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private lastDataVersion: number;
  private closed = false;

  constructor(
    private readonly pollIntervalMs: number,
    private readonly readDataVersion: () => number,
  ) {
    this.lastDataVersion = readDataVersion();
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
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.notify();
  }

  private startTimer(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.poll(), this.pollIntervalMs);
    this.timer.unref();
  }

  private poll(): void {
    const dataVersion = this.readDataVersion();
    if (dataVersion !== this.lastDataVersion) {
      this.lastDataVersion = dataVersion;
      this.notify();
    }
  }

  private stopTimerIfIdle(): void {
    if (this.timer && this.waiters.size === 0) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}
