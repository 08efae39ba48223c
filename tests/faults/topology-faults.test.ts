/**
 * Faults of the production topology, in sequence on one running topology under continuous admission
 * load (tests/support/topology.ts: two command APIs, a read API, two sequencer/projector processes,
 * a dispatcher, on a Kafka broker and a FerretDB of the test's own):
 *
 *   each role SIGKILLed at a random moment and started again: a command API, the read API, the
 *   projectors process whose sequencer writes (the standby takes over), the dispatcher;
 *   the Kafka broker stopped and restarted on its data;
 *   the read store (FerretDB) SIGKILLed and restarted on its data.
 *
 * Afterwards every promise holds (tests/support/fault-invariants.ts), checked through the read API.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { AdmissionLoad } from '../support/admission-load';
import { expectPromisesKept } from '../support/fault-invariants';
import { keepLogs } from '../support/kept-logs';
import { PrivateFerretDb, PrivateKafka } from '../support/private-servers';
import { describeWithServers, KAFKA_SERVER, MONGODB_SERVER } from '../support/servers';
import { tempDir } from '../support/temp-dir';
import { loadReadyTenant, WEBHOOK_SECRET } from '../support/tenant-setup';
import { type RoleName, Topology } from '../support/topology';
import { WebhookReceiver } from '../support/webhook-receiver';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The servers' variables say the machine has Kafka and FerretDB installed (.ci/run); the test starts
// private instances of them, so stopping them disturbs no other suite.
describeWithServers([MONGODB_SERVER, KAFKA_SERVER], 'fault: the production topology', () => {
  const temp = tempDir('gov-fault-topology');
  const dataDir = path.join(temp.dir, 'data');
  let kafka: PrivateKafka | null = null;
  let ferret: PrivateFerretDb | null = null;
  let topology: Topology | null = null;
  let receiver: WebhookReceiver | null = null;

  afterAll(async () => {
    await topology?.killAll();
    kafka?.dispose();
    ferret?.dispose();
    await receiver?.close();
    temp.remove();
  });

  it('given admissions under load, when each role is SIGKILLed, the broker restarts and the read store crashes, at random moments, then every promise holds', async () => {
    ferret = await PrivateFerretDb.start(path.join(temp.dir, 'servers'));
    kafka = await PrivateKafka.start(path.join(temp.dir, 'servers'));
    receiver = await WebhookReceiver.start();
    topology = await Topology.start({
      dataDir,
      mongoUrl: ferret.url,
      database: `faults_${randomUUID().replaceAll('-', '').slice(0, 12)}`,
      kafkaBrokers: kafka.brokers,
      logDir: path.join(temp.dir, 'logs'),
    });
    const running = topology;
    const reads = running.client('read-api');
    const tenant = await loadReadyTenant(
      running.client('command-api-a'),
      reads,
      path.join(dataDir, 'events.db'),
      receiver.url,
    );
    const commandApis: RoleName[] = ['command-api-a', 'command-api-b'];
    const load = new AdmissionLoad({
      targets: () =>
        commandApis.filter((role) => running.isRunning(role)).map((role) => running.client(role)),
      apiKey: tenant.api_key,
      concurrency: 8,
      // The faults, not the speed, are under test: as many admissions as the suite was sized for, which
      // the dispatcher on FerretDB delivers within the promises' wait (docs/operating-the-topology.md).
      perSecond: 25,
      log: () => (running.isRunning('read-api') ? reads : null),
    }).start();

    /** Waits a random moment: a few more acknowledgements, then up to half a second. */
    const randomMoment = async () => {
      await load.admitMore(3 + Math.floor(Math.random() * 12));
      await pause(Math.random() * 500);
    };
    try {
      for (const role of ['command-api-a', 'read-api', 'writer', 'dispatcher'] as const) {
        await randomMoment();
        const victim = role === 'writer' ? await running.writingSequencer() : role;
        if (victim === null) throw new Error('no sequencer writes');
        await running.killAndRestart(victim);
      }
      await randomMoment();
      kafka.stop();
      await pause(2000);
      kafka.resume();
      await randomMoment();
      await ferret.crashAndRestart(1000);
      // The service recovered from all of it: admissions go on.
      await load.admitMore(20, 90_000);
    } catch (error) {
      throw failure(error as Error);
    } finally {
      await load.stop();
    }

    await expectPromisesKept({
      log: reads,
      admitted: load.admitted,
      servedHeads: load.servedHeads,
      // An attempt cut off by a fault (the dispatcher killed mid-attempt, the read store down as its
      // outcome is written) is retried on the spec's schedule: 5 s, 30 s, then 2 min later. A leaf
      // whose first three attempts met faults is still delivered, at about 155 s: wait past that.
      webhooks: { tenantId: tenant.tenant_id, receiver, secret: WEBHOOK_SECRET, timeoutMs: 180_000 },
      audit: { dataDir },
    }).catch((error: Error) => {
      throw failure(error);
    });

    /** The error with the last output of every role, and where the whole logs are kept. */
    function failure(error: Error): Error {
      const kept = keepLogs(temp.dir, 'gov-fault-topology-logs');
      return new Error(`${error.message}\nwhole logs (roles, Kafka, FerretDB): ${kept}\n${running.logs()}`);
    }
  }, 480_000);
});
