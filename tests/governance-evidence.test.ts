/**
 * Acceptance: registration and POST /governance/evidence over HTTP against the started embedded server,
 * every admission checked with merkle-core's verifiers, and the error rows of spec section 7.
 */
import {
  type AdmittedEvidence,
  type ErrorAnswer,
  type EvidenceBody,
  failingEvidence,
  type GateFailure,
  HOUR_MS,
  LogVerifier,
  MINUTE_MS,
  type Registration,
  setTier,
  startOfUtcDay,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';

const MAX_BODY_BYTES = 64 * 1024;

describe('governance evidence over HTTP', () => {
  let t: TestServer;
  let log: LogVerifier;
  const client = () => t.client;
  const headPosition = () => t.server.services.eventStore.headPosition();
  /** Every 201 of this suite goes through here: its proof, leaf, STH and replay bundle are verified. */
  const admit = async (key: string, body?: EvidenceBody) => {
    const admitted = await client().admit(key, body);
    await log.checkAdmission(admitted);
    return admitted;
  };
  const status = async (key: string, subjectId?: string) => {
    const res = await client().get<{
      lifecycle: string | null;
      consecutive_fails: number;
      trial_leaves_remaining: number | null;
    }>(`/governance/status${subjectId ? `?subject_id=${encodeURIComponent(subjectId)}` : ''}`, key);
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    t = await startTestServer('gov-evidence', { env: { GOV_MAX_BODY_BYTES: String(MAX_BODY_BYTES) } });
    log = new LogVerifier(client);
  });
  // Each test starts in a fresh one-minute rate-limit window (the clock is frozen otherwise).
  beforeEach(() => t.clock.advance(MINUTE_MS));
  afterAll(async () => {
    await t?.dispose();
  });

  describe('POST /auto-register', () => {
    it('given an email and mode test, when registering, then 201 with a gov_test_ key and tenant credentials', async () => {
      const res = await client().post<Registration>('/auto-register', {
        email: 'tess@example.com',
        mode: 'test',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        api_key: expect.stringMatching(/^gov_test_/),
        tenant_id: expect.any(String),
        node_id: expect.any(String),
        // A test-mode tenant's leaves go to the test log.
        log_url: `${t.server.url}/gov/v1/logs/test`,
        dashboard_url: expect.stringMatching(/^http/),
      });
      const account = await client().get('/account', res.body.api_key);
      expect(account.status).toBe(200);
      expect(account.body).toMatchObject({ tenant_id: res.body.tenant_id, tier: 'L1' });
    });

    it('given only an email, when registering, then the key is a gov_live_ key', async () => {
      const res = await client().post<Registration>('/auto-register', { email: 'liv@example.com' });
      expect(res.status).toBe(201);
      expect(res.body.api_key).toMatch(/^gov_live_/);
    });

    it.each([
      ['no email', { mode: 'test' }, ['/email']],
      ['a malformed email', { email: 'not-an-email' }, ['/email']],
      ['an unknown mode', { email: 'a@example.com', mode: 'prod' }, ['/mode']],
    ])(
      'given %s, when registering, then 400 INVALID_REQUEST naming the field',
      async (_name, body, pointers) => {
        const before = await headPosition();
        const res = await client().post<ErrorAnswer>('/auto-register', body);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('INVALID_REQUEST');
        expect(res.body.fields!.map((f) => f.pointer).sort()).toEqual(pointers);
        expect(await headPosition()).toBe(before);
      },
    );
  });

  describe('a passing submission', () => {
    let tenant: Registration;
    let admitted: AdmittedEvidence;

    beforeAll(async () => {
      tenant = await client().register();
    });

    it('given evidence passing every gate, when submitted, then 201 with leaf, artifact, URLs and a signed tree head', async () => {
      const res = await client().submitEvidence(tenant.api_key, validEvidence('credit-model'));
      expect(res.status).toBe(201);
      admitted = res.body;
      expect(admitted.compliance_url).toBe(`${t.server.url}/governance/report/${admitted.artifact_hash}`);
      expect(admitted.replay_url).toMatch(/^http/);
      expect(admitted.sth.tree_size).toBeGreaterThan(admitted.leaf_index);
    });

    it('then its inclusion proof verifies against its STH, the leaf record rehashes to leaf_hash, and the replay bundle hashes to artifact_hash', async () => {
      await log.checkAdmission(admitted);
    });

    it('then the latest STH and the checkpoint note verify with the published log key', async () => {
      const latest = await log.latest();
      expect(latest.tree_size).toBeGreaterThanOrEqual(admitted.sth.tree_size);
      expect(latest.log_id).toBe(admitted.sth.log_id);
    });

    it('then its compliance report is viewable on L1 without an export format', async () => {
      const res = await client().get(new URL(admitted.compliance_url).pathname, tenant.api_key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        type: 'GOV_COMPLIANCE_REPORT_V1',
        artifact_hash: admitted.artifact_hash,
      });
    });

    it('then a second submission for the same subject is the next leaf of a growing tree', async () => {
      const next = await admit(tenant.api_key, validEvidence('credit-model'));
      expect(next.leaf_index).toBeGreaterThan(admitted.leaf_index);
      expect(next.leaf_hash).not.toBe(admitted.leaf_hash);
    });
  });

  describe('400 INVALID_REQUEST: a field missing, malformed or of the wrong type', () => {
    let tenant: Registration;
    beforeAll(async () => {
      tenant = await client().register();
    });

    const cases: [string, (body: EvidenceBody) => void, string[]][] = [
      ['subject_id missing', (b) => delete (b as Partial<EvidenceBody>).subject_id, ['/subject_id']],
      [
        'gate G3 missing',
        (b) => delete (b.gate_results as Partial<EvidenceBody['gate_results']>).G3,
        ['/gate_results/G3'],
      ],
      [
        'an evidence hash missing',
        (b) => delete (b.evidence as Partial<EvidenceBody['evidence']>).evaluation_trace_hash,
        ['/evidence/evaluation_trace_hash'],
      ],
      [
        'an evidence hash that is not 64 hex',
        (b) => {
          b.evidence.dataset_provenance_hash = 'abc123';
        },
        ['/evidence/dataset_provenance_hash'],
      ],
      [
        'state_before_hash in upper case',
        (b) => {
          b.state_before_hash = b.state_before_hash.toUpperCase();
        },
        ['/state_before_hash'],
      ],
      [
        'bootstrap_iterations as a string',
        (b) => {
          b.gate_results.G1.bootstrap_iterations = '2000';
        },
        ['/gate_results/G1/bootstrap_iterations'],
      ],
      [
        'causal_attribution as a string',
        (b) => {
          b.gate_results.G2.causal_attribution = 'yes';
        },
        ['/gate_results/G2/causal_attribution'],
      ],
      [
        'subject_id as a number and replay_seed missing',
        (b) => {
          (b as unknown as { subject_id: number }).subject_id = 42;
          delete (b as Partial<EvidenceBody>).replay_seed;
        },
        ['/replay_seed', '/subject_id'],
      ],
    ];

    it.each(cases)(
      'given %s, when submitted, then 400 with a fields pointer for each and nothing appended',
      async (_name, mutate, pointers) => {
        const body = validEvidence();
        mutate(body);
        const before = await headPosition();
        const res = await client().submitEvidence(tenant.api_key, body);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('INVALID_REQUEST');
        expect([...new Set(res.body.fields!.map((f) => f.pointer))].sort()).toEqual([...pointers].sort());
        for (const field of res.body.fields!) expect(field.reason).toEqual(expect.any(String));
        expect(await headPosition()).toBe(before);
      },
    );

    it('given a body that is not JSON, when submitted, then 400 INVALID_REQUEST', async () => {
      const res = await client().request<ErrorAnswer>('POST', '/governance/evidence', {
        key: tenant.api_key,
        raw: '{"subject_id": ',
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_REQUEST');
    });
  });

  describe('401 UNAUTHORIZED', () => {
    let tenant: Registration;
    beforeAll(async () => {
      tenant = await client().register();
    });

    /** The same key id with one character of the secret changed. */
    const wrongSecret = (key: string) => {
      const secret = key.slice(-43);
      return `${key.slice(0, -43)}${secret[0] === 'A' ? 'B' : 'A'}${secret.slice(1)}`;
    };

    it.each([
      ['no Authorization header', () => ({})],
      ['a malformed key', () => ({ authorization: 'Bearer not-a-key' })],
      ['another scheme', () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
      ['an unknown key', () => ({ authorization: `Bearer gov_live_0123456789abcdef_${'A'.repeat(43)}` })],
      [
        'the wrong secret for a known key id',
        () => ({ authorization: `Bearer ${wrongSecret(tenant.api_key)}` }),
      ],
    ])('given %s, when submitting evidence, then 401 and nothing appended', async (_name, headers) => {
      const before = await headPosition();
      const res = await client().request<ErrorAnswer>('POST', '/governance/evidence', {
        json: validEvidence(),
        headers: headers() as Record<string, string>,
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('UNAUTHORIZED');
      expect(await headPosition()).toBe(before);
    });

    it('the wrong-secret key has the real key id but differs from the real key', () => {
      const forged = wrongSecret(tenant.api_key);
      expect(forged).not.toBe(tenant.api_key);
      expect(forged.slice(0, -43)).toBe(tenant.api_key.slice(0, -43));
      expect(forged).toHaveLength(tenant.api_key.length);
    });
  });

  describe('422: gates reject the evidence', () => {
    it('given a G1 lower bound below 0.80, when submitted, then 422 GATE_FAILURE, ACTION_BLOCKED, nothing admitted, and the failure is recorded', async () => {
      const tenant = await client().register();
      await admit(tenant.api_key, validEvidence('scorer'));
      const sizeBefore = (await log.latest()).tree_size;
      const before = await status(tenant.api_key, 'scorer');
      expect(before.consecutive_fails).toBe(0);

      const res = await client().submitEvidence(tenant.api_key, failingEvidence('scorer'));
      expect(res.status).toBe(422);
      const failure: GateFailure = res.body;
      expect(failure).toMatchObject({
        error: 'GATE_FAILURE',
        gates_failed: ['G1'],
        details: { G1: expect.stringMatching(/confidence_interval_lower/) },
        action: 'ACTION_BLOCKED',
      });
      expect(res.body).not.toHaveProperty('leaf_hash');

      const after = await status(tenant.api_key, 'scorer');
      expect(after.consecutive_fails).toBe(1);
      expect(after.trial_leaves_remaining).toBe(before.trial_leaves_remaining);
      await client().submitEvidence(tenant.api_key, failingEvidence('scorer'));
      expect((await status(tenant.api_key, 'scorer')).consecutive_fails).toBe(2);
      expect((await log.latest()).tree_size).toBe(sizeBefore);
    });

    it('given several failing gates, when submitted, then gates_failed lists each (in order) with a reason per gate', async () => {
      const tenant = await client().register();
      const body = validEvidence();
      body.gate_results.G2.result = 'FAIL';
      body.gate_results.G3.protected_metrics = { toxicity: 0.3 };
      body.gate_results.G5.operator_id = '';
      const res = await client().submitEvidence(tenant.api_key, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('GATE_FAILURE');
      expect(res.body.gates_failed).toEqual(['G2', 'G5']);
      expect(Object.keys(res.body.details).sort()).toEqual(['G2', 'G5']);
      for (const reason of Object.values(res.body.details)) expect(reason.length).toBeGreaterThan(5);
    });

    it('given a G4 evidence_class outside HOOKED/ATTESTED/INSTRUMENTED, when submitted, then 422 EVIDENCE_CLASS_INVALID', async () => {
      const tenant = await client().register();
      const body = validEvidence();
      body.gate_results.G4.evidence_class = 'VIBES';
      const res = await client().submitEvidence(tenant.api_key, body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        error: 'EVIDENCE_CLASS_INVALID',
        gates_failed: ['G4'],
        details: { G4: expect.stringMatching(/VIBES/) },
        action: 'ACTION_BLOCKED',
      });
    });

    it.each(['ATTESTED', 'INSTRUMENTED'])(
      'given evidence_class %s, when submitted, then it is admitted',
      async (evidenceClass) => {
        const tenant = await client().register();
        const body = validEvidence();
        body.gate_results.G4.evidence_class = evidenceClass;
        await admit(tenant.api_key, body);
      },
    );
  });

  describe('409 TRIAL_EXHAUSTED', () => {
    it('given a trial tenant with 5 admitted leaves, when a sixth is submitted, then 409 and the trial shows 0 remaining', async () => {
      const tenant = await client().register();
      for (let i = 0; i < 5; i++) {
        await admit(tenant.api_key, validEvidence(`subject-${i % 2}`));
        expect((await status(tenant.api_key)).trial_leaves_remaining).toBe(4 - i);
      }
      const sizeBefore = (await log.latest()).tree_size;
      const res = await client().submitEvidence(tenant.api_key, validEvidence('subject-0'));
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('TRIAL_EXHAUSTED');
      expect((await log.latest()).tree_size).toBe(sizeBefore);
    });

    it('given a trial tenant, when 71h59m have passed then it may still admit, and at 72h exactly it gets 409', async () => {
      const registeredAt = t.clock.now();
      const tenant = await client().register();
      t.clock.set(registeredAt + 71 * HOUR_MS + 59 * MINUTE_MS);
      await admit(tenant.api_key);
      expect((await status(tenant.api_key)).trial_leaves_remaining).toBe(4);

      t.clock.set(registeredAt + 72 * HOUR_MS);
      const res = await client().submitEvidence(tenant.api_key);
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('TRIAL_EXHAUSTED');
      expect((await status(tenant.api_key)).trial_leaves_remaining).toBe(0);
    });
  });

  describe('429 RATE_LIMITED', () => {
    it('given an L1 tenant, when it sends 61 requests within one minute, then the 61st is 429 with Retry-After, and the next minute it may go on', async () => {
      const tenant = await client().register();
      const first = await Promise.all(
        Array.from({ length: 60 }, () => client().get('/account', tenant.api_key)),
      );
      expect(first.map((r) => r.status)).toEqual(Array(60).fill(200));
      const over = await client().submitEvidence(tenant.api_key);
      expect(over.status).toBe(429);
      expect(over.body.error).toBe('RATE_LIMITED');
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);

      t.clock.advance(retryAfter * 1000);
      expect((await client().get('/account', tenant.api_key)).status).toBe(200);
    });

    it('given an L1 tenant given its own allowance of 65 requests a minute, then /account says 65 and the 66th is 429; a tier change without one gives it its tier’s again', async () => {
      const tenant = await client().register();
      await setTier(t.server, tenant.tenant_id, 'L1', undefined, '65');
      const account = await client().get<{ tier: string; limits: { requests_per_minute: number } }>(
        '/account',
        tenant.api_key,
      );
      expect([account.body.tier, account.body.limits.requests_per_minute]).toEqual(['L1', 65]);
      const more = await Promise.all(
        Array.from({ length: 64 }, () => client().get('/account', tenant.api_key)),
      );
      expect(more.map((r) => r.status)).toEqual(Array(64).fill(200));
      const over = await client().get<ErrorAnswer>('/account', tenant.api_key);
      expect(over.status).toBe(429);
      expect(over.body.message).toContain('more than 65 requests in a minute');

      t.clock.advance(60_000);
      await setTier(t.server, tenant.tenant_id, 'L1');
      const back = await client().get<{ limits: { requests_per_minute: number } }>(
        '/account',
        tenant.api_key,
      );
      expect(back.body.limits.requests_per_minute).toBe(60);
    });

    it('given an L2 tenant with a daily allowance of 2 leaves, when a third is submitted the same UTC day, then 429 with Retry-After until midnight UTC, and the next day it is admitted', async () => {
      const tenant = await client().register();
      await setTier(t.server, tenant.tenant_id, 'L2', '2');
      await admit(tenant.api_key);
      await admit(tenant.api_key);
      const res = await client().submitEvidence(tenant.api_key);
      expect(res.status).toBe(429);
      expect(res.body.error).toBe('RATE_LIMITED');
      const nextMidnight = startOfUtcDay(t.clock.now()) + 24 * HOUR_MS;
      expect(Number(res.headers.get('retry-after'))).toBe(Math.ceil((nextMidnight - t.clock.now()) / 1000));

      t.clock.set(nextMidnight);
      await admit(tenant.api_key);
    });
  });

  describe('403 TIER_INSUFFICIENT on L1', () => {
    let tenant: Registration;
    let admitted: AdmittedEvidence;
    beforeAll(async () => {
      tenant = await client().register();
      admitted = await admit(tenant.api_key);
    });

    it.each(['json', 'markdown'])(
      'given an L1 tenant, when it exports its report as %s, then 403',
      async (format) => {
        const res = await client().get<ErrorAnswer>(
          `/governance/report/${admitted.artifact_hash}?format=${format}`,
          tenant.api_key,
        );
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('TIER_INSUFFICIENT');
        expect(res.headers.get('content-disposition')).toBeNull();
      },
    );

    it('given an L1 tenant, when it calls every closed-loop endpoint, then each answers 403 and nothing is appended', async () => {
      const before = await headPosition();
      const answers = await Promise.all([
        client().post<ErrorAnswer>(
          '/governance/execution',
          { parent_auth_leaf_hash: admitted.leaf_hash, outcome: 'EXECUTED' },
          tenant.api_key,
        ),
        client().get<ErrorAnswer>(`/governance/variance/${admitted.leaf_hash}`, tenant.api_key),
        client().get<ErrorAnswer>(`/governance/triple-leaf/${admitted.leaf_hash}`, tenant.api_key),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('TIER_INSUFFICIENT');
      }
      expect(await headPosition()).toBe(before);
    });
  });

  describe('413: an oversize body', () => {
    it('given a body over the configured limit, when submitted, then 413 PAYLOAD_TOO_LARGE and nothing appended', async () => {
      const tenant = await client().register();
      const body = validEvidence();
      body.gate_results.G3.protected_metrics = Object.fromEntries(
        Array.from({ length: 4000 }, (_, i) => [`metric_${i}`, 0.001 * i]),
      );
      const raw = JSON.stringify(body);
      expect(raw.length).toBeGreaterThan(MAX_BODY_BYTES);
      const before = await headPosition();
      const res = await client().request<ErrorAnswer>('POST', '/governance/evidence', {
        key: tenant.api_key,
        raw,
      });
      expect(res.status).toBe(413);
      expect(res.body.error).toBe('PAYLOAD_TOO_LARGE');
      expect(await headPosition()).toBe(before);
    });
  });

  describe('concurrent admissions', () => {
    it('given an L2 tenant, when 40 submissions arrive at once, then all are admitted with distinct leaf indices and valid proofs', async () => {
      const tenant = await client().register();
      await setTier(t.server, tenant.tenant_id, 'L2');
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          client().submitEvidence(tenant.api_key, validEvidence(`fleet-${i % 4}`)),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(40).fill(201));
      const indices = answers.map((r) => r.body.leaf_index);
      expect(new Set(indices).size).toBe(40);
      expect(new Set(answers.map((r) => r.body.leaf_hash)).size).toBe(40);
      for (const res of answers) await log.checkAdmission(res.body);

      // Each subject's chain links every bundle to the previous one of that subject.
      const chain = await client().get<{
        items: { subject_id: string; artifact_hash: string; parent_bundle_hash: string | null }[];
      }>('/governance/chain?limit=200', tenant.api_key);
      expect(chain.body.items).toHaveLength(40);
      const last = new Map<string, string | null>();
      for (const item of chain.body.items) {
        expect(item.parent_bundle_hash).toBe(last.get(item.subject_id) ?? null);
        last.set(item.subject_id, item.artifact_hash);
      }
    });

    it('given a fresh trial tenant, when 10 submissions arrive at once, then exactly 5 are admitted and 5 get 409 TRIAL_EXHAUSTED', async () => {
      const tenant = await client().register();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => client().submitEvidence(tenant.api_key, validEvidence('burst'))),
      );
      const admitted = answers.filter((r) => r.status === 201);
      const refused = answers.filter((r) => r.status === 409);
      expect(admitted).toHaveLength(5);
      expect(refused).toHaveLength(5);
      for (const res of refused) expect(res.body.error).toBe('TRIAL_EXHAUSTED');
      expect(new Set(admitted.map((r) => r.body.leaf_index)).size).toBe(5);
      for (const res of admitted) await log.checkAdmission(res.body);
      expect((await status(tenant.api_key)).trial_leaves_remaining).toBe(0);
    });
  });

  describe('the log after all of the above', () => {
    it('then every tree head seen verifies with the published key, and every pair of them is consistent', async () => {
      await log.latest();
      expect(log.heads.size).toBeGreaterThan(5);
      const pairs = await log.checkAllConsistency();
      expect(pairs).toBeGreaterThan(10);
    });
  });
});
