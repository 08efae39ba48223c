/**
 * The soak's arithmetic, kept pure so it can be tested: latencies grouped into fixed windows (per
 * minute in a full run) with a p99 each, and memory growth from periodic RSS samples.
 */
import { percentile } from './percentile';

/**
 * How a soak of `seconds` is cut up: a warm-up of a fifth of it (10 s to 2 minutes) before measuring,
 * and p99 windows of a minute, or a third of the run when it is shorter than 3 minutes (so a short run
 * still compares a first and a last window).
 */
export function soakSchedule(seconds: number): { warmupSeconds: number; windowSeconds: number } {
  return {
    warmupSeconds: Math.min(120, Math.max(10, Math.round(seconds / 5))),
    windowSeconds: seconds >= 180 ? 60 : Math.max(1, Math.floor(seconds / 3)),
  };
}

export interface WindowStats {
  /** Window number, from 0. */
  window: number;
  /** Seconds from the start of the measured phase. */
  from_s: number;
  to_s: number;
  requests: number;
  errors: number;
  /** Answers per second over the window. */
  rate: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/**
 * Latencies bucketed by when each request was due (not when it was answered), so a slow answer counts
 * against the window whose load caused it.
 */
export class WindowedLatencies {
  private readonly latencies: number[][];
  private readonly errors: number[];

  constructor(
    private readonly windowSeconds: number,
    private readonly totalSeconds: number,
  ) {
    const count = Math.max(1, Math.ceil(totalSeconds / windowSeconds));
    this.latencies = Array.from({ length: count }, () => []);
    this.errors = new Array<number>(count).fill(0);
  }

  /** One answer: due `atMs` after the start, answered `latencyMs` later; `ok` false for an error. */
  record(atMs: number, latencyMs: number, ok: boolean): void {
    const window = Math.min(
      this.latencies.length - 1,
      Math.max(0, Math.floor(atMs / 1000 / this.windowSeconds)),
    );
    this.latencies[window]!.push(latencyMs);
    if (!ok) this.errors[window]! += 1;
  }

  windows(): WindowStats[] {
    return this.latencies.map((values, window) => {
      const from = window * this.windowSeconds;
      const to = Math.min(this.totalSeconds, from + this.windowSeconds);
      return {
        window,
        from_s: from,
        to_s: to,
        requests: values.length,
        errors: this.errors[window]!,
        rate: values.length / Math.max(1e-9, to - from),
        p50_ms: round(percentile(values, 50)),
        p99_ms: round(percentile(values, 99)),
        max_ms: round(maximum(values)),
      };
    });
  }

  /** Every latency recorded, all windows together. */
  all(): number[] {
    return this.latencies.flat();
  }
}

/** How steady the tail latency stayed: the first and last windows' p99 and the worst window's. */
export function p99Trend(windows: readonly WindowStats[]): {
  first: number;
  last: number;
  max: number;
  lastOverFirst: number;
} {
  const measured = windows.filter((w) => w.requests > 0);
  const first = measured[0]?.p99_ms ?? Number.NaN;
  const last = measured[measured.length - 1]?.p99_ms ?? Number.NaN;
  const max = maximum(measured.map((w) => w.p99_ms));
  return { first, last, max, lastOverFirst: last / first };
}

export interface MemorySample {
  /** Seconds from the start of the measured phase. */
  at_s: number;
  /** Resident set size, bytes. */
  rss: number;
  /** Its anonymous part (heap, native allocations, SQLite page caches), bytes; NaN when unknown. */
  anon: number;
  /** The JavaScript heap in use, bytes; NaN when unknown. */
  heapUsed: number;
}

export interface MemoryGrowth {
  /** Median RSS over the first window of samples, bytes. */
  start: number;
  /** Median RSS over the last window of samples, bytes. */
  end: number;
  growth: number;
  /** growth / start. */
  growthRatio: number;
  anonStart: number;
  anonEnd: number;
  heapStart: number;
  heapEnd: number;
}

/**
 * RSS at the start and end of the run, each the median of the samples in its first or last
 * `windowSeconds`: a single sample lands anywhere on the garbage collector's sawtooth, a median of a
 * window does not.
 */
export function memoryGrowth(samples: readonly MemorySample[], windowSeconds: number): MemoryGrowth {
  if (samples.length === 0) throw new Error('no memory samples: the sampler never read the server process');
  const firstAt = samples[0]!.at_s;
  const lastAt = samples[samples.length - 1]!.at_s;
  const head = samples.filter((s) => s.at_s < firstAt + windowSeconds);
  const tail = samples.filter((s) => s.at_s > lastAt - windowSeconds);
  const start = median(head.map((s) => s.rss));
  const end = median(tail.map((s) => s.rss));
  return {
    start,
    end,
    growth: end - start,
    growthRatio: (end - start) / start,
    anonStart: median(head.map((s) => s.anon)),
    anonEnd: median(tail.map((s) => s.anon)),
    heapStart: median(head.map((s) => s.heapUsed)),
    heapEnd: median(tail.map((s) => s.heapUsed)),
  };
}

/** The largest value; NaN when there is none. */
function maximum(values: readonly number[]): number {
  return values.length === 0
    ? Number.NaN
    : values.reduce((max, v) => Math.max(max, v), Number.NEGATIVE_INFINITY);
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
