/**
 * The pieces the HTTP benchmarks share: the built server as its own process (as `npm start` runs
 * it), tenants without limits in the shared log, autocannon runs of evidence submissions, and the
 * server's own metrics.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { validBody } from '../domain/governance/test-fixtures';
import { SERVER_NODE_FLAGS } from '../runtime/config/node-flags';
import {
  changeTiersInFile,
  hasTierChange,
  type TierChange,
  UNLIMITED_IN_SHARED_LOG,
} from '../tests/support/unlimited-tenant';

export const SECONDS = Number(process.env.GOV_BENCH_SECONDS ?? 3);
export const CONNECTIONS = 64;

/** A passing evidence submission for one subject (the domain tests' fixture). */
function evidenceBody(subject: string): string {
  return JSON.stringify({ ...validBody(), subject_id: subject });
}

export async function startServer(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
  /** Where the server's log lines go (a file descriptor), or nowhere. */
  stdout: 'ignore' | number = 'ignore',
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      // As `npm start` runs it.
      ...SERVER_NODE_FLAGS,
      ...(process.env.GOV_BENCH_PROFILE
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.GOV_BENCH_PROFILE}`]
        : []),
      path.resolve(__dirname, '../runtime/main.js'),
    ],
    {
      env: {
        ...process.env,
        GOV_PORT: String(port),
        GOV_PLATFORM_PORT: '0',
        GOV_HOST: '127.0.0.1',
        GOV_DATA_DIR: dataDir,
        GOV_LOG_LEVEL: 'warn',
        // The benchmarks register their tenants from one address.
        GOV_REGISTRATIONS_PER_IP_HOUR: '1000000',
        ...env,
      },
      stdio: ['ignore', stdout, 'inherit'],
    },
  );
  try {
    await untilHealthy(`http://127.0.0.1:${port}`);
    return child;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Resolves once GET /health of `base` answers 200; throws after 30 s. */
export async function untilHealthy(base: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${base} did not start in 30 s`);
}

/**
 * Registers `count` tenants and changes their tier as `gov tenant tier` does: by default lifts their
 * limits (tests/support/unlimited-tenant.ts), L2+ with L4's requests per minute, so that their leaves
 * stay in the shared log, the one the benchmarks measure; L4 gives each its dedicated log.
 */
export async function registerTenants(
  base: string,
  dataDir: string,
  count: number,
  /** Where GET routes are served (the read API of the topology); `base` by default. */
  readBase = base,
  change: TierChange = UNLIMITED_IN_SHARED_LOG,
): Promise<Array<{ api_key: string; tenant_id: string }>> {
  const tenants: Array<{ api_key: string; tenant_id: string }> = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${base}/auto-register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench${i}@example.com` }),
    });
    tenants.push((await res.json()) as { api_key: string; tenant_id: string });
  }
  await changeTiersInFile(
    path.join(dataDir, 'events.db'),
    tenants.map((tenant) => ({ tenantId: tenant.tenant_id, ...change })),
    'bench',
  );
  for (const tenant of tenants) {
    for (;;) {
      const res = await fetch(`${readBase}/account`, {
        headers: { authorization: `Bearer ${tenant.api_key}` },
      });
      if (hasTierChange((await res.json()) as Parameters<typeof hasTierChange>[0], change)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return tenants;
}

export function load(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

export function admissions(base: string, keys: string[], seconds: number, connections = CONNECTIONS) {
  let next = 0;
  return load({
    url: `${base}/governance/evidence`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupClient: (client) => {
      const connection = next++;
      client.setHeaders({
        'content-type': 'application/json',
        authorization: `Bearer ${keys[connection % keys.length]}`,
      });
      // A subject per connection: admissions of one subject form its chain one after another, so
      // connections sharing a subject would measure their contention, not the service's rate.
      client.setBody(evidenceBody(`model-${connection}`));
    },
  });
}

/** Mean of a Prometheus histogram (sum / count) and a counter, read from /v1/metrics. */
export async function sequencerStats(
  base: string,
): Promise<{ batches: number; seconds: number; leaves: number }> {
  const text = await (await fetch(`${base}/v1/metrics`)).text();
  // Summed over the series of every log (the sequencer's metrics are labelled by log).
  const value = (name: string) =>
    [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
  return {
    batches: value('gov_sequencer_batch_seconds_count'),
    seconds: value('gov_sequencer_batch_seconds_sum'),
    leaves: value('gov_sequencer_leaves_total'),
  };
}

/** Stops the server process and waits for it to exit. */
export async function stopServer(server: ChildProcess): Promise<void> {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
}
