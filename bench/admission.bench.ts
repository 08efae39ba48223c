/**
 * Admissions over HTTP: the built server runs as its own process (as `npm start` runs it) and
 * autocannon drives `POST /governance/evidence` from this one over loopback, 64 connections, each
 * with its own tenant, unlimited in the shared log (http-server.ts). A 201 means the leaf is integrated and covered by a signed tree head, so
 * the admission latency is also the delay from request to covering STH. Three runs; the median one is
 * reported, with every run's rate and CPU steal in the notes.
 */
import path from 'node:path';
import { readCpuTimes, stealShare } from './cpu-steal';
import {
  admissions,
  CONNECTIONS,
  load,
  registerTenants,
  SECONDS,
  sequencerStats,
  startServer,
  stopServer,
} from './http-server';
import type { BenchRow, BenchSuite } from './report';
import { tempDir } from './temp-dir';

const ADMISSION_RUNS = 3;

export interface MeasuredRun {
  run: Awaited<ReturnType<typeof admissions>>;
  before: Awaited<ReturnType<typeof sequencerStats>>;
  after: Awaited<ReturnType<typeof sequencerStats>>;
  /** Share of the machine's CPU time the hypervisor took during the run. */
  steal: number;
}

export async function measuredRun(
  base: string,
  keys: string[],
  seconds = Math.max(5, SECONDS * 3),
): Promise<MeasuredRun> {
  const before = await sequencerStats(base);
  const cpuBefore = readCpuTimes();
  const run = await admissions(base, keys, seconds);
  const steal = stealShare(cpuBefore, readCpuTimes());
  return { run, before, after: await sequencerStats(base), steal };
}

/** The run with the median rate (its latencies belong to it: percentiles of different runs do not mix). */
function medianRun(runs: MeasuredRun[]): MeasuredRun {
  const sorted = [...runs].sort((a, b) => a.run.requests.average - b.run.requests.average);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function formatShare(share: number): string {
  return Number.isNaN(share) ? 'unknown' : `${Math.round(share * 100)}%`;
}

/** Runs of the same load: the median one, how many answers were not 201, and a note of every run. */
export function summarizeRuns(runs: MeasuredRun[]): { median: MeasuredRun; failed: number; notes: string } {
  const failed = runs.reduce((sum, r) => sum + r.run.non2xx + r.run.errors + r.run.timeouts, 0);
  const eachRun = runs
    .map((r) => `${Math.round(r.run.requests.average)}/s (steal ${formatShare(r.steal)})`)
    .join(', ');
  const requests = runs.reduce((sum, r) => sum + r.run.requests.total, 0);
  return {
    median: medianRun(runs),
    failed,
    notes: `median of ${runs.length} runs: ${eachRun}; ${requests} requests, ${failed} not 201`,
  };
}

export const admissionBench: BenchSuite = async () => {
  const temp = tempDir('gov-bench-admission');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(path.join(temp.dir, 'data'), port);
  try {
    const keys = (await registerTenants(base, path.join(temp.dir, 'data'), CONNECTIONS)).map(
      (t) => t.api_key,
    );
    await admissions(base, keys, 1); // warm-up: JIT, caches, SQLite pages
    // Three runs, reported by the median one: on a shared virtual machine single runs swing by a
    // quarter with the neighbours' load (the notes give each run's rate and CPU steal).
    const runs: MeasuredRun[] = [];
    for (let i = 0; i < ADMISSION_RUNS; i++) runs.push(await measuredRun(base, keys));
    const { median, failed, notes } = summarizeRuns(runs);
    const { run, before, after } = median;
    const batches = after.batches - before.batches;
    const rate = run.requests.average;
    const rows: BenchRow[] = [
      {
        suite: 'governance',
        metric: `durable admissions (POST /governance/evidence → 201 with covering STH), ${CONNECTIONS} connections`,
        value: Math.round(rate),
        unit: 'admissions/s',
        target: '>= 3000',
        met: rate >= 3000 && failed === 0,
        notes,
      },
      {
        suite: 'governance',
        metric: 'admission latency p50 (= request → covering STH)',
        value: run.latency.p50,
        unit: 'ms',
      },
      {
        suite: 'governance',
        metric: 'admission latency p99 (= request → covering STH)',
        value: run.latency.p99,
        unit: 'ms',
        target: '<= 50',
        met: run.latency.p99 <= 50,
      },
      {
        suite: 'governance',
        metric: 'sequencer: leaves per signed tree head (mean batch)',
        value: Math.round(((after.leaves - before.leaves) / Math.max(1, batches)) * 10) / 10,
        unit: 'leaves',
      },
      {
        suite: 'governance',
        metric: 'sequencer: integrate + sign + store one batch (mean)',
        value: Math.round(((after.seconds - before.seconds) / Math.max(1, batches)) * 1e5) / 100,
        unit: 'ms',
      },
    ];
    // Proof reads: cycle over 1,000 distinct leaves of the log just built.
    const size = ((await (await fetch(`${base}/gov/v1/log/sth`)).json()) as { tree_size: number }).tree_size;
    const hashes: string[] = [];
    for (let i = 0; i < Math.min(1000, size); i++) {
      const index = Math.floor((i * size) / Math.min(1000, size));
      hashes.push(
        ((await (await fetch(`${base}/gov/v1/log/leaf?index=${index}`)).json()) as { leaf_hash: string })
          .leaf_hash,
      );
    }
    const proofs = await load({
      url: base,
      connections: CONNECTIONS,
      duration: Math.max(3, SECONDS),
      requests: hashes.map((hash) => ({ method: 'GET', path: `/gov/v1/log/proof?leaf_hash=${hash}` })),
    });
    rows.push({
      suite: 'governance',
      metric: `inclusion proof reads (GET /gov/v1/log/proof), tree of ${size} leaves`,
      value: Math.round(proofs.requests.average),
      unit: 'reads/s',
      target: '>= 10000',
      met: proofs.requests.average >= 10_000 && proofs.non2xx === 0,
      notes: `p99 ${proofs.latency.p99} ms`,
    });
    return rows;
  } finally {
    await stopServer(server);
    temp.remove();
  }
};
