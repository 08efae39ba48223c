/**
 * Many logs (issue 32), in one run of the built server (its own process, as `npm start` runs it) under
 * the same load: 64 connections spread over ten tenants, admitting to one log (ten tenants on the shared
 * log, unlimited there) and to ten dedicated logs (ten L4 tenants, each its own log). Both sides have as
 * many tenants with the same allowance, so only the number of logs differs (a tenant's admissions are
 * group-committed on its own stream, so fewer tenants admit slower: the governance suite's single-log
 * figure is of 64). Runs of the two alternate, so that a neighbour's load on this shared machine falls
 * on both; each is reported by its median run. Then the anchor lag: for every dedicated-log tree head
 * signed meanwhile, the time from its signing to the shared-log tree head that covers its anchor,
 * anchoring at the default interval (10 s).
 *
 * GOV_BENCH_SECONDS (3 by default) sets each run to three times that many seconds.
 */
import path from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { anchorStreamOf, dedicatedLogOf, SHARED_LOG_NAME, treeHeadStreamOf } from '../domain/log';
import type { LogAnchored, TreeHeadSigned } from '../event-schemas';
import type { EventStore } from '../ports/event-store';
import { UNLIMITED_IN_SHARED_LOG } from '../tests/support/unlimited-tenant';
import { type MeasuredRun, measuredRun, summarizeRuns } from './admission.bench';
import { type AnchorEvent, anchorLags, type SharedHead, type SignedAt } from './anchor-lag';
import { admissions, CONNECTIONS, registerTenants, SECONDS, startServer, stopServer } from './http-server';
import { percentile } from './percentile';
import type { BenchRow, BenchSuite } from './report';
import { tempDir } from './temp-dir';

/** Tenants on each side: on the shared log, and L4 ones, each with its own log. */
const TENANTS = 10;
const RUNS = 3;
const RUN_SECONDS = Math.max(2, SECONDS * 3);
/** GOV_ANCHOR_INTERVAL_MS's default: the server runs with it. */
const ANCHOR_INTERVAL_MS = 10_000;
const ANCHOR_LAG_TARGET_SECONDS = 15;

export const logsBench: BenchSuite = async () => {
  const temp = tempDir('gov-bench-logs');
  const dataDir = path.join(temp.dir, 'data');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dataDir, port);
  try {
    // As many tenants on each side, with the same allowance: only the number of logs differs.
    const requestsPerMinute = String(
      Math.ceil((CONNECTIONS * Number(UNLIMITED_IN_SHARED_LOG.requestsPerMinute)) / TENANTS),
    );
    const sharedKeys = (
      await registerTenants(base, dataDir, TENANTS, base, {
        tier: UNLIMITED_IN_SHARED_LOG.tier,
        requestsPerMinute,
      })
    ).map((t) => t.api_key);
    const dedicated = await registerTenants(base, dataDir, TENANTS, base, { tier: 'L4', requestsPerMinute });
    const dedicatedKeys = dedicated.map((t) => t.api_key);
    const logs = dedicated.map((t) => dedicatedLogOf(t.tenant_id));
    // Warm-up: JIT, caches, SQLite pages, and each dedicated log's first leaves.
    await admissions(base, sharedKeys, 1);
    await admissions(base, dedicatedKeys, 1);
    const warmSizes = await Promise.all(logs.map((log) => treeSize(base, log)));
    if (warmSizes.some((size) => size === 0))
      throw new Error(`a dedicated log got no leaf from its L4 tenant: sizes ${warmSizes.join(', ')}`);

    const oneLog: MeasuredRun[] = [];
    const tenLogs: MeasuredRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      oneLog.push(await measuredRun(base, sharedKeys, RUN_SECONDS));
      tenLogs.push(await measuredRun(base, dedicatedKeys, RUN_SECONDS));
    }
    const sizes = await Promise.all(logs.map((log) => treeSize(base, log)));
    await untilAnchored(base, logs, sizes);
    await stopServer(server);
    const lag = await measureAnchorLag(path.join(dataDir, 'events.db'), logs);

    const one = summarizeRuns(oneLog);
    const ten = summarizeRuns(tenLogs);
    const oneRate = one.median.run.requests.average;
    const tenRate = ten.median.run.requests.average;
    const latencyRows = (which: string, run: MeasuredRun['run']): BenchRow[] => [
      { suite: 'logs', metric: `admission latency p50, ${which}`, value: run.latency.p50, unit: 'ms' },
      { suite: 'logs', metric: `admission latency p99, ${which}`, value: run.latency.p99, unit: 'ms' },
    ];
    const p99 = percentile(lag.lags, 99);
    return [
      {
        suite: 'logs',
        metric: `admissions/s, 1 log (${TENANTS} tenants on the shared log), ${CONNECTIONS} connections`,
        value: Math.round(oneRate),
        unit: 'admissions/s',
        notes: one.notes,
      },
      ...latencyRows('1 log', one.median.run),
      {
        suite: 'logs',
        metric: `admissions/s, ${TENANTS} dedicated logs (${TENANTS} L4 tenants), ${CONNECTIONS} connections`,
        value: Math.round(tenRate),
        unit: 'admissions/s',
        target: '>= 1 log',
        met: tenRate >= oneRate && ten.failed === 0,
        peer: { name: '1 log', value: Math.round(oneRate) },
        ratio: tenRate / oneRate,
        notes: `${ten.notes}; leaves per dedicated log ${Math.min(...sizes)}–${Math.max(...sizes)}`,
      },
      ...latencyRows(`${TENANTS} dedicated logs`, ten.median.run),
      {
        suite: 'logs',
        metric: `anchor lag p99 (dedicated head signed → shared STH covering its anchor), anchoring every ${ANCHOR_INTERVAL_MS / 1000} s`,
        value: Math.round(p99 * 100) / 100,
        unit: 's',
        target: `<= ${ANCHOR_LAG_TARGET_SECONDS}`,
        met: p99 <= ANCHOR_LAG_TARGET_SECONDS && lag.uncovered === 0,
        notes: `${lag.lags.length} heads of ${TENANTS} logs, ${lag.anchors} anchors; p50 ${percentile(lag.lags, 50).toFixed(2)} s, max ${Math.max(...lag.lags).toFixed(2)} s; ${lag.uncovered} heads never anchored`,
      },
    ];
  } finally {
    if (server.exitCode === null && server.signalCode === null) await stopServer(server);
    temp.remove();
  }
};

async function treeSize(base: string, log: string): Promise<number> {
  const res = await fetch(`${base}/gov/v1/logs/${log}/sth`);
  if (!res.ok) throw new Error(`GET /gov/v1/logs/${log}/sth: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { tree_size: number }).tree_size;
}

/**
 * Waits until each log's last head (`sizes`) is anchored under a shared STH, so that every head of the
 * runs has its lag; a log not anchored within three intervals is left for the lag's count of heads
 * never anchored.
 */
async function untilAnchored(base: string, logs: readonly string[], sizes: readonly number[]): Promise<void> {
  const deadline = Date.now() + 3 * ANCHOR_INTERVAL_MS;
  const pending = new Set(logs.keys());
  while (pending.size > 0 && Date.now() < deadline) {
    for (const i of [...pending]) {
      const res = await fetch(`${base}/gov/v1/logs/${logs[i]}/anchor?tree_size=${sizes[i]}`);
      await res.arrayBuffer();
      if (res.ok) pending.delete(i);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every dedicated-log head's anchor lag, from the events the stopped server wrote. */
async function measureAnchorLag(
  eventStoreFile: string,
  logs: readonly string[],
): Promise<{ lags: number[]; uncovered: number; anchors: number }> {
  const store = new SqliteEventStore({ file: eventStoreFile });
  try {
    const sharedHeads: SharedHead[] = [];
    for (const head of await streamData<TreeHeadSigned>(store, treeHeadStreamOf(SHARED_LOG_NAME))) {
      const last = head.data.leaf_positions.at(-1);
      if (last !== undefined)
        sharedHeads.push({ signedAt: Date.parse(head.data.timestamp), lastLeafPosition: last });
    }
    const lags: number[] = [];
    let uncovered = 0;
    let anchors = 0;
    for (const log of logs) {
      const heads: SignedAt[] = (await streamData<TreeHeadSigned>(store, treeHeadStreamOf(log))).map((e) => ({
        tree_size: e.data.tree_size,
        signedAt: Date.parse(e.data.timestamp),
      }));
      const anchored: AnchorEvent[] = (await streamData<LogAnchored>(store, anchorStreamOf(log))).map(
        (e) => ({
          tree_size: e.data.record.tree_size,
          position: e.position,
        }),
      );
      anchors += anchored.length;
      const result = anchorLags(heads, anchored, sharedHeads);
      lags.push(...result.lags);
      uncovered += result.uncovered;
    }
    return { lags, uncovered, anchors };
  } finally {
    await store.close();
  }
}

async function streamData<T>(
  store: EventStore,
  stream: string,
): Promise<Array<{ data: T; position: number }>> {
  const events: Array<{ data: T; position: number }> = [];
  for await (const event of store.readStream(stream))
    events.push({ data: event.data as T, position: event.position });
  return events;
}
