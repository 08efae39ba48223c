/**
 * Admissions over HTTP: the built server runs as its own process (as `npm start` runs it) and
 * autocannon drives `POST /governance/evidence` from this one over loopback, 64 connections, each
 * with its own L4 tenant. A 201 means the leaf is integrated and covered by a signed tree head, so
 * the admission latency is also the delay from request to covering STH.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { changeTier } from '../cli/tenant-tier';
import { validBody } from '../domain/test-fixtures';
import { ValidatingEventStore } from '../event-schemas';
import type { BenchRow, BenchSuite } from './report';
import { tempDir } from './temp-dir';

const SECONDS = Number(process.env.GOV_BENCH_SECONDS ?? 3);
const CONNECTIONS = 64;

/** A passing evidence submission for one subject (the domain tests' fixture). */
function evidenceBody(subject: string): string {
  return JSON.stringify({ ...validBody(), subject_id: subject });
}

async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.GOV_BENCH_PROFILE
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.GOV_BENCH_PROFILE}`]
        : []),
      path.resolve(__dirname, '../runtime/main.js'),
    ],
    {
      env: {
        ...process.env,
        GOV_PORT: String(port),
        GOV_HOST: '127.0.0.1',
        GOV_DATA_DIR: dataDir,
        GOV_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not start');
}

async function registerL4Tenants(base: string, dataDir: string, count: number): Promise<string[]> {
  const tenants: Array<{ api_key: string; tenant_id: string }> = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${base}/auto-register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench${i}@example.com` }),
    });
    tenants.push((await res.json()) as { api_key: string; tenant_id: string });
  }
  const store = new ValidatingEventStore(new SqliteEventStore({ file: path.join(dataDir, 'events.db') }));
  for (const tenant of tenants)
    await changeTier(store, { tenantId: tenant.tenant_id, tier: 'L4', operator: 'bench' });
  await store.close();
  for (const tenant of tenants) {
    for (;;) {
      const res = await fetch(`${base}/account`, { headers: { authorization: `Bearer ${tenant.api_key}` } });
      if (((await res.json()) as { tier: string }).tier === 'L4') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return tenants.map((t) => t.api_key);
}

function load(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

function admissions(base: string, keys: string[], seconds: number) {
  let next = 0;
  return load({
    url: `${base}/governance/evidence`,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupClient: (client) => {
      const i = next++ % keys.length;
      client.setHeaders({ 'content-type': 'application/json', authorization: `Bearer ${keys[i]}` });
      client.setBody(evidenceBody(`model-${i}`));
    },
  });
}

/** Mean of a Prometheus histogram (sum / count) and a counter, read from /v1/metrics. */
async function sequencerStats(base: string): Promise<{ batches: number; seconds: number; leaves: number }> {
  const text = await (await fetch(`${base}/v1/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    batches: value('gov_sequencer_batch_seconds_count'),
    seconds: value('gov_sequencer_batch_seconds_sum'),
    leaves: value('gov_sequencer_leaves_total'),
  };
}

export const admissionBench: BenchSuite = async () => {
  const temp = tempDir('gov-bench-admission');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(path.join(temp.dir, 'data'), port);
  try {
    const keys = await registerL4Tenants(base, path.join(temp.dir, 'data'), CONNECTIONS);
    await admissions(base, keys, 1); // warm-up: JIT, caches, SQLite pages
    const before = await sequencerStats(base);
    const run = await admissions(base, keys, Math.max(5, SECONDS * 3));
    const after = await sequencerStats(base);
    const failed = run.non2xx + run.errors + run.timeouts;
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
        notes: `${run.requests.total} requests, ${failed} not 201`,
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
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    temp.remove();
  }
};
