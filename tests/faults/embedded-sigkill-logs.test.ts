/**
 * Fault: three logs sequenced concurrently by one process (the all-in-one server): the shared log, the
 * test log and an L4 tenant's dedicated log, each under admission load of its own tenant. The server
 * is SIGKILLed at random moments and started again on its data folder. Afterwards, in every log, each
 * acknowledged leaf is at its index under the heads it was answered with, no index was assigned twice,
 * and `gov audit` recomputes from the event stream the root each log serves.
 */
import path from 'node:path';
import type { AuditReport } from '../../audit/report';
import { dedicatedLogOf, logUrlOf, SHARED_LOG_NAME, TEST_LOG_NAME } from '../../domain/log';
import { AdmissionLoad } from '../support/admission-load';
import { freePort, runGov } from '../support/children';
import { checkLogPromises, throwIfBroken } from '../support/fault-invariants';
import { GovClient, type Registration } from '../support/governance-client';
import {
  isRunning,
  killHard,
  type ServiceProcess,
  startEmbeddedProcess,
  stopGracefully,
  until,
  waitHealthy,
} from '../support/service-processes';
import { tempDir } from '../support/temp-dir';
import { changeTiersInFile, UNLIMITED_IN_SHARED_LOG } from '../support/unlimited-tenant';

const KILLS = 3;

describe('fault: SIGKILL of the server sequencing three logs under load', () => {
  const temp = tempDir('gov-fault-logs');
  const dataDir = path.join(temp.dir, 'data');
  let server: ServiceProcess | null = null;
  const loads: AdmissionLoad[] = [];

  afterAll(async () => {
    await Promise.all(loads.map((load) => load.stop()));
    if (server) await stopGracefully(server);
    temp.remove();
  });

  it(`given admissions to the shared, test and a dedicated log in flight, when the server is SIGKILLed ${KILLS} times at random moments and restarted, then no log lost an acknowledged leaf or assigned an index twice, and each log's root is the one its events recompute`, async () => {
    const port = await freePort();
    server = startEmbeddedProcess(dataDir, port);
    await waitHealthy(server);
    const client = new GovClient(server.url);

    // One tenant per log, none meeting a limit: a live one (shared), a test-mode one (test), an L4 one.
    const live = await client.register();
    const testMode = await client.register({ mode: 'test' });
    const networked = await client.register();
    const dedicated = dedicatedLogOf(networked.tenant_id);
    await changeTiersInFile(
      path.join(dataDir, 'events.db'),
      [
        { tenantId: live.tenant_id, ...UNLIMITED_IN_SHARED_LOG },
        { tenantId: testMode.tenant_id, ...UNLIMITED_IN_SHARED_LOG },
        { tenantId: networked.tenant_id, tier: 'L4' },
      ],
      'fault-test',
    );
    const logs: { name: string; tenant: Registration; tier: string }[] = [
      { name: SHARED_LOG_NAME, tenant: live, tier: UNLIMITED_IN_SHARED_LOG.tier },
      { name: TEST_LOG_NAME, tenant: testMode, tier: UNLIMITED_IN_SHARED_LOG.tier },
      { name: dedicated, tenant: networked, tier: 'L4' },
    ];
    const basePath = (name: string) => new URL(logUrlOf('http://x', name)).pathname;
    await until(
      async () => {
        for (const { tenant, tier } of logs)
          if ((await client.get<{ tier: string }>('/account', tenant.api_key)).body.tier !== tier)
            return false;
        // The dedicated log, created by the tier change, has its first signed head.
        return (await client.get(`${basePath(dedicated)}/sth`)).status === 200;
      },
      'the tier changes to reach the server, and the dedicated log its first head',
      20_000,
    );

    for (const { name, tenant } of logs)
      loads.push(
        new AdmissionLoad({
          targets: () => (server && isRunning(server) ? [client] : []),
          apiKey: tenant.api_key,
          concurrency: 3,
          log: () => client,
          logPath: basePath(name),
        }).start(),
      );
    /** A random moment with every log under load: a few more acknowledgements in each, then a delay. */
    const randomMoment = async () => {
      await Promise.all(loads.map((load) => load.admitMore(2 + Math.floor(Math.random() * 10))));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 200));
    };
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        await randomMoment();
        await killHard(server);
        server = startEmbeddedProcess(dataDir, port);
        await waitHealthy(server);
      }
      // Every log admits again after the last restart.
      await Promise.all(loads.map((load) => load.admitMore(5)));
    } finally {
      await Promise.all(loads.map((load) => load.stop()));
    }
    // The kills hit requests in flight: some got no answer at all.
    expect(loads.reduce((sum, load) => sum + (load.statusCounts()[0] ?? 0), 0)).toBeGreaterThan(0);

    const problems: Record<string, string[]> = {};
    const latest = new Map<string, { tree_size: number; root_hash: string }>();
    for (const [i, { name }] of logs.entries()) {
      const { admitted, servedHeads } = loads[i]!;
      const report = await checkLogPromises({ log: client, base: basePath(name), admitted, servedHeads });
      for (const [promise, list] of Object.entries(report.problems)) problems[`${promise} (${name})`] = list;
      // Each 201 named the log its tenant admits to, and that log's head.
      problems[`201s name their log (${name})`] = admitted
        .filter((a) => a.log !== name || a.sth.log !== name)
        .map(
          (a) => `leaf ${a.leaf_index} (${a.leaf_hash}) was answered as in ${a.log}, head of ${a.sth.log}`,
        );
      expect(report.latest.tree_size).toBeGreaterThanOrEqual(admitted.length);
      latest.set(name, report.latest);
    }
    throwIfBroken(problems);

    // Every log's tree recomputed from the event stream: the roots the server signed, no discrepancy.
    await stopGracefully(server);
    const audit = await runGov(['audit', '--json'], { dataDir });
    expect({ code: audit.code, stderr: audit.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(audit.stdout) as AuditReport;
    expect(report.discrepancies).toEqual([]);
    expect(
      Object.fromEntries(
        report.logs.map((log) => [log.log, { tree_size: log.tree_size, root_hash: log.root_hash }]),
      ),
    ).toEqual(
      Object.fromEntries(
        logs.map(({ name }) => [
          name,
          { tree_size: latest.get(name)!.tree_size, root_hash: latest.get(name)!.root_hash },
        ]),
      ),
    );
  }, 120_000);
});
