import { memoryGrowth, p99Trend, soakSchedule, WindowedLatencies } from './soak-stats';

const MIB = 2 ** 20;

describe('soakSchedule', () => {
  it('given the full 10 minutes, then a 2-minute warm-up and per-minute windows', () => {
    expect(soakSchedule(600)).toEqual({ warmupSeconds: 120, windowSeconds: 60 });
  });

  it('given a 1-minute run, then a 12 s warm-up and three 20 s windows', () => {
    expect(soakSchedule(60)).toEqual({ warmupSeconds: 12, windowSeconds: 20 });
  });

  it('given a very short run, then at least 10 s of warm-up and 1 s windows', () => {
    expect(soakSchedule(2)).toEqual({ warmupSeconds: 10, windowSeconds: 1 });
  });
});

describe('WindowedLatencies', () => {
  it('given answers over three 60 s windows, then each window has its own count, errors, rate and p99', () => {
    const latencies = new WindowedLatencies(60, 180);
    for (let i = 0; i < 600; i++) latencies.record(i * 100, 5, true); // window 0: 600 answers of 5 ms
    for (let i = 0; i < 100; i++) latencies.record(60_000 + i * 10, i < 98 ? 10 : 400, true); // window 1
    latencies.record(120_000, 30, false); // window 2: one error
    latencies.record(179_999, 20, true);

    const windows = latencies.windows();
    expect(windows.map((w) => [w.from_s, w.to_s, w.requests, w.errors])).toEqual([
      [0, 60, 600, 0],
      [60, 120, 100, 0],
      [120, 180, 2, 1],
    ]);
    expect(windows[0]!.rate).toBe(10);
    expect(windows.map((w) => w.p99_ms)).toEqual([5, 400, 30]);
    expect(windows.map((w) => w.p50_ms)).toEqual([5, 10, 20]);
    expect(windows.map((w) => w.max_ms)).toEqual([5, 400, 30]);
  });

  it('given a request due in the last window but answered after the run, then it counts in the last window', () => {
    const latencies = new WindowedLatencies(20, 60);
    latencies.record(59_990, 2_000, true);
    latencies.record(60_000, 1, true); // due exactly at the end: still the last window
    expect(latencies.windows().map((w) => w.requests)).toEqual([0, 0, 2]);
  });

  it('given a window nobody was due in, then its p99 and max are NaN and the trend skips it', () => {
    const latencies = new WindowedLatencies(10, 30);
    latencies.record(1_000, 8, true);
    latencies.record(25_000, 12, true);
    const windows = latencies.windows();
    expect(windows[1]!.p99_ms).toBeNaN();
    expect(windows[1]!.max_ms).toBeNaN();
    expect(p99Trend(windows)).toEqual({ first: 8, last: 12, max: 12, lastOverFirst: 1.5 });
  });
});

describe('p99Trend', () => {
  it('given a tail that doubles in the middle and settles back, then last/first is 1 and max is the middle window', () => {
    const latencies = new WindowedLatencies(60, 180);
    for (const [start, ms] of [
      [0, 20],
      [60_000, 40],
      [120_000, 20],
    ] as const)
      for (let i = 0; i < 100; i++) latencies.record(start + i, ms, true);
    expect(p99Trend(latencies.windows())).toEqual({ first: 20, last: 20, max: 40, lastOverFirst: 1 });
  });
});

describe('memoryGrowth', () => {
  it('given a garbage-collector sawtooth that does not rise, then the growth is about zero', () => {
    const samples = Array.from({ length: 120 }, (_, i) => ({
      at_s: i * 5,
      rss: (200 + (i % 3 === 0 ? 40 : 0)) * MIB,
      anon: 150 * MIB,
      heapUsed: 60 * MIB,
    }));
    const growth = memoryGrowth(samples, 60);
    expect(growth.start).toBe(200 * MIB);
    expect(growth.end).toBe(200 * MIB);
    expect(growth.growth).toBe(0);
    expect(growth.anonStart).toBe(150 * MIB);
    expect(growth.heapEnd).toBe(60 * MIB);
  });

  it('given RSS rising 1 MiB per sample, then start and end are the medians of the first and last windows', () => {
    // Samples every 5 s for 600 s; windows of 60 s hold 12 samples each.
    const samples = Array.from({ length: 121 }, (_, i) => ({
      at_s: i * 5,
      rss: (100 + i) * MIB,
      anon: i * MIB,
      heapUsed: 2 * i * MIB,
    }));
    const growth = memoryGrowth(samples, 60);
    expect(growth.start).toBe(105 * MIB); // median of 100..111 MiB (lower middle)
    expect(growth.end).toBe(214 * MIB); // median of 209..220 MiB
    expect(growth.growth).toBe(109 * MIB);
    expect(growth.growthRatio).toBeCloseTo(109 / 105);
    expect(growth.anonEnd).toBe(114 * MIB);
    expect([growth.heapStart, growth.heapEnd]).toEqual([10 * MIB, 228 * MIB]);
  });

  it('given no samples, then it says the sampler never read the process', () => {
    expect(() => memoryGrowth([], 60)).toThrow(/never read the server process/);
  });
});
