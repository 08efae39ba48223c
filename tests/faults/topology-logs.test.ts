/**
 * Many logs on the production topology (tests/support/topology.ts, on the machine's Kafka and FerretDB):
 * two sequencer/projector processes split four logs (shared, test, two dedicated) between them by
 * lease, each writing at least one. Under admission load to every log one of them is SIGKILLed: the
 * other takes its logs over and every log admits again; started again, it is handed a log back. In
 * every log each acknowledged leaf is at its index under the heads it was answered with and no index
 * was assigned twice. Whichever process writes the shared log anchors the others in it: each other
 * log's last head is anchored by a shared-log leaf whose proof verifies into a shared STH.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { dedicatedLogOf, type JsonSth, logUrlOf, SHARED_LOG_NAME, TEST_LOG_NAME } from '../../domain/log';
import { fromHex, verifyInclusion } from '../../merkle-core';
import { leaseOfLog } from '../../projectors/log/leased-sequencer';
import { AdmissionLoad } from '../support/admission-load';
import { checkLogPromises, throwIfBroken } from '../support/fault-invariants';
import { keepLogs } from '../support/kept-logs';
import { describeWithServers, KAFKA_SERVER, MONGODB_SERVER } from '../support/servers';
import { health, until } from '../support/service-processes';
import { tempDir } from '../support/temp-dir';
import { Topology } from '../support/topology';
import { changeTiersInFile, UNLIMITED_IN_SHARED_LOG } from '../support/unlimited-tenant';

const SEQUENCERS = ['projectors-a', 'projectors-b'] as const;

interface AnchorAnswer {
  anchor: {
    leaf_index: number;
    leaf_hash: string;
    record: { record_type: string; log: string; tree_size: number };
  };
  shared: { sth: JsonSth; inclusion_proof: { audit_path: string[] } };
}

describeWithServers(
  [MONGODB_SERVER, KAFKA_SERVER],
  'fault: two sequencer processes and many logs',
  ([mongoUrl, kafkaBrokers]) => {
    const temp = tempDir('gov-fault-topology-logs');
    const dataDir = path.join(temp.dir, 'data');
    const database = `logs_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    let topology: Topology | null = null;
    const loads: AdmissionLoad[] = [];

    afterAll(async () => {
      await Promise.all(loads.map((load) => load.stop()));
      await topology?.killAll();
      const client = await MongoClient.connect(mongoUrl!);
      await client.db(database).dropDatabase();
      await client.close();
      temp.remove();
    });

    it('given four logs, then two projectors processes split their leases, and when one is SIGKILLed under load the other takes its logs over, every log admits again and the restarted process gets a log back, no acknowledged leaf lost and no index assigned twice, and every other log anchored in the shared log at its last head', async () => {
      topology = await Topology.start({
        dataDir,
        mongoUrl: mongoUrl!,
        database,
        kafkaBrokers: kafkaBrokers!,
        logDir: path.join(temp.dir, 'logs'),
        // No webhooks here: no dispatcher.
        roles: ['read-api', 'command-api-a'],
        // Anchors soon after each head, so that the last heads' anchors come within the test's time.
        env: { GOV_ANCHOR_INTERVAL_MS: '500' },
      });
      const running = topology;
      const commands = running.client('command-api-a');
      const reads = running.client('read-api');
      try {
        // One tenant per log, none meeting a limit: a live one (shared), a test-mode one, two L4 ones.
        const live = await commands.register();
        const testMode = await commands.register({ mode: 'test' });
        const networked = [await commands.register(), await commands.register()];
        await changeTiersInFile(
          path.join(dataDir, 'events.db'),
          [
            { tenantId: live.tenant_id, ...UNLIMITED_IN_SHARED_LOG },
            { tenantId: testMode.tenant_id, ...UNLIMITED_IN_SHARED_LOG },
            ...networked.map((tenant) => ({ tenantId: tenant.tenant_id, tier: 'L4' })),
          ],
          'fault-test',
        );
        const logs = [
          { name: SHARED_LOG_NAME, tenant: live, tier: UNLIMITED_IN_SHARED_LOG.tier as string },
          { name: TEST_LOG_NAME, tenant: testMode, tier: UNLIMITED_IN_SHARED_LOG.tier as string },
          ...networked.map((tenant) => ({ name: dedicatedLogOf(tenant.tenant_id), tenant, tier: 'L4' })),
        ];
        const basePath = (name: string) => new URL(logUrlOf('http://x', name)).pathname;
        await until(
          async () => {
            for (const { name, tenant, tier } of logs) {
              if ((await reads.get<{ tier: string }>('/account', tenant.api_key)).body.tier !== tier)
                return false;
              if ((await reads.get(`${basePath(name)}/sth`)).status !== 200) return false;
            }
            return true;
          },
          'the tier changes to reach the read API, and every log a signed head',
          30_000,
        );

        // Each log's lease has one writer, and each process writes at least one log.
        const logLeases = logs.map(({ name }) => leaseOfLog(name));
        const writtenBy = async () => {
          const states = await Promise.all(
            SEQUENCERS.map(async (role) =>
              running.isRunning(role) ? ((await health(running.client(role).url))?.leases ?? {}) : {},
            ),
          );
          return SEQUENCERS.map((_, i) => logLeases.filter((lease) => states[i]![lease] === 'writer'));
        };
        const untilSplit = (when: string) =>
          until(
            async () => {
              const written = await writtenBy();
              return (
                written.every((leases) => leases.length > 0) &&
                written.flat().sort().join() === [...logLeases].sort().join()
              );
            },
            `each log lease to have one writer, each projectors process writing at least one, ${when}`,
            20_000,
          ).catch(async (error: Error) => {
            throw new Error(
              `${error.message}; the log leases each writes: ${JSON.stringify(await writtenBy())}`,
            );
          });
        await untilSplit('from the start');

        for (const { name, tenant } of logs)
          loads.push(
            new AdmissionLoad({
              targets: () => [commands],
              apiKey: tenant.api_key,
              concurrency: 2,
              log: () => reads,
              logPath: basePath(name),
            }).start(),
          );
        await Promise.all(loads.map((load) => load.admitMore(2 + Math.floor(Math.random() * 8))));

        // Either process: each holds logs the other must take over.
        const victim = Math.random() < 0.5 ? 0 : 1;
        const survivor = 1 - victim;
        await running.kill([SEQUENCERS[victim]]);
        try {
          await until(
            async () => (await writtenBy())[survivor]!.length === logLeases.length,
            `${SEQUENCERS[survivor]} to write every log after ${SEQUENCERS[victim]} was killed`,
            20_000,
          );
          // Every log admits again, the killed process's logs too.
          await Promise.all(loads.map((load) => load.admitMore(3, 30_000)));
          // Started again, the killed process gets a log handed over, and every log still admits.
          await running.startRoles([SEQUENCERS[victim]]);
          await untilSplit(`once ${SEQUENCERS[victim]} was started again`);
          await Promise.all(loads.map((load) => load.admitMore(3, 30_000)));
        } finally {
          await Promise.all(loads.map((load) => load.stop()));
        }

        const problems: Record<string, string[]> = {};
        for (const [i, { name }] of logs.entries()) {
          const { admitted, servedHeads } = loads[i]!;
          const report = await checkLogPromises({ log: reads, base: basePath(name), admitted, servedHeads });
          for (const [promise, list] of Object.entries(report.problems))
            problems[`${promise} (${name})`] = list;
          problems[`201s name their log (${name})`] = admitted
            .filter((a) => a.log !== name)
            .map((a) => `leaf ${a.leaf_index} (${a.leaf_hash}) was answered as in ${a.log}`);
        }
        throwIfBroken(problems);

        // Each other log's last head is anchored in the shared log, by whichever process writes it.
        for (const { name } of logs.filter((log) => log.name !== SHARED_LOG_NAME)) {
          const size = (await reads.get<JsonSth>(`${basePath(name)}/sth`)).body.tree_size;
          let anchored: AnchorAnswer | null = null;
          await until(
            async () => {
              const answer = await reads.get<AnchorAnswer>(`${basePath(name)}/anchor?tree_size=${size}`);
              if (answer.status === 200) anchored = answer.body;
              return anchored !== null;
            },
            `log ${name}'s head of size ${size} to be anchored in the shared log`,
            15_000,
          );
          const { anchor, shared } = anchored!;
          expect(anchor.record).toMatchObject({ record_type: 'GOV_LOG_ANCHOR_V1', log: name });
          expect(anchor.record.tree_size).toBeGreaterThanOrEqual(size);
          expect(
            verifyInclusion(
              anchor.leaf_index,
              shared.sth.tree_size,
              fromHex(anchor.leaf_hash),
              shared.inclusion_proof.audit_path.map(fromHex),
              fromHex(shared.sth.root_hash),
            ),
          ).toEqual({ ok: true });
        }
      } catch (error) {
        const kept = keepLogs(temp.dir, 'gov-fault-topology-logs');
        throw new Error(`${(error as Error).message}\nwhole logs: ${kept}\n${running.logs()}`);
      }
    }, 180_000);
  },
);
