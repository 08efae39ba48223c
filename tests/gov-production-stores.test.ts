/**
 * Acceptance: the `gov` tool on the production topology's stores. The topology (tests/support/topology.ts)
 * runs its roles on the shared SQLite event store, read models in MongoDB (FerretDB) and the Kafka bus;
 * `gov` runs beside them with the same environment, as an operator's shell on that machine would.
 *
 * A tier change made with `gov tenant tier` reaches the running read API; `gov projections` lists the
 * generations and checkpoints MongoDB holds; `gov rebuild` is refused in place while the projectors
 * hold the generation's lease, rebuilds beside them (they follow the switch and keep projecting into the
 * new generation), and rebuilds in place once they are stopped, after which they take over again.
 * No embedded read store file is made on the way.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { MongoReadStore } from '../adapters/mongodb/read-store';
import { projections } from '../projectors';
import { checkpointName, physicalCollection } from '../projectors/engine/projection';
import { tenantsProjection } from '../projectors/governance/tenants';
import { runGov } from './support/children';
import type { GovClient, Registration } from './support/governance-client';
import { describeWithServers, KAFKA_SERVER, MONGODB_SERVER } from './support/servers';
import { until } from './support/service-processes';
import { tempDir } from './support/temp-dir';
import { Topology } from './support/topology';

interface ProjectionRow {
  name: string;
  serving: { generation: number; code_version: number } | null;
  checkpoint: number | null;
  building: { generation: number; checkpoint: number } | null;
}

describeWithServers(
  [MONGODB_SERVER, KAFKA_SERVER],
  'the gov tool on the production topology (read store in FerretDB)',
  ([mongoUrl, kafkaBrokers]) => {
    const temp = tempDir('gov-production-stores');
    const dataDir = path.join(temp.dir, 'data');
    const database = `gov_cli_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    let topology: Topology | null = null;
    let readStore: MongoReadStore;
    let reads: GovClient;
    let tenant: Registration;

    const gov = (...args: string[]) => runGov(args, { env: topology!.env });
    const tierOnReadApi = async () =>
      (await reads.get<{ tier: string }>('/account', tenant.api_key)).body.tier;
    /** Live documents of the tenants projection's tenant collection in one generation, in MongoDB. */
    const tenantsIn = (generation: number) =>
      readStore.count(physicalCollection(tenantsProjection.collections[0]!, generation));
    /** Files of an embedded read store in the data folder: there must be none, the read models are MongoDB's. */
    const embeddedReadStore = () => fs.readdirSync(dataDir).filter((file) => file.startsWith('read-models'));
    const projectionRows = async (): Promise<ProjectionRow[]> => {
      const run = await gov('projections', '--json');
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      return JSON.parse(run.stdout) as ProjectionRow[];
    };

    beforeAll(async () => {
      topology = await Topology.start({
        dataDir,
        mongoUrl: mongoUrl!,
        database,
        kafkaBrokers: kafkaBrokers!,
      });
      readStore = await MongoReadStore.connect(mongoUrl!, { database });
      reads = topology.client('read-api');
      tenant = await topology.client('command-api-a').register();
      // An admission, so that every projection (tenants, governance, tree heads) has events to apply.
      await topology.client('command-api-a').admit(tenant.api_key);
      await until(
        async () => (await tierOnReadApi()) === 'L1',
        'the registration to reach the read API',
        20_000,
      );
    }, 120_000);

    afterAll(async () => {
      await topology?.killAll();
      await readStore?.close();
      const client = await MongoClient.connect(mongoUrl!);
      await client.db(database).dropDatabase();
      await client.close();
      temp.remove();
    });

    const withLogs = async (work: () => Promise<void>) => {
      try {
        await work();
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${topology?.logs() ?? ''}`);
      }
    };

    it('when gov tenant tier runs, then the read API of the running topology answers with the new tier', () =>
      withLogs(async () => {
        const run = await gov('tenant', 'tier', tenant.tenant_id, 'L2', '--daily-leaf-limit', '5000');
        expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
        expect(run.stdout).toContain(`${tenant.tenant_id}: tier L1 -> L2, 5000 leaves/day`);
        await until(async () => (await tierOnReadApi()) === 'L2', 'the read API to answer with L2', 20_000);
        expect(embeddedReadStore()).toEqual([]);
      }));

    it('when gov projections runs, then it lists the generations and checkpoints MongoDB holds', () =>
      withLogs(async () => {
        const before = await Promise.all(
          projections.map((p) => readStore.getCheckpoint(checkpointName(p, 1))),
        );
        const rows = await projectionRows();
        const after = await Promise.all(
          projections.map((p) => readStore.getCheckpoint(checkpointName(p, 1))),
        );
        expect(rows.map((r) => r.name)).toEqual(projections.map((p) => p.name));
        rows.forEach((row, i) => {
          expect(row.serving?.generation).toBe(1);
          expect(row.building).toBeNull();
          // The agent platform's projections: no event of theirs is in this store, so no checkpoint.
          if (['agents', 'platform-accounts', 'platform-vault', 'platform-quota'].includes(row.name)) {
            expect(row.checkpoint).toBeNull();
            return;
          }
          // The projectors keep running: what gov read lies between two reads of MongoDB around it.
          expect(row.checkpoint).toBeGreaterThan(0);
          expect(row.checkpoint).toBeGreaterThanOrEqual(before[i]!);
          expect(row.checkpoint).toBeLessThanOrEqual(after[i]!);
        });
        const text = await gov('projections');
        expect(text.stdout.split('\n')[0]).toBe(`read store ${mongoUrl} (database ${database})`);
      }));

    it('when gov rebuild runs in place while the projectors hold the lease, then it is refused and nothing is dropped', () =>
      withLogs(async () => {
        const documents = await tenantsIn(1);
        expect(documents).toBeGreaterThan(0);
        const run = await gov('rebuild', 'tenants');
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          /generation 1 of tenants is being written by a running projectors process \(it holds the lease tenants@g1\): stop every projectors process first.*--beside/,
        );
        expect(await tenantsIn(1)).toBe(documents);
        expect(await tierOnReadApi()).toBe('L2');
      }));

    it('when gov rebuild --beside runs, then MongoDB generation 2 is built and served, and the running projectors follow it', () =>
      withLogs(async () => {
        const run = await gov('rebuild', 'tenants', '--beside', '--json');
        expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
        const [result] = JSON.parse(run.stdout) as Array<{
          projection: string;
          generation: number;
          events: number;
        }>;
        expect(result).toMatchObject({ projection: 'tenants', generation: 2 });
        expect(result!.events).toBeGreaterThan(0);

        const tenants = (await projectionRows()).find((r) => r.name === 'tenants')!;
        expect(tenants.serving?.generation).toBe(2);
        expect(tenants.checkpoint).toBeGreaterThan(0);
        expect(await tierOnReadApi()).toBe('L2');
        // The projectors moved to generation 2 and project into it: a new change is served from it.
        const changed = await gov('tenant', 'tier', tenant.tenant_id, 'L4');
        expect(changed.code).toBe(0);
        await until(async () => (await tierOnReadApi()) === 'L4', 'the read API to answer with L4', 20_000);
        await until(async () => (await tenantsIn(1)) === 0, 'generation 1 to be dropped', 20_000);
      }));

    it('when the projectors are stopped, then gov rebuild in place rebuilds the serving MongoDB generation, and projectors started again take over from its checkpoint', () =>
      withLogs(async () => {
        await topology!.kill(['projectors-a', 'projectors-b']);
        const documents = await tenantsIn(2);
        // Refused until the lease a killed projector held lapses, at most its time to live later.
        let run = await gov('rebuild', 'tenants', '--json');
        await until(
          async () => {
            if (run.code !== 1 || !/is being written by a running projectors process/.test(run.stderr))
              return true;
            run = await gov('rebuild', 'tenants', '--json');
            return false;
          },
          "the killed projectors' lease to lapse",
          20_000,
        );
        expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
        expect(JSON.parse(run.stdout)).toMatchObject([{ projection: 'tenants', generation: 2 }]);
        expect(await tenantsIn(2)).toBe(documents);
        expect(await tierOnReadApi()).toBe('L4');

        await topology!.startRoles(['projectors-a', 'projectors-b']);
        const changed = await gov('tenant', 'tier', tenant.tenant_id, 'L2+');
        expect(changed.code).toBe(0);
        await until(async () => (await tierOnReadApi()) === 'L2+', 'the read API to answer with L2+', 20_000);
        expect(embeddedReadStore()).toEqual([]);
      }));
  },
);
