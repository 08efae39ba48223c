/**
 * Acceptance: a crash loses no webhook. The real server runs as its own process; 1,000 deliveries
 * become due while the receiver is down; the server is SIGKILLed; after a restart with the receiver
 * up, every event arrives at least once, and a receiver deduplicating by event id sees each exactly once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { exited, freePort, REPO_ROOT } from './support/children';
import { failingEvidence, GovClient, inParallel } from './support/governance-client';
import { tempDir } from './support/temp-dir';
import { makeUnlimitedInSharedLogFile, untilUnlimitedInSharedLog } from './support/unlimited-tenant';
import { WebhookReceiver } from './support/webhook-receiver';

const EVENTS = 1000;
const SECRET = 'crash-test-secret-0123456789abcdef';

function startServer(dataDir: string, port: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'runtime/main.ts')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      GOV_PORT: String(port),
      GOV_PLATFORM_PORT: '0',
      GOV_HOST: '127.0.0.1',
      GOV_DATA_DIR: dataDir,
      GOV_LOG_LEVEL: 'warn',
      GOV_WEBHOOK_ALLOW: '127.0.0.1',
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
}

async function untilHealthy(base: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server did not start in 30 s');
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/v1/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
    total += Number(match[1]);
  return total;
}

describe('webhook deliveries survive a SIGKILL', () => {
  const temp = tempDir('gov-webhook-crash');
  const dataDir = path.join(temp.dir, 'data');
  let server: ChildProcess | null = null;
  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGKILL');
      await exited(server);
    }
    temp.remove();
  });

  it(`given ${EVENTS} due deliveries and a receiver that is down, when the server is SIGKILLed and restarted, then each event is delivered (exactly once after dedup)`, async () => {
    const port = await freePort();
    const receiverPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startServer(dataDir, port);
    await untilHealthy(base);
    const client = new GovClient(base);
    const tenant = await client.register();
    await makeUnlimitedInSharedLogFile(path.join(dataDir, 'events.db'), tenant.tenant_id, 'crash-test');
    await untilUnlimitedInSharedLog(client, tenant.api_key);
    // Nobody listens on receiverPort yet: every first attempt is refused and scheduled again.
    const hook = await client.post<{ webhook_id: string }>(
      '/webhooks',
      { url: `http://127.0.0.1:${receiverPort}/hook`, events: ['gate_fail'], secret: SECRET },
      tenant.api_key,
    );
    expect(hook.status).toBe(201);
    // 4 gate failures per subject stay below LOCKBOX (10), so every submission is a gate_fail event.
    const statuses: number[] = [];
    await inParallel(
      Array.from({ length: EVENTS }, (_, i) => i),
      16,
      async (i) => {
        statuses.push(
          (await client.submitEvidence(tenant.api_key, failingEvidence(`crash-${i % 250}`))).status,
        );
      },
    );
    expect(statuses.filter((status) => status === 422)).toHaveLength(EVENTS);
    // Wait until the deliveries are owed and being retried, then kill mid-flight.
    for (let i = 0; (await metric(base, 'gov_webhook_attempts_total')) < EVENTS / 2; i++) {
      if (i > 600) throw new Error('the dispatcher made no attempts in 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    server.kill('SIGKILL');
    expect((await exited(server)).signal).toBe('SIGKILL');

    const receiver = await WebhookReceiver.start('/hook', receiverPort);
    try {
      server = startServer(dataDir, port);
      await untilHealthy(base);
      const unique = () => new Set(receiver.received.map((d) => d.body.event_id)).size;
      await receiver.waitFor(() => unique() >= EVENTS, 60_000);
      // A moment more: nothing beyond the owed events may arrive.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(unique()).toBe(EVENTS);
      const subjects = new Map<string, number>();
      for (const delivery of new Map(receiver.received.map((d) => [d.body.event_id, d])).values()) {
        expect(delivery.body.type).toBe('gate_fail');
        expect(delivery.body.tenant_id).toBe(tenant.tenant_id);
        const subject = delivery.body.subject_id as string;
        subjects.set(subject, (subjects.get(subject) ?? 0) + 1);
      }
      expect(subjects.size).toBe(250);
      expect([...subjects.values()].every((count) => count === 4)).toBe(true);
      const sample = receiver.received.slice(0, 50);
      for (const delivery of sample)
        expect(
          await octokitVerify(SECRET, delivery.raw, delivery.headers['x-gov-signature-256'] as string),
        ).toBe(true);
    } finally {
      server.kill('SIGTERM');
      await exited(server);
      await receiver.close();
    }
  }, 180_000);
});
