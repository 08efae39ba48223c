/**
 * Soak: the built server in its own process (as `npm start` runs it) takes evidence submissions at a
 * steady rate, well under its capacity, for GOV_BENCH_SOAK_SECONDS (default 600 s = 10 minutes) after
 * a warm-up. It must answer every one with a 201, keep its memory flat and its tail latency steady:
 * the server's RSS is read every few seconds and the p99 is computed per window (per minute in a full
 * run). The per-window figures and memory samples go to bench/results/latest.json (`details`).
 */
import http from 'node:http';
import path from 'node:path';
import { validBody } from '../domain/governance/test-fixtures';
import { freePort } from '../tests/support/children';
import { registerTenants, startServer, stopServer } from './http-server';
import { pacedLoad, postJson } from './paced-load';
import { processMemory } from './process-memory';
import type { BenchRow, BenchSuite } from './report';
import { type MemorySample, memoryGrowth, p99Trend, soakSchedule, WindowedLatencies } from './soak-stats';
import { tempDir } from './temp-dir';

const SUITE = 'soak';
const TENANTS = 32;
const SAMPLE_EVERY_MS = 5_000;
/** The tail may drift this much between the first and the last window and still count as steady. */
const STEADY_P99_RATIO = 1.5;
/** The generator must deliver at least this share of the requested rate. */
const RATE_SHARE = 0.99;
/**
 * Flat memory: RSS may grow by at most this share of the start. The warm-up (two minutes in a full
 * run, 36,000 admissions, ~200 MB of new pages) lets the JIT and the V8 heap settle and fills SQLite's
 * page caches (up to 64 MiB per connection, growing with the files until then: ~4 KB of anonymous
 * memory per admission in short runs), so what remains is what the run itself adds: the log's
 * in-memory tree (~90 bytes per leaf, 16 MiB for 180,000 admissions) and any leak.
 */
const RSS_GROWTH_SHARE = 0.1;

const MIB = 2 ** 20;

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number of seconds or requests/s, not '${raw}'`);
  return value;
}

/**
 * Reads the server's memory every `everyMs` until stopped, times relative to `startedAt`. A failed
 * reading (the server gone) ends the sampling and is thrown by `stop`, after the load has run.
 */
function sampleMemory(pid: number, metricsUrl: string, startedAt: number, everyMs: number) {
  const samples: MemorySample[] = [];
  let running = true;
  const take = async () => {
    const at = performance.now();
    samples.push({ at_s: Math.round(at - startedAt) / 1000, ...(await processMemory(pid, metricsUrl)) });
  };
  const loop = (async () => {
    while (running) {
      await take();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })().then(
    () => null,
    (error: unknown) => error,
  );
  return {
    samples,
    /** Stops sampling after one last sample. */
    stop: async () => {
      running = false;
      const failed = await loop;
      if (failed) throw new Error(`reading the server's memory failed: ${String(failed)}`);
      await take();
    },
  };
}

export const soakBench: BenchSuite = async () => {
  const seconds = positiveNumber('GOV_BENCH_SOAK_SECONDS', 600);
  const rate = positiveNumber('GOV_BENCH_SOAK_RATE', 300);
  const { warmupSeconds, windowSeconds } = soakSchedule(seconds);
  const temp = tempDir('gov-bench-soak');
  const dataDir = path.join(temp.dir, 'data');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dataDir, port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  try {
    const tenants = await registerTenants(base, dataDir, TENANTS);
    // One subject per tenant; 300/s over 32 tenants is ~560 requests per tenant and minute, far
    // under the 10,000 they are allowed (http-server.ts: in the shared log).
    const requests = tenants.map((tenant, i) => ({
      headers: { authorization: `Bearer ${tenant.api_key}` },
      body: JSON.stringify({ ...validBody(), subject_id: `soak-${i}` }),
    }));
    const url = new URL(`${base}/governance/evidence`);
    const statuses = new Map<number, number>();
    const send = async (i: number) => {
      const request = requests[i % requests.length]!;
      const status = await postJson(agent, url, request.headers, request.body);
      if (status !== 201) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      return status === 201;
    };

    await pacedLoad({ rate, seconds: warmupSeconds, send, onAnswer: () => {} });
    const warmupErrors = [...statuses.values()].reduce((a, b) => a + b, 0);
    statuses.clear();

    const latencies = new WindowedLatencies(windowSeconds, seconds);
    const startedAt = performance.now();
    const sampler = sampleMemory(server.pid!, `${base}/v1/metrics`, startedAt, SAMPLE_EVERY_MS);
    const run = await pacedLoad({ rate, seconds, send, onAnswer: latencies.record.bind(latencies) });
    await sampler.stop();

    const windows = latencies.windows();
    const answered = windows.reduce((sum, w) => sum + w.requests, 0);
    const errors = windows.reduce((sum, w) => sum + w.errors, 0);
    // Over the time the answers took: a server falling behind answers after the schedule ends.
    const achieved = (answered - errors) / run.elapsedSeconds;
    const memory = memoryGrowth(sampler.samples, windowSeconds);
    const p99 = p99Trend(windows);
    const mib = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;
    const windowName = windowSeconds === 60 ? 'minute' : `${windowSeconds} s window`;
    const memoryBound = RSS_GROWTH_SHARE * memory.start;
    const phase = `${rate}/s for ${seconds} s`;
    const rows: BenchRow[] = [
      {
        suite: SUITE,
        metric: `errors (answers other than 201, or none), admissions at ${phase}`,
        value: errors,
        unit: 'requests',
        target: '0',
        met: errors === 0 && run.sent === answered,
        notes:
          `${answered.toLocaleString('en-US')} requests answered of ${run.sent.toLocaleString('en-US')} sent, ` +
          `${TENANTS} tenants of the shared log over keep-alive connections, after a ${warmupSeconds} s warm-up at the same rate ` +
          `(${warmupErrors} errors in it)` +
          (statuses.size > 0 ? `; statuses: ${JSON.stringify(Object.fromEntries(statuses))}` : ''),
      },
      {
        suite: SUITE,
        metric: `achieved admission rate (requested ${rate}/s, open model)`,
        value: Math.round(achieved * 10) / 10,
        unit: 'admissions/s',
        target: `>= ${Math.round(RATE_SHARE * 100)}% of ${rate}`,
        met: achieved >= RATE_SHARE * rate,
        notes:
          `201 answers over the ${run.elapsedSeconds.toFixed(1)} s from the first request due to the last answer; ` +
          `request i due at i / ${rate} s, its latency counted from then; the generator sent at most ` +
          `${Math.round(run.maxSendLagMs)} ms late`,
      },
      {
        suite: SUITE,
        metric: `server RSS at the start (median of the first ${windowName})`,
        value: mib(memory.start),
        unit: 'MiB',
        notes: `anonymous part ${mib(memory.anonStart)} MiB; read from /proc/<pid>/status every ${SAMPLE_EVERY_MS / 1000} s`,
      },
      {
        suite: SUITE,
        metric: `server RSS at the end (median of the last ${windowName})`,
        value: mib(memory.end),
        unit: 'MiB',
        notes: `anonymous part ${mib(memory.anonEnd)} MiB`,
      },
      {
        suite: SUITE,
        metric: 'server RSS growth, start → end',
        value: mib(memory.growth),
        unit: 'MiB',
        target: `<= ${RSS_GROWTH_SHARE * 100}% of the start`,
        met: memory.growth <= memoryBound,
        notes:
          `${(memory.growthRatio * 100).toFixed(1)}% of the start; JavaScript heap in use ` +
          `${mib(memory.heapStart)} → ${mib(memory.heapEnd)} MiB (medians of the same windows)`,
        details: { samples: sampler.samples },
      },
      {
        suite: SUITE,
        metric: `admission p99, first ${windowName}`,
        value: p99.first,
        unit: 'ms',
      },
      {
        suite: SUITE,
        metric: `admission p99, last ${windowName}`,
        value: p99.last,
        unit: 'ms',
        target: `<= ${STEADY_P99_RATIO}x the first ${windowName}`,
        met: p99.lastOverFirst <= STEADY_P99_RATIO,
        notes: `${p99.lastOverFirst.toFixed(2)}x the first; per-${windowName} p99 (ms): ${windows.map((w) => w.p99_ms).join(', ')}`,
        details: { windows },
      },
      {
        suite: SUITE,
        metric: `admission p99, worst ${windowName}`,
        value: p99.max,
        unit: 'ms',
      },
    ];
    return rows;
  } finally {
    agent.destroy();
    await stopServer(server);
    temp.remove();
  }
};
