/**
 * Acceptance: tenants are isolated. Tenant B (same tier as A, so no 403 hides anything) can never read
 * A's report, chain, variance, triple-leaf or subject status, nor build on A's authorization leaf; and a
 * foreign resource answers exactly like a missing one.
 */
import {
  type AdmittedEvidence,
  digest,
  type ErrorAnswer,
  failingEvidence,
  MINUTE_MS,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';

const SUBJECT = 'a-private-model';

describe('tenant isolation over HTTP', () => {
  let t: TestServer;
  let a: Registration;
  let b: Registration;
  let authorization: AdmittedEvidence;
  const client = () => t.client;
  const headPosition = () => t.server.services.eventStore.headPosition();

  beforeAll(async () => {
    t = await startTestServer('gov-isolation');
    a = await client().register({ email: 'alice@example.com' });
    b = await client().register({ email: 'bob@example.com' });
    await setTier(t.server, a.tenant_id, 'L2');
    await setTier(t.server, b.tenant_id, 'L2');
    authorization = await client().admit(a.api_key, validEvidence(SUBJECT));
    const executed = await client().post(
      '/governance/execution',
      { parent_auth_leaf_hash: authorization.leaf_hash, outcome: 'DEVIATED' },
      a.api_key,
    );
    expect(executed.status).toBe(201);
    // And one gate failure on A's subject, so its status has something of A's to leak.
    await client().submitEvidence(a.api_key, failingEvidence(SUBJECT));
  });
  beforeEach(() => t.clock.advance(MINUTE_MS));
  afterAll(async () => {
    await t?.dispose();
  });

  /** The status and error code, which must not tell a foreign resource from a missing one. */
  const outcome = (res: { status: number; body: ErrorAnswer }) => ({
    status: res.status,
    error: res.body.error,
  });

  it("given A's report, when A reads it then 200, and when B reads it (view or export) then 404 like a missing report", async () => {
    const path = `/governance/report/${authorization.artifact_hash}`;
    expect((await client().get(path, a.api_key)).status).toBe(200);
    const missing = outcome(
      await client().get<ErrorAnswer>(`/governance/report/${digest('missing')}`, b.api_key),
    );
    expect(missing).toEqual({ status: 404, error: 'NOT_FOUND' });
    for (const suffix of ['', '?format=json', '?format=markdown']) {
      const res = await client().get<ErrorAnswer>(`${path}${suffix}`, b.api_key);
      expect(outcome(res)).toEqual(missing);
      expect(res.text).not.toContain(a.tenant_id);
      expect(res.text).not.toContain(SUBJECT);
    }
  });

  it("given A has proof bundles, when B lists its chain, then B's chain is empty while A's holds A's bundle", async () => {
    const mine = await client().get<{ items: { artifact_hash: string }[]; total: number }>(
      '/governance/chain',
      a.api_key,
    );
    expect(mine.body.items.map((i) => i.artifact_hash)).toEqual([authorization.artifact_hash]);
    const theirs = await client().get<{ items: unknown[]; total: number }>('/governance/chain', b.api_key);
    expect(theirs.status).toBe(200);
    expect(theirs.body.items).toEqual([]);
    expect(theirs.body.total).toBe(0);
  });

  it.each(['variance', 'triple-leaf'])(
    "given A's executed authorization, when B reads its %s, then 404 like a missing one (A gets 200)",
    async (route) => {
      expect((await client().get(`/governance/${route}/${authorization.leaf_hash}`, a.api_key)).status).toBe(
        200,
      );
      const missing = outcome(
        await client().get<ErrorAnswer>(`/governance/${route}/${digest('missing')}`, b.api_key),
      );
      expect(missing.status).toBe(404);
      const res = await client().get<ErrorAnswer>(
        `/governance/${route}/${authorization.leaf_hash}`,
        b.api_key,
      );
      expect(outcome(res)).toEqual(missing);
      expect(res.text).not.toContain(SUBJECT);
    },
  );

  it("given A's subject, when B asks for its status, then 404 (A gets 200 with its failure recorded)", async () => {
    const mine = await client().get<{ consecutive_fails: number }>(
      `/governance/status?subject_id=${SUBJECT}`,
      a.api_key,
    );
    expect(mine.status).toBe(200);
    expect(mine.body.consecutive_fails).toBe(1);
    const res = await client().get<ErrorAnswer>(`/governance/status?subject_id=${SUBJECT}`, b.api_key);
    expect(outcome(res)).toEqual({ status: 404, error: 'NOT_FOUND' });
  });

  it("given B has no subjects, when B asks for its status, then it shows none of A's", async () => {
    const res = await client().get<{ tenant_id: string; subject_id: string | null; subjects: number }>(
      '/governance/status',
      b.api_key,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tenant_id: b.tenant_id, subject_id: null, subjects: 0 });
  });

  it("given A's authorization leaf, when B uses it as the parent of an execution, then 422 PARENT_AUTH_NOT_FOUND and nothing appended", async () => {
    const fresh = await client().admit(a.api_key, validEvidence(SUBJECT));
    const before = await headPosition();
    for (const parent of [authorization.leaf_hash, fresh.leaf_hash]) {
      const res = await client().post<ErrorAnswer>(
        '/governance/execution',
        { parent_auth_leaf_hash: parent, outcome: 'EXECUTED' },
        b.api_key,
      );
      expect(outcome(res)).toEqual({ status: 422, error: 'PARENT_AUTH_NOT_FOUND' });
    }
    expect(await headPosition()).toBe(before);
    // A's own authorization is untouched by B's attempt.
    const own = await client().post(
      '/governance/execution',
      { parent_auth_leaf_hash: fresh.leaf_hash, outcome: 'EXECUTED' },
      a.api_key,
    );
    expect(own.status).toBe(201);
  });

  it('given B uses the same subject name as A, when B submits and reads its status, then B sees only its own subject', async () => {
    await client().admit(b.api_key, validEvidence(SUBJECT));
    const theirs = await client().get<{ consecutive_fails: number; subject_leaves: number }>(
      `/governance/status?subject_id=${SUBJECT}`,
      b.api_key,
    );
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ consecutive_fails: 0, subject_leaves: 1 });
    const chain = await client().get<{
      items: { artifact_hash: string; parent_bundle_hash: string | null }[];
    }>('/governance/chain', b.api_key);
    expect(chain.body.items).toHaveLength(1);
    // B's first bundle of the subject does not chain onto A's bundles.
    expect(chain.body.items[0]!.parent_bundle_hash).toBeNull();
  });
});
