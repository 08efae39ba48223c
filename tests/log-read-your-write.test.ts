/**
 * Every tree head the service has handed a client (in a 201, as the latest STH) is served from then
 * on, at once: `GET /sth?tree_size=N`, `/proof?…&tree_size=N`, `/consistency?from=M&to=N` and a
 * witness cosignature of it. The latest head is the sequencer's, known the moment it is signed; older
 * heads are read from the tree-heads read model, which applies them a little later (the projection
 * thread is woken at most every 100 ms), and in the production topology the read API learns heads from
 * the event store a poll after the command API. Each test asks right after the admission, inside
 * those windows (before the fix, most of these asks answered 404).
 */
import path from 'node:path';
import { changeTier } from '../cli/tenant-tier';
import { checkpointNoteFromSth, type JsonSth } from '../domain/log';
import type { TreeHeadSigned } from '../event-schemas';
import {
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
} from '../merkle-core';
import { LOG_STREAM } from '../projectors/log/log-sequencer';
import type { Config } from '../runtime/config/config';
import { type Listening, listen } from '../runtime/http/listen';
import { type FollowerServices, startFollowerServices } from '../runtime/roles/follower-services';
import { startProjectorsRole } from '../runtime/roles/projectors';
import type { RunningRole } from '../runtime/roles/role-process';
import { createLogger } from '../runtime/support/logger';
import { createRequestHandler } from '../runtime/wiring/http-app';
import {
  type AdmittedEvidence,
  GovClient,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  testConfig,
  validEvidence,
} from './support/governance-client';
import { tempDir } from './support/temp-dir';

const ROUNDS = 20;

/** What a client that holds `sth` (and leaf `admitted`) asks the log for; each must answer 200. */
async function askFor(client: GovClient, sth: JsonSth, admitted: AdmittedEvidence): Promise<string[]> {
  const size = sth.tree_size;
  const asks = [
    `/gov/v1/log/sth?tree_size=${size}`,
    `/gov/v1/log/proof?leaf_hash=${admitted.leaf_hash}&tree_size=${size}`,
    `/gov/v1/log/consistency?from=1&to=${size}`,
    `/gov/v1/log/leaf?index=${admitted.leaf_index}`,
  ];
  const failed: string[] = [];
  for (const ask of asks) {
    const res = await client.get<JsonSth>(ask);
    if (res.status !== 200) failed.push(`${ask} → ${res.status} ${res.text}`);
    else if (ask.includes('/sth?'))
      expect(res.body).toMatchObject({ tree_size: size, root_hash: sth.root_hash });
  }
  return failed;
}

describe('read-your-write of tree heads', () => {
  let t: TestServer;
  let tenant: Registration;

  beforeAll(async () => {
    t = await startTestServer('gov-log-ryw');
    tenant = await t.client.register();
    // L2+: no daily allowance, and its leaves stay in the shared log these tests read.
    await setTier(t.server, tenant.tenant_id, 'L2+');
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('given an admission answered with a head and a newer head signed since, when that head is asked for at once, then the embedded server serves it', async () => {
    const failed: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const first = await t.client.admit(tenant.api_key, validEvidence(`ryw-${round}`));
      const second = await t.client.admit(tenant.api_key, validEvidence(`ryw-${round}`));
      expect(second.sth.tree_size).toBeGreaterThan(first.sth.tree_size);
      failed.push(...(await askFor(t.client, first.sth, first)));
    }
    expect(failed).toEqual([]);
  });

  it('given admissions that share heads, when every size is asked for at once, then each signed size answers its head and the others 404', async () => {
    const admitted = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.client.admit(tenant.api_key, validEvidence(`ryw-gap-${i}`))),
    );
    const latest = Math.max(...admitted.map((a) => a.sth.tree_size));
    const signed = new Map<number, string>();
    for await (const event of t.server.services.eventStore.readStream(LOG_STREAM)) {
      const head = event.data as TreeHeadSigned;
      signed.set(head.tree_size, head.root_hash);
    }
    const first = Math.min(...admitted.map((a) => a.leaf_index));
    for (let size = first; size <= latest + 1; size++) {
      const res = await t.client.get<JsonSth>(`/gov/v1/log/sth?tree_size=${size}`);
      if (signed.has(size)) {
        expect(res.status).toBe(200);
        expect(res.body.root_hash).toBe(signed.get(size));
      } else {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ error: 'NOT_FOUND' });
      }
    }
  });
});

describe('read-your-write of tree heads in the production topology', () => {
  let dir: { dir: string; remove(): void };
  let roles: RunningRole[] = [];
  const apis: { services: FollowerServices; http: Listening }[] = [];
  let commands: GovClient;
  let reads: GovClient;
  let tenant: Registration;

  /** An API process of one side, in this process (what `startApiRole` runs), on the shared stores. */
  async function apiRole(side: 'commands' | 'reads', config: Config): Promise<GovClient> {
    const role = side === 'commands' ? 'command-api' : 'read-api';
    const services = await startFollowerServices(role, config, createLogger('silent'));
    const http = await listen(createRequestHandler(services.services, side), config);
    apis.push({ services, http });
    return new GovClient(http.url);
  }

  beforeAll(async () => {
    // The roles on one machine without Docker: one SQLite event store file and one read store file,
    // a projectors role (the sequencer and the read models), a command API and a read API.
    dir = tempDir('gov-log-ryw-topology');
    const config = testConfig(path.join(dir.dir, 'data'));
    roles = [await startProjectorsRole(config, createLogger('silent'))];
    commands = await apiRole('commands', config);
    reads = await apiRole('reads', config);
    tenant = await commands.register();
    const services = apis[0]!.services.services;
    // L2+: no daily allowance, and its leaves stay in the shared log this test reads.
    const tier = await changeTier(services.eventStore, {
      keysDir: path.join(config.dataDir, 'keys'),
      tenantId: tenant.tenant_id,
      tier: 'L2+',
    });
    if (!tier.ok) throw new Error(tier.message);
    await services.awaitProjections(await services.eventStore.headPosition(), ['TenantTierChanged']);
  }, 30_000);
  afterAll(async () => {
    for (const api of apis) {
      await api.http.close();
      await api.services.close();
    }
    for (const role of roles) await role.close();
    dir?.remove();
  });

  it('given an admission answered by the command API, when the read API is asked for its head at once, then it serves it, and the one before', async () => {
    const failed: string[] = [];
    const handed: AdmittedEvidence[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const admitted = await commands.admit(tenant.api_key, validEvidence(`topology-${round}`));
      handed.push(admitted);
      failed.push(...(await askFor(reads, admitted.sth, admitted)));
      if (round > 0) failed.push(...(await askFor(reads, handed[round - 1]!.sth, handed[round - 1]!)));
    }
    expect(failed).toEqual([]);
  });

  it('given an admission answered by the command API, when the read API is asked for its report and the chain at once, then both show it', async () => {
    const failed: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const admitted = await commands.admit(tenant.api_key, validEvidence(`report-${round}`));
      const [report, chain] = await Promise.all([
        reads.get(`/governance/report/${admitted.artifact_hash}`, tenant.api_key),
        reads.get<{ length?: number; entries?: unknown[] }>('/governance/chain', tenant.api_key),
      ]);
      if (report.status !== 200) failed.push(`report of round ${round} → ${report.status} ${report.text}`);
      if (!chain.text.includes(admitted.artifact_hash))
        failed.push(`chain after round ${round} lacks ${admitted.artifact_hash}`);
    }
    expect(failed).toEqual([]);
  });
});

describe('a witness cosigning a head that is no longer the latest', () => {
  let t: TestServer;
  const witness = generateKeyPair('witness.test.example', SIGNATURE_TYPE_COSIGNATURE_V1);

  beforeAll(async () => {
    t = await startTestServer('gov-log-ryw-witness', { env: { GOV_WITNESS_KEYS: witness.verifierKey } });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('given a head handed out and a newer one signed since, when the witness posts its cosignature of it at once, then it is recorded', async () => {
    const tenant = await t.client.register();
    // L2+: no daily allowance, and its leaves stay in the shared log these tests read.
    await setTier(t.server, tenant.tenant_id, 'L2+');
    const signer = loadSignerKey(witness.signerKey);
    const failed: string[] = [];
    for (let round = 0; round < ROUNDS / 2; round++) {
      const first = await t.client.admit(tenant.api_key, validEvidence(`witness-${round}`));
      await t.client.admit(tenant.api_key, validEvidence(`witness-${round}`));
      // The witness cosigns the note the 201 spells (what it would fetch from /checkpoint at the time).
      const note = checkpointNoteFromSth(first.sth);
      const res = await t.client.post('/gov/v1/log/witness-signatures', {
        tree_size: first.sth.tree_size,
        cosignature: cosignatureLine(note, signer, Math.floor(Date.now() / 1000)),
      });
      if (res.status !== 200) failed.push(`${first.sth.tree_size} → ${res.status} ${res.text}`);
    }
    expect(failed).toEqual([]);
  });
});
