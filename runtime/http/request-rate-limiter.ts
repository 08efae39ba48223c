/**
 * Requests per window per key (per tenant and minute: spec section 8), in fixed windows. Counted in
 * this process's memory: a restart opens a fresh window, which at worst grants one extra window's worth.
 */
export class RequestRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly clock: () => Date,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts a request; returns the seconds to wait when it is over the limit, else null. */
  take(key: string, perWindow: number): number | null {
    const now = this.clock().getTime();
    const start = now - (now % this.windowMs);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size > 100_000) this.prune(start);
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= perWindow) return Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
    window.count++;
    return null;
  }

  private prune(current: number): void {
    for (const [key, window] of this.windows) if (window.start !== current) this.windows.delete(key);
  }
}
