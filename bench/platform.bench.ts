/**
 * The agent platform over HTTP: the built server runs as its own process (as `npm start` runs it,
 * the platform on its own port) and autocannon drives `POST /v1/agents/:agentId/actions` from this
 * one, 64 connections each with its agent's key: first over 16 agents of one user (tier L2+: 100,000
 * governed actions per agent per day), four connections each, whose actions queue on their agent's
 * stream; then over 64 agents, one per connection, as the governance suite has a tenant per
 * connection. A 200 means the action passed the five gates, its record was signed, appended and
 * integrated, and a signed tree head covers its leaf: the latency is request → covering STH. Three
 * runs of each; the median one is reported.
 *
 * First, the clearinghouse's admissions/s with the platform running idle beside it, against a second
 * server started with GOV_PLATFORM_PORT=off, runs of the two alternating (http-server.ts,
 * admission.bench.ts).
 */
import path from 'node:path';
import type autocannon from 'autocannon';
import { MailCatcher, signInByMail } from '../tests/support/mail-catcher';
import { changeTiersInFile, UNLIMITED_IN_SHARED_LOG } from '../tests/support/unlimited-tenant';
import { type MeasuredRun, measuredRun, summarizeRuns } from './admission.bench';
import { readCpuTimes, stealShare } from './cpu-steal';
import {
  admissions,
  CONNECTIONS,
  load,
  registerTenants,
  SECONDS,
  startServer,
  stopServer,
} from './http-server';
import type { BenchRow, BenchSuite } from './report';
import { tempDir } from './temp-dir';

const RUNS = 3;
/** The agents four connections each share, in the first measurement of governed actions. */
const SHARED_AGENTS = 16;
/** A message the gates admit: no rule, injection signal, secret or personal datum in it. */
const CONTENT = 'Summarize the open tasks of this week and draft a short status note for the team.';

interface PlatformRun {
  run: autocannon.Result;
  steal: number;
}

async function signedInUser(
  platformUrl: string,
  mail: MailCatcher,
): Promise<{ cookie: string; tenantId: string }> {
  const { cookie } = await signInByMail(platformUrl, mail, 'bench-platform@example.com');
  const me = (await (
    await fetch(`${platformUrl}/v1/auth/me`, { headers: { cookie: `gov_session=${cookie}` } })
  ).json()) as {
    tenant_id: string;
  };
  return { cookie, tenantId: me.tenant_id };
}

/** The owner's tier lifted as `gov tenant tier` does, once the platform sees it. */
async function liftTier(platformUrl: string, dataDir: string, user: { cookie: string; tenantId: string }) {
  await changeTiersInFile(
    path.join(dataDir, 'events.db'),
    [{ tenantId: user.tenantId, ...UNLIMITED_IN_SHARED_LOG }],
    'bench',
  );
  for (;;) {
    const me = (await (
      await fetch(`${platformUrl}/v1/auth/me`, { headers: { cookie: `gov_session=${user.cookie}` } })
    ).json()) as {
      tier: string;
    };
    if (me.tier === UNLIMITED_IN_SHARED_LOG.tier) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `count` agents of the user, each with a key that may send actions. */
async function agentsWithKeys(platformUrl: string, cookie: string, count: number) {
  const headers = {
    'content-type': 'application/json',
    cookie: `gov_session=${cookie}`,
    origin: platformUrl,
  };
  const agents: Array<{ agentId: string; key: string }> = [];
  for (let i = 0; i < count; i++) {
    const created = (await (
      await fetch(`${platformUrl}/v1/agents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ agent_name: `bench ${i}` }),
      })
    ).json()) as { agent: { agent_id: string } };
    const agentId = created.agent.agent_id;
    const key = (await (
      await fetch(`${platformUrl}/v1/agents/${agentId}/api-keys`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'bench', scopes: ['actions', 'chat'] }),
      })
    ).json()) as { raw_key: string };
    agents.push({ agentId, key: key.raw_key });
  }
  return agents;
}

function governedActions(
  platformUrl: string,
  agents: Array<{ agentId: string; key: string }>,
  seconds: number,
) {
  let next = 0;
  const body = JSON.stringify({ type: 'chat_message', content: CONTENT });
  return load({
    url: platformUrl,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    setupClient: (client) => {
      const agent = agents[next++ % agents.length]!;
      client.setRequests([
        {
          method: 'POST',
          path: `/v1/agents/${agent.agentId}/actions`,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.key}` },
          body,
        },
      ]);
    },
  });
}

function median<T extends { run: autocannon.Result }>(runs: T[]): T {
  const sorted = [...runs].sort((a, b) => a.run.requests.average - b.run.requests.average);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** RUNS runs of governed actions over `agents` (after a warm-up), and their rows. */
async function actionRows(
  platformUrl: string,
  agents: Array<{ agentId: string; key: string }>,
  shape: string,
  targets: boolean,
): Promise<BenchRow[]> {
  await governedActions(platformUrl, agents, 1); // warm-up: JIT, caches, SQLite pages
  const runs: PlatformRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpu = readCpuTimes();
    const run = await governedActions(platformUrl, agents, Math.max(3, SECONDS));
    runs.push({ run, steal: stealShare(cpu, readCpuTimes()) });
  }
  const { run } = median(runs);
  const failed = runs.reduce((sum, r) => sum + r.run.non2xx + r.run.errors + r.run.timeouts, 0);
  const rate = run.requests.average;
  const otherStatuses = [
    ...new Set(
      runs.flatMap((r) =>
        Object.keys((r.run as { statusCodeStats?: Record<string, unknown> }).statusCodeStats ?? {}).filter(
          (code) => code !== '200',
        ),
      ),
    ),
  ];
  const eachRun = runs
    .map(
      (r) =>
        `${Math.round(r.run.requests.average)}/s p99 ${r.run.latency.p99} ms (steal ${Math.round(r.steal * 100)}%)`,
    )
    .join(', ');
  return [
    {
      suite: 'platform',
      metric: `governed actions (POST /v1/agents/:id/actions → 200, gates + signed leaf under a covering STH), ${CONNECTIONS} connections, ${shape}`,
      value: Math.round(rate),
      unit: 'actions/s',
      ...(targets ? { target: '>= 2000', met: rate >= 2000 && failed === 0 } : {}),
      notes: `median of ${RUNS} runs: ${eachRun}; ${runs.reduce((s, r) => s + r.run.requests.total, 0)} requests, ${failed} not 200${otherStatuses.length > 0 ? ` (statuses ${otherStatuses.join(', ')})` : ''}`,
    },
    {
      suite: 'platform',
      metric: `governed action latency p50 (= request → covering STH), ${shape}`,
      value: run.latency.p50,
      unit: 'ms',
    },
    {
      suite: 'platform',
      metric: `governed action latency p99 (= request → covering STH), ${shape}`,
      value: run.latency.p99,
      unit: 'ms',
      ...(targets ? { target: '<= 50', met: run.latency.p99 <= 50 } : {}),
    },
  ];
}

async function registeredKeys(base: string, dataDir: string): Promise<string[]> {
  const keys = (await registerTenants(base, dataDir, CONNECTIONS)).map((t) => t.api_key);
  await admissions(base, keys, 1); // warm-up
  return keys;
}

export const platformBench: BenchSuite = async () => {
  const rows: BenchRow[] = [];
  const mail = new MailCatcher();
  const smtpUrl = await mail.start();
  const temp = tempDir('gov-bench-platform');
  // Two servers side by side, the platform on (idle) in one and off in the other; their admission
  // runs alternate, so that a neighbour's load on this shared machine falls on both.
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const platformUrl = `http://127.0.0.1:${port + 1}`;
  const dataDir = path.join(temp.dir, 'with-platform');
  const offPort = port + 2;
  const offBase = `http://127.0.0.1:${offPort}`;
  const offDir = path.join(temp.dir, 'without-platform');
  const servers: Awaited<ReturnType<typeof startServer>>[] = [];
  try {
    servers.push(
      await startServer(dataDir, port, {
        GOV_PLATFORM_PORT: String(port + 1),
        GOV_PLATFORM_PUBLIC_URL: platformUrl,
        GOV_SMTP_URL: smtpUrl,
      }),
    );
    servers.push(await startServer(offDir, offPort, { GOV_PLATFORM_PORT: 'off' }));

    // 1. The clearinghouse's admissions with the platform running idle, and without it.
    const keys = await registeredKeys(base, dataDir);
    const offKeys = await registeredKeys(offBase, offDir);
    const withRuns: MeasuredRun[] = [];
    const withoutRuns: MeasuredRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      withRuns.push(await measuredRun(base, keys, Math.max(3, SECONDS)));
      withoutRuns.push(await measuredRun(offBase, offKeys, Math.max(3, SECONDS)));
    }
    const withPlatform = summarizeRuns(withRuns);
    const without = summarizeRuns(withoutRuns);

    // 2. Governed actions: four connections on each of 16 agents, whose actions queue on their
    // agent's stream; then an agent per connection, as the governance suite has a tenant per connection.
    const user = await signedInUser(platformUrl, mail);
    await liftTier(platformUrl, dataDir, user);
    const agents = await agentsWithKeys(platformUrl, user.cookie, CONNECTIONS);
    rows.push(
      ...(await actionRows(
        platformUrl,
        agents.slice(0, SHARED_AGENTS),
        `${SHARED_AGENTS} agents (${CONNECTIONS / SHARED_AGENTS} connections each)`,
        true,
      )),
    );
    rows.push(
      ...(await actionRows(platformUrl, agents, `${CONNECTIONS} agents (one per connection)`, false)),
    );

    const idle = withPlatform.median.run.requests.average;
    const alone = without.median.run.requests.average;
    const ratio = idle / alone;
    rows.push({
      suite: 'platform',
      metric: `clearinghouse admissions/s with the platform running idle, vs GOV_PLATFORM_PORT=off`,
      value: Math.round(idle),
      unit: 'admissions/s',
      target: '>= 95% of without',
      met: ratio >= 0.95 && withPlatform.failed === 0 && without.failed === 0,
      peer: { name: 'without the platform', value: Math.round(alone) },
      ratio: Math.round(ratio * 1000) / 1000,
      notes: `runs alternating; with the platform idle: ${withPlatform.notes}; without: ${without.notes}`,
    });
    return rows;
  } finally {
    for (const server of servers) await stopServer(server);
    temp.remove();
    await mail.close();
  }
};
