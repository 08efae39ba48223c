/**
 * Acceptance: the tenant policy over HTTP. GET /governance/policy reads it (the default, version 1,
 * until changed), PUT /governance/policy replaces it as a new version, validated member by member;
 * a change applies to the submissions after it and never to stored bundles, reports or proofs; one
 * tenant's policy is its own; only the current key changes it; and the read and command APIs each
 * serve their half.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runAudit, sqliteAuditSource, trustFromPublishedKeys } from '../audit';
import { DEFAULT_POLICY, policyHash } from '../domain/governance/policy';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { createRequestHandler, type ServedSide } from '../runtime/wiring/http-app';
import {
  type AdmittedEvidence,
  type ErrorAnswer,
  GovClient,
  MINUTE_MS,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';

interface PolicyAnswer {
  policy: typeof DEFAULT_POLICY;
  version: number;
  policy_hash: string;
  updated_at: string | null;
}

/** Evidence whose protected metric `bias` is huge: it passes G3 only while no maximum is declared. */
function biasedEvidence(subjectId = 'model-1') {
  const body = validEvidence(subjectId);
  body.gate_results.G3.protected_metrics = { toxicity: 0.01, bias: 1e9 };
  return body;
}

const stricter = { ...structuredClone(DEFAULT_POLICY), g3_metric_maximums: { bias: 0.1 } };

describe('the tenant policy over HTTP', () => {
  let t: TestServer;
  let a: Registration;
  let b: Registration;
  const client = () => t.client;
  const head = () => t.server.services.eventStore.headPosition();
  const getPolicy = (key: string, query = '') =>
    client().get<PolicyAnswer & ErrorAnswer>(`/governance/policy${query}`, key);
  const putPolicy = (key: string, json: unknown) =>
    client().request<PolicyAnswer & ErrorAnswer>('PUT', '/governance/policy', { key, json });

  beforeAll(async () => {
    t = await startTestServer('gov-policy');
    a = await client().register({ email: 'policy-a@example.com' });
    b = await client().register({ email: 'policy-b@example.com' });
    await setTier(t.server, a.tenant_id, 'L2');
    await setTier(t.server, b.tenant_id, 'L2');
  });
  beforeEach(() => t.clock.advance(MINUTE_MS));
  afterAll(async () => {
    await t?.dispose();
  });

  it('given a new tenant, when it reads its policy, then the defaults, version 1, their hash, never updated', async () => {
    const res = await getPolicy(a.api_key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      policy: DEFAULT_POLICY,
      version: 1,
      policy_hash: policyHash(DEFAULT_POLICY),
      updated_at: null,
    });
  });

  it('given a query parameter, when the policy is read, then 400 naming it', async () => {
    const res = await getPolicy(a.api_key, '?version=1&x=2');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_REQUEST');
    expect(res.body.fields?.map((field) => field.pointer)).toEqual(['query/version', 'query/x']);
  });

  it.each([
    ['an unknown member', { ...stricter, g6_anything: true }, '/g6_anything'],
    [
      'a missing member',
      (({ replay_window_seconds: _, ...rest }) => rest)(stricter),
      '/replay_window_seconds',
    ],
    ['a confidence above 1', { ...stricter, g1_min_confidence_lower: 1.5 }, '/g1_min_confidence_lower'],
    ['a negative confidence', { ...stricter, g1_min_confidence_lower: -0.1 }, '/g1_min_confidence_lower'],
    [
      'zero bootstrap iterations',
      { ...stricter, g1_min_bootstrap_iterations: 0 },
      '/g1_min_bootstrap_iterations',
    ],
    [
      'fractional iterations',
      { ...stricter, g1_min_bootstrap_iterations: 10.5 },
      '/g1_min_bootstrap_iterations',
    ],
    [
      'a string for a boolean',
      { ...stricter, g2_require_causal_attribution: 'yes' },
      '/g2_require_causal_attribution',
    ],
    ['no evidence class', { ...stricter, g4_allowed_classes: [] }, '/g4_allowed_classes'],
    [
      'an unknown evidence class',
      { ...stricter, g4_allowed_classes: ['HOOKED', 'GUESSED'] },
      '/g4_allowed_classes/1',
    ],
    ['a class twice', { ...stricter, g4_allowed_classes: ['HOOKED', 'HOOKED'] }, '/g4_allowed_classes'],
    ['an empty operator list', { ...stricter, g5_allowed_operators: [] }, '/g5_allowed_operators'],
    ['an empty operator id', { ...stricter, g5_allowed_operators: ['op-1', ''] }, '/g5_allowed_operators/1'],
    ['a blank operator id', { ...stricter, g5_allowed_operators: ['   '] }, '/g5_allowed_operators/0'],
    [
      'a metric maximum that is not a number',
      { ...stricter, g3_metric_maximums: { bias: '0.1' } },
      '/g3_metric_maximums/bias',
    ],
    [
      'a metric name no submission can use',
      { ...stricter, g3_metric_maximums: { 'bias gap': 0.1 } },
      '/g3_metric_maximums/bias gap',
    ],
    ['a zero replay window', { ...stricter, replay_window_seconds: 0 }, '/replay_window_seconds'],
    ['a replay window over a day', { ...stricter, replay_window_seconds: 86_401 }, '/replay_window_seconds'],
  ])(
    'given %s, when the policy is put, then 400 naming the member, and nothing is appended',
    async (_name, body, pointer) => {
      const before = await head();
      const res = await putPolicy(a.api_key, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_REQUEST');
      expect(res.body.fields?.map((field) => field.pointer)).toContain(pointer);
      expect(await head()).toBe(before);
      expect((await getPolicy(a.api_key)).body.version).toBe(1);
    },
  );

  it('given a body that is not an object, when the policy is put, then 400', async () => {
    for (const body of [null, [], 'policy', 42]) expect((await putPolicy(a.api_key, body)).status).toBe(400);
  });

  it('given the default policy, when evidence declares its own maximum bias ≤ 0.1 and reports 1e9, then 422 GATE_FAILURE on G3; within it, 201', async () => {
    const body = biasedEvidence('declared');
    body.gate_results.G3 = {
      ...body.gate_results.G3,
      metric_maximums: { bias: 0.1 },
    } as typeof body.gate_results.G3;
    const res = await client().submitEvidence(b.api_key, body);
    expect([res.status, res.body.error, res.body.gates_failed]).toEqual([422, 'GATE_FAILURE', ['G3']]);
    expect(res.body.details.G3).toBe(
      'protected metric bias 1000000000 exceeds its declared maximum 0.10 (declared by the submission)',
    );
    const within = validEvidence('declared-ok');
    within.gate_results.G3 = {
      result: 'PASS',
      protected_metrics: { bias: 0.05 },
      metric_maximums: { bias: 0.1 },
    } as typeof within.gate_results.G3;
    expect((await client().submitEvidence(b.api_key, within)).status).toBe(201);
  });

  it('given a declared maximum that is not a number, when evidence is submitted, then 400 naming it', async () => {
    const body = validEvidence('declared-bad');
    body.gate_results.G3 = {
      ...body.gate_results.G3,
      metric_maximums: { bias: 'low' },
    } as typeof body.gate_results.G3;
    const res = await client().submitEvidence(b.api_key, body);
    expect(res.status).toBe(400);
    expect(res.body.fields?.map((field) => field.pointer)).toEqual(['/gate_results/G3/metric_maximums/bias']);
  });

  describe('a change applies to later submissions, never to stored bundles', () => {
    let admitted: AdmittedEvidence;
    let report: string;
    let replay: string;
    let changedAt: number;

    beforeAll(async () => {
      admitted = await client().admit(a.api_key, biasedEvidence());
      report = (await client().get(`/governance/report/${admitted.artifact_hash}`, a.api_key)).text;
      replay = (await client().get(`/governance/replay/${admitted.artifact_hash}`)).text;
    });

    it('given evidence admitted under the default with bias 1e9, when the policy declares bias ≤ 0.1, then 200 with version 2, its hash and the time, and GET reads it at once', async () => {
      changedAt = t.clock.now();
      const res = await putPolicy(a.api_key, stricter);
      expect(res.status).toBe(200);
      const expected = {
        policy: stricter,
        version: 2,
        policy_hash: policyHash(stricter),
        updated_at: new Date(changedAt).toISOString(),
      };
      expect(res.body).toEqual(expected);
      expect((await getPolicy(a.api_key)).body).toEqual(expected);
    });

    it('then the same evidence submitted again fails G3 with 422 GATE_FAILURE naming the maximum', async () => {
      const res = await client().submitEvidence(a.api_key, biasedEvidence());
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('GATE_FAILURE');
      expect(res.body.gates_failed).toEqual(['G3']);
      expect(res.body.details.G3).toMatch(/bias 1000000000 exceeds its declared maximum 0\.1/);
    });

    it('then the bundle admitted before still stands: its report, replay bytes, chain entry and proof are unchanged', async () => {
      const reportNow = await client().get(`/governance/report/${admitted.artifact_hash}`, a.api_key);
      expect(reportNow.status).toBe(200);
      expect(reportNow.text).toBe(report);
      const replayNow = await client().get(`/governance/replay/${admitted.artifact_hash}`);
      expect(replayNow.status).toBe(200);
      expect(replayNow.text).toBe(replay);
      const chain = await client().get<{ items: { artifact_hash: string }[] }>(
        '/governance/chain',
        a.api_key,
      );
      expect(chain.body.items.map((item) => item.artifact_hash)).toContain(admitted.artifact_hash);
      const proof = await client().get(`/gov/v1/log/proof?leaf_hash=${admitted.leaf_hash}`);
      expect(proof.status).toBe(200);
    });

    it('then evidence within the new maximum is admitted', async () => {
      const body = validEvidence();
      body.gate_results.G3.protected_metrics = { bias: 0.05 };
      expect((await client().submitEvidence(a.api_key, body)).status).toBe(201);
    });

    it('given the policy in force, when it is put again, then 200 with the same version and nothing is appended', async () => {
      const before = await head();
      const res = await putPolicy(a.api_key, stricter);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ version: 2, updated_at: new Date(changedAt).toISOString() });
      expect(await head()).toBe(before);
    });

    it("then another tenant's policy is still the default, and its evidence with bias 1e9 is admitted", async () => {
      expect((await getPolicy(b.api_key)).body).toMatchObject({ version: 1, policy: DEFAULT_POLICY });
      expect((await client().submitEvidence(b.api_key, biasedEvidence())).status).toBe(201);
    });

    it('then after a restart the policy in force and its version are the same', async () => {
      await t.restart();
      expect((await getPolicy(a.api_key)).body).toMatchObject({ version: 2, policy: stricter });
      expect((await client().submitEvidence(a.api_key, biasedEvidence())).status).toBe(422);
    });
  });

  describe('a key in its grace period after a rotation', () => {
    let owner: Registration;
    let current: string;

    beforeAll(async () => {
      owner = await client().register({ email: 'policy-grace@example.com' });
      const rotated = await client().post<{ api_key: string }>('/api-key/rotate', undefined, owner.api_key);
      expect(rotated.status).toBe(200);
      current = rotated.body.api_key;
    });

    it('given the rotated-out key, when it reads the policy, then 200; when it puts one, then 403 FORBIDDEN and nothing is appended', async () => {
      expect((await getPolicy(owner.api_key)).status).toBe(200);
      const before = await head();
      const res = await putPolicy(owner.api_key, stricter);
      expect([res.status, res.body.error]).toEqual([403, 'FORBIDDEN']);
      expect(await head()).toBe(before);
      expect((await getPolicy(current)).body.version).toBe(1);
    });

    it('then the current key changes it', async () => {
      expect((await putPolicy(current, stricter)).body.version).toBe(2);
    });
  });

  it('given every admission above, when the store is audited, then nothing is found: each was checked under the policy in force when it was admitted', async () => {
    const { config } = t.server.services;
    const report = await runAudit(sqliteAuditSource(config.eventStoreFile), {
      trust: trustFromPublishedKeys(readPublishedKeys(path.join(config.dataDir, 'keys'))),
      workers: 0,
    });
    expect(report.leaves).toBe(4);
    expect(report.discrepancies).toEqual([]);
    // A's first admission was decided under the default, its second under the stricter policy: each
    // admission names the policy it was decided under (the default goes unsaid).
    const named: unknown[] = [];
    for await (const event of t.server.services.eventStore.readStream(`tenant-${a.tenant_id}`))
      if (event.type === 'EvidenceAdmitted') named.push((event.data as { policy?: unknown }).policy ?? null);
    expect(named).toEqual([null, stricter]);
  });

  describe('split roles', () => {
    const servers: http.Server[] = [];
    const serve = async (side: ServedSide): Promise<GovClient> => {
      const server = http.createServer(createRequestHandler(t.server.services, side));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return new GovClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    };
    afterAll(async () => {
      for (const server of servers) await new Promise((resolve) => server.close(resolve));
    });

    it('given the read API and the command API, then GET is served by the read API only and PUT by the command API only', async () => {
      const reads = await serve('reads');
      const commands = await serve('commands');
      expect((await reads.get('/governance/policy', b.api_key)).status).toBe(200);
      expect((await commands.get('/governance/policy', b.api_key)).status).toBe(404);
      const put = (on: GovClient) =>
        on.request('PUT', '/governance/policy', { key: b.api_key, json: DEFAULT_POLICY });
      expect((await put(reads)).status).toBe(404);
      expect((await put(commands)).status).toBe(200);
    });
  });
});
