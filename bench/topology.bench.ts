/**
 * The production topology against the embedded server, in the same run. The topology is the one the
 * fault tests start (tests/support/topology.ts), from the built roles: Kafka and FerretDB of its own
 * (the CI server scripts on free ports, as `.ci/run` starts them), the shared SQLite event store, two
 * sequencer/projector processes (one writes, one stands by), a dispatcher, a read API and two command
 * APIs. Admissions at 64 connections, 32 on each command API; the embedded server gets the same 64 on
 * its one port. Every tenant has one webhook (leaf_admitted) to a local receiver on both sides, and the
 * receiver times each admission's first delivery.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../runtime/config/node-flags';
import { freePort } from '../tests/support/children';
import { PrivateFerretDb, PrivateKafka } from '../tests/support/private-servers';
import {
  ROLE_ENTRY,
  type RoleName,
  type TopologyStores,
  topologyEnvironment,
} from '../tests/support/topology-environment';
import {
  admissions,
  CONNECTIONS,
  registerTenants,
  SECONDS,
  startServer,
  stopServer,
  untilHealthy,
} from './http-server';
import { percentile } from './percentile';
import type { BenchRow, BenchSuite } from './report';
import { tempDir } from './temp-dir';
import { quiet, registerWebhook, startReceiver } from './webhooks.bench';

const RUNS = 3;

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

interface Measured {
  rate: number;
  p50: number;
  p99: number;
  failed: number;
  /** Admission → first delivery received, ms. */
  deliveries: number[];
}

/** The median run by rate of RUNS, each of them in the notes. */
async function measure(
  commandUrls: string[],
  keys: string[],
  receiver: Receiver,
): Promise<{ median: Measured; runs: Measured[] }> {
  const perApi = CONNECTIONS / commandUrls.length;
  const once = async (seconds: number): Promise<Measured> => {
    const startedAt = Date.now();
    const results = await Promise.all(
      commandUrls.map((url, i) => admissions(url, keys.slice(i * perApi, (i + 1) * perApi), seconds, perApi)),
    );
    await quiet(() => receiver.receipts.length, 1000, 120_000);
    const deliveries = receiver.receipts
      .filter((receipt) => receipt.at >= startedAt && receipt.admitted_at)
      .map((receipt) => receipt.at - Date.parse(receipt.admitted_at!));
    return {
      rate: results.reduce((sum, r) => sum + r.requests.average, 0),
      // Each command API's load is measured apart: the p50 is their mean, the p99 the worse of the two.
      p50: results.reduce((sum, r) => sum + r.latency.p50, 0) / results.length,
      p99: Math.max(...results.map((r) => r.latency.p99)),
      failed: results.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
      deliveries,
    };
  };
  await once(1); // warm-up: JIT, caches, connections
  const runs: Measured[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once(Math.max(5, SECONDS * 3)));
  const median = [...runs].sort((a, b) => a.rate - b.rate)[Math.floor(RUNS / 2)]!;
  return { median, runs };
}

async function tenantsWithWebhooks(commandUrl: string, readUrl: string, dataDir: string, receiver: Receiver) {
  const tenants = await registerTenants(commandUrl, dataDir, CONNECTIONS, readUrl);
  for (const tenant of tenants)
    await registerWebhook(commandUrl, tenant.api_key, receiver.url, ['leaf_admitted']);
  return tenants.map((tenant) => tenant.api_key);
}

/** The six roles of the topology, each a built role process on a port of its own. */
async function startTopology(stores: TopologyStores) {
  const ports = {} as Record<RoleName, number>;
  for (const role of Object.keys(ROLE_ENTRY) as RoleName[]) ports[role] = await freePort();
  // The benchmark registers its tenants from one address.
  const env = {
    ...process.env,
    ...topologyEnvironment(stores, ports),
    GOV_REGISTRATIONS_PER_IP_HOUR: '1000000',
  };
  const children: ChildProcess[] = [];
  const url = (role: RoleName) => `http://127.0.0.1:${ports[role]}`;
  const start = async (names: RoleName[]) => {
    for (const name of names)
      children.push(
        spawn(
          process.execPath,
          [...SERVER_NODE_FLAGS, path.resolve(__dirname, '../runtime/roles', `${ROLE_ENTRY[name]}.js`)],
          { env: { ...env, GOV_PORT: String(ports[name]) }, stdio: ['ignore', 'ignore', 'inherit'] },
        ),
      );
    for (const name of names) await untilHealthy(url(name));
  };
  // The sequencers first: the other roles follow a log that has a signed head.
  await start(['projectors-a', 'projectors-b']);
  await start(['dispatcher', 'read-api', 'command-api-a', 'command-api-b']);
  return {
    commandUrls: [url('command-api-a'), url('command-api-b')],
    readUrl: url('read-api'),
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
              child.once('exit', resolve);
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

const describeRuns = (runs: Measured[]) =>
  runs.map((run) => `${Math.round(run.rate)}/s p99 ${Math.round(run.p99)} ms`).join(', ');

export const topologyBench: BenchSuite = async () => {
  const temp = tempDir('gov-bench-topology');
  const receiver = await startReceiver();
  let ferret: PrivateFerretDb | null = null;
  let kafka: PrivateKafka | null = null;
  try {
    // The embedded server, the same load.
    const embeddedData = path.join(temp.dir, 'embedded');
    const port = await freePort();
    const embeddedUrl = `http://127.0.0.1:${port}`;
    const server = await startServer(embeddedData, port, { GOV_WEBHOOK_ALLOW: '127.0.0.1' });
    let embedded: Awaited<ReturnType<typeof measure>>;
    try {
      const keys = await tenantsWithWebhooks(embeddedUrl, embeddedUrl, embeddedData, receiver);
      embedded = await measure([embeddedUrl], keys, receiver);
    } finally {
      await stopServer(server);
    }

    const servers = path.join(temp.dir, 'servers');
    fs.mkdirSync(servers, { recursive: true });
    ferret = await PrivateFerretDb.start(servers);
    kafka = await PrivateKafka.start(servers);
    const dataDir = path.join(temp.dir, 'topology');
    const topology = await startTopology({
      dataDir,
      mongoUrl: ferret.url,
      database: 'gov_bench',
      kafkaBrokers: kafka.brokers,
    });
    let measured: Awaited<ReturnType<typeof measure>>;
    try {
      const keys = await tenantsWithWebhooks(topology.commandUrls[0]!, topology.readUrl, dataDir, receiver);
      measured = await measure(topology.commandUrls, keys, receiver);
    } finally {
      await topology.stop();
    }

    const ours = measured.median;
    const base = embedded.median;
    const share = ours.rate / base.rate;
    const deliveryP99 = percentile(ours.deliveries, 99);
    return [
      {
        suite: 'topology',
        metric: `admissions/s, production topology (2 command APIs, FerretDB, Kafka), ${CONNECTIONS} connections`,
        value: Math.round(ours.rate),
        unit: 'admissions/s',
        peer: { name: 'embedded server, same run', value: Math.round(base.rate) },
        ratio: Math.round(share * 100) / 100,
        target: '>= 50% of embedded',
        met: share >= 0.5 && ours.failed === 0,
        notes: `median of ${RUNS}: ${describeRuns(measured.runs)}; embedded: ${describeRuns(embedded.runs)}; ${ours.failed} not 201`,
      },
      {
        suite: 'topology',
        metric: 'admission latency p50, production topology',
        value: Math.round(ours.p50),
        unit: 'ms',
        peer: { name: 'embedded server, same run', value: Math.round(base.p50) },
      },
      {
        suite: 'topology',
        metric: 'admission latency p99, production topology',
        value: Math.round(ours.p99),
        unit: 'ms',
        peer: { name: 'embedded server, same run', value: Math.round(base.p99) },
        target: '<= 5× embedded p99',
        met: ours.rate > 0 && ours.p99 <= 5 * base.p99,
      },
      {
        suite: 'topology',
        metric: 'first webhook delivery p99 (admission → receipt), production topology',
        value: Math.round(deliveryP99),
        unit: 'ms',
        peer: { name: 'embedded server, same run', value: Math.round(percentile(base.deliveries, 99)) },
        target: '<= 1000',
        met: ours.deliveries.length > 0 && deliveryP99 <= 1000,
        notes: `${ours.deliveries.length} first deliveries received during the median run`,
      },
    ] satisfies BenchRow[];
  } finally {
    kafka?.dispose();
    ferret?.dispose();
    await receiver.close();
    temp.remove();
  }
};
