/** Events per second, smoothed exponentially over roughly the last five seconds. */
export class RateMeter {
  private rate = 0;
  private last = performance.now();

  constructor(private readonly windowMs = 5000) {}

  record(count: number): number {
    const now = performance.now();
    const elapsed = Math.max(now - this.last, 1);
    this.last = now;
    const instant = (count * 1000) / elapsed;
    const weight = 1 - Math.exp(-elapsed / this.windowMs);
    this.rate += weight * (instant - this.rate);
    return this.rate;
  }
}
