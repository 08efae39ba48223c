/**
 * The platform's own process of the production topology (runtime/roles/platform.ts): it serves the
 * platform alone on GOV_PLATFORM_PORT, on the stores the other roles share, and its /health asks the
 * sequencer (by its lease) and the clearinghouse (at GOV_CLEARINGHOUSE_URL) it does not run itself.
 * On one machine without Docker: the SQLite event store and read store files every role shares.
 */
import path from 'node:path';
import { SHARED_LOG_NAME } from '../domain/log';
import type { Config } from '../runtime/config/config';
import { startApiRole } from '../runtime/roles/api-role';
import { startPlatformRole } from '../runtime/roles/platform';
import { startProjectorsRole } from '../runtime/roles/projectors';
import type { RunningRole } from '../runtime/roles/role-process';
import { createLogger } from '../runtime/support/logger';
import { freePort } from './support/children';
import { GovClient, testConfig, validEvidence } from './support/governance-client';
import {
  killHard,
  lastOutput,
  type ServiceProcess,
  startServiceProcess,
  waitHealthy,
} from './support/service-processes';
import { tempDir } from './support/temp-dir';

interface Health {
  status: string;
  role: string;
  upstream: Record<string, string>;
  bindings: Record<string, boolean>;
  adapters: Record<string, string>;
  detail?: string;
}

const silent = createLogger('silent');

/** The URL a role's banner names (`listening on host:port …`). */
function commandsUrl(role: RunningRole): string {
  const match = /listening on [^:]+:(\d+)/.exec(role.banner[0] ?? '');
  if (!match) throw new Error(`no port in ${role.banner.join('\n')}`);
  return `http://127.0.0.1:${match[1]}`;
}

describe('the platform role beside the other roles', () => {
  const dir = tempDir('gov-platform-role');
  let config: Config;
  let projectors: RunningRole | null = null;
  let reads: RunningRole | null = null;
  let commands: RunningRole | null = null;
  let platform: Awaited<ReturnType<typeof startPlatformRole>> | null = null;
  let platformUrl: string;

  beforeAll(async () => {
    const dataDir = path.join(dir.dir, 'data');
    // The clearinghouse's read API first, on a port known in advance: the platform checks it there.
    const readPort = await freePort();
    config = testConfig(dataDir, {
      GOV_PORT: String(readPort),
      GOV_CLEARINGHOUSE_URL: `http://127.0.0.1:${readPort}`,
    });
    projectors = await startProjectorsRole({ ...config, port: 0 }, silent);
    reads = await startApiRole('reads', config, silent);
    commands = await startApiRole('commands', { ...config, port: 0 }, silent);
    platform = await startPlatformRole(config, silent);
    platformUrl = platform.url;
  }, 60_000);

  afterAll(async () => {
    for (const role of [platform, commands, reads, projectors]) await role?.close();
    dir.remove();
  });

  const health = async () => {
    const response = await fetch(`${platformUrl}/health`);
    return { status: response.status, body: (await response.json()) as Health };
  };

  it('given every role running, when GET /health of the platform process, then 200 with role platform and its upstreams healthy', async () => {
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      service: 'gov-agent-platform',
      role: 'platform',
      upstream: {
        event_store: 'healthy',
        read_store: 'healthy',
        log_sequencer: 'healthy',
        clearinghouse: 'healthy',
      },
      // This process opens no bus: nothing it runs publishes or consumes one yet.
      bindings: { event_store: true, read_store: true, bus: false },
      adapters: { event_store: 'sqlite', read_store: 'sqlite' },
    });
    expect(body.upstream.bus).toBeUndefined();
    const version = await fetch(`${platformUrl}/v1/version`);
    expect(version.status).toBe(200);
    expect(await version.json()).toMatchObject({ service: 'gov-agent-platform' });
    // It serves the platform alone: no clearinghouse route.
    expect((await fetch(`${platformUrl}/account`)).status).toBe(404);
  });

  it('given a leaf the projectors role sequences, when the platform process awaits it, then it has it under a signed head', async () => {
    const client = new GovClient(commandsUrl(commands!));
    const tenant = await client.register();
    const admitted = await client.admit(tenant.api_key, validEvidence('platform-follows'));
    const services = platform!.services;
    let eventId: string | undefined;
    for await (const event of services.eventStore.readStream(`tenant-${tenant.tenant_id}`))
      if (event.type === 'EvidenceAdmitted') eventId = event.id;
    const leaf = await services.awaitLeaf(eventId!, SHARED_LOG_NAME);
    expect(leaf.leafIndex).toBe(admitted.leaf_index);
    expect(leaf.head.sth.tree_size).toBeGreaterThan(admitted.leaf_index);
    expect(services.log.leafIndexByHash(admitted.leaf_hash)).toBe(admitted.leaf_index);
  });

  it('given the clearinghouse stopped, when GET /health, then 503 naming the clearinghouse', async () => {
    await reads!.close();
    reads = null;
    const { status, body } = await health();
    expect(status).toBe(503);
    expect(body.upstream.clearinghouse).toBe('unhealthy');
    expect(body.upstream.log_sequencer).toBe('healthy');
    expect(body.detail).toContain('clearinghouse is unhealthy');
  });

  it('given the sequencer process stopped (its lease given up), when GET /health, then 503 naming the log sequencer', async () => {
    await projectors!.close();
    projectors = null;
    const { status, body } = await health();
    expect(status).toBe(503);
    expect(body.upstream.log_sequencer).toBe('unhealthy');
    expect(body.detail).toContain('log_sequencer is unhealthy');
  });
});

describe("the platform role's entry point as a process", () => {
  const dir = tempDir('gov-platform-process');
  let projectors: RunningRole | null = null;
  let reads: RunningRole | null = null;
  let child: ServiceProcess | null = null;

  afterAll(async () => {
    if (child) await killHard(child);
    for (const role of [reads, projectors]) await role?.close();
    dir.remove();
  });

  it('given the roles it follows, when its entry point is started as a process, then it answers /health and /v1/version on GOV_PLATFORM_PORT', async () => {
    const dataDir = path.join(dir.dir, 'data');
    const readPort = await freePort();
    const config = testConfig(dataDir, { GOV_PORT: String(readPort) });
    projectors = await startProjectorsRole({ ...config, port: 0 }, silent);
    reads = await startApiRole('reads', config, silent);
    const port = await freePort();
    child = startServiceProcess('platform', 'runtime/roles/platform.ts', port, {
      GOV_HOST: '127.0.0.1',
      GOV_DATA_DIR: dataDir,
      GOV_PUBLIC_URL: `http://127.0.0.1:${readPort}`,
      GOV_LOG_LEVEL: 'warn',
    });
    await waitHealthy(child, 60_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${lastOutput(child!)}`);
    });
    const health = (await (await fetch(`${child.url}/health`)).json()) as Health;
    expect(health).toMatchObject({ status: 'ok', role: 'platform' });
    const version = await fetch(`${child.url}/v1/version`);
    expect(version.status).toBe(200);
    expect(await version.json()).toMatchObject({ service: 'gov-agent-platform' });
  }, 90_000);
});
