/**
 * Acceptance of the production topology: separate processes on real servers. The event store is the
 * embedded SQLite file shared by every process (it works across processes on one machine), the read
 * models are in MongoDB (FerretDB), committed events reach the dispatcher through Kafka.
 *
 * Two command-api processes, one read-api, two sequencer/projector processes (one writes, one stands
 * by) and one dispatcher run under load. Mid-load the writing sequencer is SIGKILLed (the standby
 * must take over with no leaf index assigned twice) and the Kafka broker is stopped and restarted (no
 * webhook lost, none without its event id). Then every admitted leaf has its webhook, the read API
 * serves a verifying proof of each, and `gov audit` of the event stream is clean.
 *
 * The test runs its own Kafka broker (same jars as the shared one, other ports), so restarting it
 * does not disturb suites running in parallel against the shared broker.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { MongoClient } from 'mongodb';
import { TEST_LOG_NAME } from '../domain/log';
import { projections } from '../projectors';
import { BUS_FORWARDER } from '../projectors/engine/bus-forwarder';
import { checkpointName } from '../projectors/engine/projection';
import { leaseOfLog } from '../projectors/log/leased-sequencer';
import { LOG_STREAM } from '../projectors/log/log-sequencer';
import { exited, freePort, runGov } from './support/children';
import {
  type AdmittedEvidence,
  GovClient,
  inParallel,
  LogVerifier,
  validEvidence,
} from './support/governance-client';
import { PrivateKafka } from './support/private-servers';
import { describeWithServers, KAFKA_SERVER, MONGODB_SERVER } from './support/servers';
import {
  health,
  killHard,
  lastOutput,
  metric,
  type ServiceProcess,
  startServiceProcess,
  until,
  waitHealthy,
} from './support/service-processes';
import { tempDir } from './support/temp-dir';
import { UNLIMITED_IN_SHARED_LOG_ARGS, untilUnlimitedInSharedLog } from './support/unlimited-tenant';
import { WebhookReceiver } from './support/webhook-receiver';

const ADMISSIONS = 240;
const SECRET = 'topology-test-secret-0123456789abcdef';

function startRole(name: string, entry: string, port: number, env: NodeJS.ProcessEnv): ServiceProcess {
  return startServiceProcess(name, path.join('runtime/roles', entry), port, env);
}

describeWithServers(
  [MONGODB_SERVER, KAFKA_SERVER],
  'production topology on Kafka and FerretDB',
  ([mongoUrl]) => {
    const temp = tempDir('gov-topology');
    const dataDir = path.join(temp.dir, 'data');
    const database = `topology_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const roles: ServiceProcess[] = [];
    let kafka: PrivateKafka | null = null;

    /** The last lines each role printed, for a failure's message. */
    const roleLogs = () => roles.map((role) => lastOutput(role, 3000)).join('\n');

    afterAll(async () => {
      await Promise.all(roles.map(killHard));
      kafka?.dispose();
      const client = await MongoClient.connect(mongoUrl!);
      await client.db(database).dropDatabase();
      await client.close();
      temp.remove();
    });

    it('keeps every promise while the writing sequencer is killed and the broker restarts', async () => {
      kafka = await PrivateKafka.start(path.join(temp.dir, 'servers'));
      const broker = kafka;

      const receiver = await WebhookReceiver.start();
      const readPort = await freePort();
      const env: NodeJS.ProcessEnv = {
        GOV_HOST: '127.0.0.1',
        GOV_DATA_DIR: dataDir,
        GOV_EVENT_STORE_FILE: '',
        GOV_READ_STORE_FILE: '',
        GOV_READ_STORE_URL: mongoUrl,
        GOV_READ_STORE_DATABASE: database,
        GOV_KAFKA_BROKERS: broker.brokers,
        GOV_KAFKA_TOPIC: 'gov.events',
        GOV_KAFKA_PARTITIONS: '1',
        GOV_PUBLIC_URL: `http://127.0.0.1:${readPort}`,
        GOV_WEBHOOK_ALLOW: '127.0.0.1',
        GOV_LEASE_TTL_MS: '2000',
        GOV_LOG_LEVEL: 'warn',
      };
      const start = async (name: string, entry: string, port?: number) => {
        const role = startRole(name, entry, port ?? (await freePort()), env);
        roles.push(role);
        return role;
      };
      // The sequencers first: the others follow a log that has a signed head.
      const sequencers = [
        await start('projectors-a', 'projectors.ts'),
        await start('projectors-b', 'projectors.ts'),
      ];
      await Promise.all(sequencers.map((role) => waitHealthy(role)));
      const [dispatcher, reader, commandA, commandB] = [
        await start('dispatcher', 'dispatcher.ts'),
        await start('read-api', 'read-api.ts', readPort),
        await start('command-api-a', 'command-api.ts'),
        await start('command-api-b', 'command-api.ts'),
      ];
      await Promise.all([dispatcher, reader, commandA, commandB].map((role) => waitHealthy(role)));

      // Each /health names its role; the two projectors processes contend for the same leases, and
      // once both have settled each lease has exactly one writer.
      const leasesOf = async (role: ServiceProcess) => (await health(role.url))?.leases ?? {};
      const writers = (states: Record<string, string>[], lease: string) =>
        states.filter((state) => state[lease] === 'writer').length;
      const leaseNames = [
        LOG_STREAM,
        // The test log's, created at the first start: the processes split the logs' leases.
        leaseOfLog(TEST_LOG_NAME),
        BUS_FORWARDER,
        ...projections.map((projection) => checkpointName(projection, 1)),
      ].sort();
      await until(
        async () => {
          const states = await Promise.all(sequencers.map(leasesOf));
          return leaseNames.every((lease) => writers(states, lease) === 1);
        },
        'each lease to be held by exactly one projectors process',
        15_000,
      );
      const [healthA, healthB] = await Promise.all(sequencers.map((role) => health(role.url)));
      for (const report of [healthA!, healthB!]) {
        expect(report.role).toBe('projectors');
        expect(Object.keys(report.leases).sort()).toEqual(leaseNames);
      }
      expect([healthA!.leases[LOG_STREAM], healthB!.leases[LOG_STREAM]].sort()).toEqual([
        'standby',
        'writer',
      ]);
      for (const [role, service] of [
        ['dispatcher', dispatcher],
        ['read-api', reader],
        ['command-api', commandA],
        ['command-api', commandB],
      ] as const) {
        const report = await health(service!.url);
        expect({ process: service!.name, role: report?.role, leases: report?.leases }).toEqual({
          process: service!.name,
          role,
          leases: {},
        });
      }

      const commands = [new GovClient(commandA.url), new GovClient(commandB.url)];
      const reads = new GovClient(reader.url);
      const tenant = await commands[0]!.register();
      // Its leaves stay in the shared log this test reads.
      const tier = await runGov(['tenant', 'tier', tenant.tenant_id, ...UNLIMITED_IN_SHARED_LOG_ARGS], {
        dataDir,
      });
      expect(tier.code).toBe(0);
      await untilUnlimitedInSharedLog(reads, tenant.api_key, 15_000);
      const hook = await commands[1]!.post<{ webhook_id: string }>(
        '/webhooks',
        { url: receiver.url, events: ['leaf_admitted'], secret: SECRET },
        tenant.api_key,
      );
      expect(hook.status).toBe(201);

      const admitted: AdmittedEvidence[] = [];
      const failures: string[] = [];
      let faults: Promise<void> | null = null;
      await inParallel(
        Array.from({ length: ADMISSIONS }, (_, i) => i),
        12,
        async (i) => {
          const res = await commands[i % 2]!.submitEvidence(
            tenant.api_key,
            validEvidence(`topology-${i}`),
          ).catch((error: Error) => ({
            status: 0,
            text: `${error.message} (${String(error.cause)})`,
            body: null,
          }));
          if (res.status === 201) admitted.push(res.body!);
          else failures.push(`#${i}: ${res.status} ${res.text}`);
          if (admitted.length === ADMISSIONS / 3 && !faults) faults = injectFaults();
        },
      );
      await faults;
      if (failures.length > 0) throw new Error(`failed admissions:\n${failures.join('\n')}\n${roleLogs()}`);

      async function injectFaults(): Promise<void> {
        // SIGKILL whichever sequencer writes; the standby must take over within a few lease periods.
        const writer =
          (await leasesOf(sequencers[0]!))[LOG_STREAM] === 'writer' ? sequencers[0]! : sequencers[1]!;
        const standby = writer === sequencers[0] ? sequencers[1]! : sequencers[0]!;
        expect((await leasesOf(standby))[LOG_STREAM]).toBe('standby');
        writer.child.kill('SIGKILL');
        await exited(writer.child);
        await until(
          async () => (await leasesOf(standby))[LOG_STREAM] === 'writer',
          'the standby to take over (its /health)',
          20_000,
        );
        // The metric says the same once its sequencer has rebuilt the tree and signs.
        await until(
          async () => (await metric(standby.url, 'gov_sequencer_is_writer')) === 1,
          'the standby to sequence',
          20_000,
        );
        // The broker goes away for a while under load, then comes back on its data.
        broker.stop();
        await new Promise((resolve) => setTimeout(resolve, 3000));
        broker.resume();
      }

      // No leaf index assigned twice: the 201s name ADMISSIONS distinct indexes, 0 … ADMISSIONS - 1.
      const indexes = admitted.map((a) => a.leaf_index).sort((a, b) => a - b);
      expect(indexes).toEqual(Array.from({ length: ADMISSIONS }, (_, i) => i));

      // Every admitted leaf gets its webhook, signed, carrying its event id (deduplicated by it).
      const leafHashes = new Set(admitted.map((a) => a.leaf_hash));
      const delivered = () =>
        new Set(receiver.ofType('leaf_admitted').map((d) => d.body.leaf_hash as string));
      await until(
        () => [...leafHashes].every((hash) => delivered().has(hash)),
        'a webhook for every leaf',
        90_000,
      ).catch(async (error: Error) => {
        const missing = [...leafHashes].filter((hash) => !delivered().has(hash)).length;
        const metrics = await Promise.all(
          roles.map(async (role) => {
            const text = await fetch(`${role.url}/v1/metrics`).then(
              (r) => r.text(),
              () => '',
            );
            return `--- ${role.name}\n${text
              .split('\n')
              .filter((l) => /^gov_(projector|webhook|bus|sequencer)/.test(l))
              .join('\n')}`;
          }),
        );
        throw new Error(
          `${error.message}: ${missing} of ${ADMISSIONS} leaves have none\n${metrics.join('\n')}\n${roleLogs()}`,
        );
      });
      const byEventId = new Map(receiver.ofType('leaf_admitted').map((d) => [d.body.event_id as string, d]));
      expect(byEventId.size).toBe(ADMISSIONS);
      for (const delivery of receiver.received) {
        expect(delivery.body.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
        expect(delivery.headers['x-gov-event-id']).toBe(delivery.body.event_id);
        expect(
          await octokitVerify(SECRET, delivery.raw, String(delivery.headers['x-gov-signature-256'])),
        ).toBe(true);
      }

      // The read API serves a verifying inclusion proof of every leaf under its latest signed head.
      const verifier = new LogVerifier(() => reads);
      const latest = await verifier.latest();
      expect(latest.tree_size).toBeGreaterThanOrEqual(ADMISSIONS);
      await inParallel(admitted, 16, async (a) => verifier.checkInclusion(a.leaf_index, a.leaf_hash, latest));

      // Stop everything gracefully, then an auditor recomputes every leaf, root and head: clean.
      for (const role of roles.filter((r) => r.child.exitCode === null && r.child.signalCode === null))
        role.child.kill('SIGTERM');
      await Promise.all(roles.map((role) => exited(role.child)));
      const audit = await runGov(['audit', '--json'], { dataDir });
      expect(audit.stderr).toBe('');
      expect(audit.code).toBe(0);
      expect(JSON.parse(audit.stdout)).toMatchObject({ leaves: ADMISSIONS });
      await receiver.close();
    }, 300_000);
  },
);
