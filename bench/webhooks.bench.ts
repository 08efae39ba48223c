/**
 * Webhooks, against the built server in its own process and a local receiver in another
 * (webhook-receiver-process.ts), so that receiving does not slow this process's load generator:
 *   1. admission throughput with no webhook registered (the baseline), and the same with 100 webhooks
 *      registered (leaf_admitted), in ROUNDS pairs of runs whose order alternates (without then with,
 *      with then without, …) so that the stores growing over the suite weigh on both sides alike;
 *      the ratio reported is the median of the pairs';
 *   2. the delay from admission to the receipt of its first delivery, measured at the receiver (an
 *      upper bound of first-attempt delay), over every run with webhooks;
 *   3. delivery throughput: one tenant with 100 webhooks on gate_fail, a burst of gate failures, and
 *      the rate at which the receiver gets the 100 × N deliveries.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { failingBody } from '../domain/governance/test-fixtures';
import { admissions, CONNECTIONS, registerTenants, SECONDS, startServer, stopServer } from './http-server';
import { percentile } from './percentile';
import type { BenchRow, BenchSuite } from './report';
import { tempDir } from './temp-dir';
import type { Receipt, ReceiverMessage } from './webhook-receiver-process';

const WEBHOOKS = 100;
const BURST = 100;
/**
 * Pairs of runs; the ratio is their median's. On this 2-core machine single pairs ranged from 83% to
 * 108% within one suite (other load on the host moves a 9-second run by that much), so five.
 */
const ROUNDS = 5;

/** The receiver, started in its own process; `receipts` grows as it reports them. */
export async function startReceiver() {
  // The same extension as this file: .js when built, .ts under a TypeScript loader.
  const entry = path.join(__dirname, `webhook-receiver-process${path.extname(__filename)}`);
  const child = fork(entry, [], {
    execArgv: entry.endsWith('.ts') ? ['--import', 'tsx'] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const receipts: Receipt[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (message: ReceiverMessage) => {
      if (message.kind === 'listening') resolve(message.url);
      else receipts.push(...message.receipts);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(new Error(`the webhook receiver exited (${signal ?? code})`)),
    );
  });
  return {
    url,
    receipts,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Registered {
  key: string;
  webhook_id: string;
}

export async function registerWebhook(
  base: string,
  key: string,
  url: string,
  events: string[],
): Promise<Registered> {
  const res = await fetch(`${base}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ url, events, secret: 'bench-secret-0123456789abcdef' }),
  });
  if (res.status !== 201) throw new Error(`webhook registration answered ${res.status}: ${await res.text()}`);
  return { key, webhook_id: ((await res.json()) as { webhook_id: string }).webhook_id };
}

async function removeWebhook(base: string, { key, webhook_id }: Registered): Promise<void> {
  const res = await fetch(`${base}/webhooks/${webhook_id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`webhook removal answered ${res.status}: ${await res.text()}`);
}

/** Resolves once `count()` has not changed for `quietMs`. */
export async function quiet(count: () => number, quietMs: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() < deadline) {
    if (count() !== last) {
      last = count();
      since = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const webhookBench: BenchSuite = async () => {
  const temp = tempDir('gov-bench-webhooks');
  const dataDir = path.join(temp.dir, 'data');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const receiver = await startReceiver();
  const server = await startServer(dataDir, port, { GOV_WEBHOOK_ALLOW: '127.0.0.1' });
  const seconds = Math.max(5, SECONDS * 3);
  try {
    const tenants = await registerTenants(base, dataDir, CONNECTIONS);
    const keys = tenants.map((t) => t.api_key);
    await admissions(base, keys, 1); // warm-up

    const delays: number[] = [];
    const runWithout = async () => (await admissions(base, keys, seconds)).requests.average;
    const runWith = async () => {
      const hooks: Registered[] = [];
      for (let i = 0; i < WEBHOOKS; i++)
        hooks.push(await registerWebhook(base, keys[i % keys.length]!, receiver.url, ['leaf_admitted']));
      const startedAt = Date.now();
      const run = await admissions(base, keys, seconds);
      // Deliveries may trail the run: wait until the receiver has heard nothing new for a second.
      await quiet(() => receiver.receipts.length, 1000, 120_000);
      for (const receipt of receiver.receipts)
        if (receipt.at >= startedAt && receipt.admitted_at)
          delays.push(receipt.at - Date.parse(receipt.admitted_at));
      for (const hook of hooks) await removeWebhook(base, hook);
      return run.requests.average;
    };
    const pairs: Array<{ without: number; with: number }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        const without = await runWithout();
        pairs.push({ without, with: await runWith() });
      } else {
        const withHooks = await runWith();
        pairs.push({ without: await runWithout(), with: withHooks });
      }
    }
    const ratios = pairs.map((pair) => pair.with / pair.without);
    const median = [...pairs].sort((a, b) => a.with / a.without - b.with / b.without)[
      Math.floor(ROUNDS / 2)
    ]!;

    // Delivery throughput: 100 webhooks on one tenant, a burst of gate failures.
    const [burstTenant] = await registerTenants(base, dataDir, 1);
    if (!burstTenant) throw new Error('no tenant for the burst');
    for (let i = 0; i < WEBHOOKS; i++)
      await registerWebhook(base, burstTenant.api_key, receiver.url, ['gate_fail']);
    const before = receiver.receipts.length;
    const burstStart = Date.now();
    await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        fetch(`${base}/governance/evidence`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${burstTenant.api_key}` },
          body: JSON.stringify({ ...failingBody(), subject_id: `burst-${i % 20}` }),
        }).then((res) => res.text()),
      ),
    );
    const burstOwed = BURST * WEBHOOKS;
    await until(
      () => receiver.receipts.slice(before).filter((r) => r.type === 'gate_fail').length >= burstOwed,
      120_000,
    );
    const burstEnd = receiver.receipts[receiver.receipts.length - 1]!.at;
    const deliveryRate = burstOwed / ((burstEnd - burstStart) / 1000);

    const ratio = median.with / median.without;
    const p99 = percentile(delays, 99);
    const rows: BenchRow[] = [
      {
        suite: 'webhooks',
        metric: `deliveries/s to a local receiver, ${WEBHOOKS} webhooks, burst of ${BURST} events`,
        value: Math.round(deliveryRate),
        unit: 'deliveries/s',
        target: '>= 2000',
        met: deliveryRate >= 2000,
        notes: `${burstOwed} signed deliveries, from the first request to the last receipt`,
      },
      {
        suite: 'webhooks',
        metric: 'admissions/s, no webhook registered',
        value: Math.round(median.without),
        unit: 'admissions/s',
        notes: `the median pair of ${ROUNDS}; every pair: ${pairs.map((pair) => `${Math.round(pair.without)}/${Math.round(pair.with)}`).join(', ')} (without/with)`,
      },
      {
        suite: 'webhooks',
        metric: `admissions/s, ${WEBHOOKS} webhooks registered (leaf_admitted)`,
        value: Math.round(median.with),
        unit: 'admissions/s',
        target: '>= 90% of no webhooks',
        met: ratio >= 0.9,
        notes: `${Math.round(ratio * 100)}% of the baseline (the median of ${ROUNDS} pairs: ${ratios.map((r) => `${Math.round(r * 100)}%`).join(', ')}); ${delays.length} deliveries received during and after the runs`,
      },
      {
        suite: 'webhooks',
        metric: 'admission → first delivery received, p99',
        value: p99,
        unit: 'ms',
        target: '<= 1000',
        met: p99 <= 1000,
        notes: `p50 ${percentile(delays, 50)} ms`,
      },
    ];
    return rows;
  } finally {
    await stopServer(server);
    await receiver.close();
    temp.remove();
  }
};
