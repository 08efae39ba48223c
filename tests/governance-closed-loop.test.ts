/**
 * Acceptance: the closed loop on an L2 tenant over HTTP — executions, variance records computed as
 * DOMAIN.md prescribes (the expected numbers are derived here from DOMAIN's rules, not from the product's
 * code), the triple-leaf view with verifiable proofs, and the refusals.
 */
import { type JsonSth, leafHashOfRecord } from '../domain/log';
import { toHex } from '../merkle-core';
import {
  type AdmittedEvidence,
  digest,
  type ErrorAnswer,
  expectedClassification,
  expectedDirection,
  expectedExecState,
  expectedL2,
  type Hce,
  inOmega,
  LogVerifier,
  MINUTE_MS,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';

interface ExecutionAnswer {
  exec_leaf_hash: string;
  variance_leaf_hash: string;
  sth: JsonSth;
}

interface VarianceRecord {
  type: string;
  parent_auth_leaf_hash: string;
  parent_exec_leaf_hash: string;
  subject_id: string;
  auth_state: Hce;
  exec_state: Hce;
  delta: Hce;
  l2_distance: number;
  classification: string;
  drift_direction: { H: string; C: string; E: string };
  auth_in_omega: boolean;
  exec_in_omega: boolean;
  omega_breach: boolean;
  recorded_at: string;
}

interface ProvenLeaf {
  leaf_index: number;
  leaf_hash: string;
  record: unknown;
  inclusion_proof: { tree_size: number; audit_path: string[] };
}

interface TripleLeaf {
  auth_leaf_hash: string;
  authorization: ProvenLeaf;
  execution: ProvenLeaf;
  variance: ProvenLeaf;
  sth: JsonSth;
}

const HEX64 = /^[0-9a-f]{64}$/;
const DIRECTIONS = ['improved', 'degraded', 'stable'];

describe('the closed loop over HTTP (L2 tenant)', () => {
  let t: TestServer;
  let log: LogVerifier;
  let tenant: Registration;
  let other: Registration;
  let subjects = 0;
  const client = () => t.client;
  const headPosition = () => t.server.services.eventStore.headPosition();

  const execute = (body: Record<string, unknown>, key = tenant.api_key) =>
    client().post<ExecutionAnswer & ErrorAnswer>('/governance/execution', body, key);

  /** Admits an authorization for a fresh subject; returns it with the subject's observables at admission. */
  const authorize = async (subjectId = `agent-${++subjects}`, key = tenant.api_key) => {
    const admitted = await client().admit(key, validEvidence(subjectId));
    const status = await client().get<{ observables: Hce; lifecycle: string }>(
      `/governance/status?subject_id=${subjectId}`,
      key,
    );
    expect(status.status).toBe(200);
    return { admitted, subjectId, authState: status.body.observables };
  };

  const variance = async (authLeafHash: string) => {
    const res = await client().get<VarianceRecord>(`/governance/variance/${authLeafHash}`, tenant.api_key);
    expect(res.status).toBe(200);
    return res.body;
  };

  /** The variance a DOMAIN.md reader expects between two states. */
  const expectVarianceBetween = (record: VarianceRecord, auth: Hce, exec: Hce) => {
    const l2 = expectedL2(auth, exec);
    expect(record.exec_state.H).toBeCloseTo(exec.H, 6);
    expect(record.exec_state.C).toBeCloseTo(exec.C, 6);
    expect(record.exec_state.E).toBeCloseTo(exec.E, 6);
    expect(record.l2_distance).toBeCloseTo(l2, 5);
    expect(record.classification).toBe(expectedClassification(l2));
    expect(record.omega_breach).toBe(inOmega(auth) && !inOmega(exec));
    expect(record.auth_in_omega).toBe(inOmega(auth));
    expect(record.exec_in_omega).toBe(inOmega(exec));
    expect(record.drift_direction).toEqual({
      H: expectedDirection(auth.H, exec.H, true),
      C: expectedDirection(auth.C, exec.C, true),
      E: expectedDirection(auth.E, exec.E, false),
    });
  };

  beforeAll(async () => {
    t = await startTestServer('gov-closed-loop');
    log = new LogVerifier(client);
    tenant = await client().register({ email: 'loop@example.com' });
    other = await client().register({ email: 'other@example.com' });
    await setTier(t.server, tenant.tenant_id, 'L2');
    await setTier(t.server, other.tenant_id, 'L2');
  });
  beforeEach(() => t.clock.advance(MINUTE_MS));
  afterAll(async () => {
    await t?.dispose();
  });

  describe('given an admitted authorization', () => {
    let auth: { admitted: AdmittedEvidence; subjectId: string; authState: Hce };
    let executed: ExecutionAnswer;

    beforeAll(async () => {
      auth = await authorize();
    });

    it('when an EXECUTED trace is submitted, then 201 with exec_leaf_hash and variance_leaf_hash, both leaves provably in the log', async () => {
      const res = await execute({
        parent_auth_leaf_hash: auth.admitted.leaf_hash,
        outcome: 'EXECUTED',
        executed_payload_hash: digest('payload'),
        execution_context: { region: 'eu-west-1' },
      });
      expect(res.status).toBe(201);
      executed = res.body;
      expect(executed.exec_leaf_hash).toMatch(HEX64);
      expect(executed.variance_leaf_hash).toMatch(HEX64);
      expect(
        new Set([auth.admitted.leaf_hash, executed.exec_leaf_hash, executed.variance_leaf_hash]).size,
      ).toBe(3);
      await log.checkSth(executed.sth);
      for (const leafHash of [executed.exec_leaf_hash, executed.variance_leaf_hash]) {
        const proof = await client().get<{ leaf_index: number }>(`/gov/v1/log/proof?leaf_hash=${leafHash}`);
        expect(proof.status).toBe(200);
        await log.checkInclusion(proof.body.leaf_index, leafHash, executed.sth);
        await log.checkLeafRecord(proof.body.leaf_index, leafHash);
      }
    });

    it('then its GOV_VARIANCE_RECORD_V1 carries classification, l2_distance, omega_breach and drift_direction H/C/E, and is the variance leaf', async () => {
      const record = await variance(auth.admitted.leaf_hash);
      expect(record).toMatchObject({
        type: 'GOV_VARIANCE_RECORD_V1',
        parent_auth_leaf_hash: auth.admitted.leaf_hash,
        parent_exec_leaf_hash: executed.exec_leaf_hash,
        subject_id: auth.subjectId,
        classification: expect.any(String),
        l2_distance: expect.any(Number),
        omega_breach: expect.any(Boolean),
        auth_in_omega: expect.any(Boolean),
        exec_in_omega: expect.any(Boolean),
        recorded_at: expect.stringMatching(/Z$/),
      });
      for (const member of ['H', 'C', 'E'] as const) {
        expect(DIRECTIONS).toContain(record.drift_direction[member]);
        expect(record.auth_state[member]).toBeCloseTo(auth.authState[member], 6);
        expect(record.delta[member]).toBeCloseTo(record.exec_state[member] - record.auth_state[member], 6);
      }
      expect(['NOMINAL', 'DRIFT', 'BREACH']).toContain(record.classification);
      expect(toHex(leafHashOfRecord(record))).toBe(executed.variance_leaf_hash);
    });

    it('then, EXECUTED leaving the state as authorized, the variance is NOMINAL at distance 0 and stable on every axis', async () => {
      const record = await variance(auth.admitted.leaf_hash);
      expectVarianceBetween(record, auth.authState, expectedExecState(auth.authState, 'EXECUTED'));
      expect(record).toMatchObject({
        classification: 'NOMINAL',
        l2_distance: 0,
        omega_breach: false,
        drift_direction: { H: 'stable', C: 'stable', E: 'stable' },
      });
    });

    it('then GET /governance/triple-leaf returns the three leaves, each with its index and an inclusion proof that verifies against the returned STH', async () => {
      const res = await client().get<TripleLeaf>(
        `/governance/triple-leaf/${auth.admitted.leaf_hash}`,
        tenant.api_key,
      );
      expect(res.status).toBe(200);
      const triple = res.body;
      await log.checkSth(triple.sth);
      const expected = {
        authorization: auth.admitted.leaf_hash,
        execution: executed.exec_leaf_hash,
        variance: executed.variance_leaf_hash,
      };
      for (const [name, leafHash] of Object.entries(expected)) {
        const leaf = triple[name as keyof typeof expected];
        expect(leaf.leaf_hash).toBe(leafHash);
        expect(Number.isInteger(leaf.leaf_index)).toBe(true);
        expect(leaf.inclusion_proof.tree_size).toBe(triple.sth.tree_size);
        log.checkAuditPath(leaf.leaf_index, leaf.leaf_hash, leaf.inclusion_proof.audit_path, triple.sth);
        expect(toHex(leafHashOfRecord(leaf.record))).toBe(leafHash);
        // The public log agrees on where each leaf sits.
        await log.checkLeafRecord(leaf.leaf_index, leafHash);
      }
      expect(triple.authorization.leaf_index).toBe(auth.admitted.leaf_index);
      expect(triple.execution.leaf_index).toBeLessThan(triple.variance.leaf_index);
      expect(triple.execution.record).toMatchObject({
        type: 'GOV_EXECUTION_TRACE_V1',
        parent_auth_leaf_hash: auth.admitted.leaf_hash,
        outcome: 'EXECUTED',
      });
    });

    it('when a second execution is submitted for the same authorization, then 409 and nothing is appended', async () => {
      const before = await headPosition();
      const res = await execute({ parent_auth_leaf_hash: auth.admitted.leaf_hash, outcome: 'FAILED' });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual(expect.any(String));
      expect(await headPosition()).toBe(before);
      expect((await variance(auth.admitted.leaf_hash)).classification).toBe('NOMINAL');
    });
  });

  describe('variance math as DOMAIN.md defines it', () => {
    it('given an authorization, when the execution FAILED (no exec_state), then H −0.15, C −0.20, E +0.25 gives a BREACH that leaves Ω, degraded on every axis', async () => {
      const auth = await authorize();
      const res = await execute({ parent_auth_leaf_hash: auth.admitted.leaf_hash, outcome: 'FAILED' });
      expect(res.status).toBe(201);
      const exec = expectedExecState(auth.authState, 'FAILED');
      const record = await variance(auth.admitted.leaf_hash);
      expectVarianceBetween(record, auth.authState, exec);
      // sqrt(0.15² + 0.20² + 0.25²) ≈ 0.3536 > 0.20
      expect(record.classification).toBe('BREACH');
      // From inside Ω (fresh subject near 0.5) to C ≈ 0.305 < 0.40 and E ≈ 0.745 > 0.60.
      expect(record.omega_breach).toBe(true);
      expect(record.drift_direction).toEqual({ H: 'degraded', C: 'degraded', E: 'degraded' });
    });

    it('given an authorization, when the execution DEVIATED (no exec_state), then H −0.10, C −0.15, E +0.15 is classified from its distance', async () => {
      const auth = await authorize();
      expect(
        (await execute({ parent_auth_leaf_hash: auth.admitted.leaf_hash, outcome: 'DEVIATED' })).status,
      ).toBe(201);
      expectVarianceBetween(
        await variance(auth.admitted.leaf_hash),
        auth.authState,
        expectedExecState(auth.authState, 'DEVIATED'),
      );
    });

    it('given a FAILED execution with an observed exec_state 0.10 lower in H and 0.05 higher in E, then the variance is a DRIFT', async () => {
      const auth = await authorize();
      const observed = { H: auth.authState.H - 0.1, C: auth.authState.C, E: auth.authState.E + 0.05 };
      const res = await execute({
        parent_auth_leaf_hash: auth.admitted.leaf_hash,
        outcome: 'FAILED',
        exec_state: observed,
      });
      expect(res.status).toBe(201);
      const record = await variance(auth.admitted.leaf_hash);
      expectVarianceBetween(record, auth.authState, observed);
      // sqrt(0.10² + 0.05²) ≈ 0.1118: above 0.05, at most 0.20
      expect(record.classification).toBe('DRIFT');
      expect(record.drift_direction).toEqual({ H: 'degraded', C: 'stable', E: 'degraded' });
    });

    it('given an observed exec_state that improves H by 0.03 and lowers E by 0.02, then the variance is NOMINAL with H and E improved', async () => {
      const auth = await authorize();
      const observed = {
        H: auth.authState.H + 0.03,
        C: auth.authState.C + 0.005,
        E: auth.authState.E - 0.02,
      };
      const res = await execute({
        parent_auth_leaf_hash: auth.admitted.leaf_hash,
        outcome: 'EXECUTED',
        exec_state: observed,
      });
      expect(res.status).toBe(201);
      const record = await variance(auth.admitted.leaf_hash);
      expectVarianceBetween(record, auth.authState, observed);
      expect(record.classification).toBe('NOMINAL');
      expect(record.drift_direction).toEqual({ H: 'improved', C: 'stable', E: 'improved' });
    });

    it('given a subject, when three consecutive executions are BREACHes, then its lifecycle is QUARANTINE', async () => {
      const subjectId = `breacher-${++subjects}`;
      const lifecycles: string[] = [];
      for (let i = 0; i < 3; i++) {
        const auth = await authorize(subjectId);
        const res = await execute({ parent_auth_leaf_hash: auth.admitted.leaf_hash, outcome: 'FAILED' });
        expect(res.status).toBe(201);
        expect((await variance(auth.admitted.leaf_hash)).classification).toBe('BREACH');
        const status = await client().get<{ lifecycle: string }>(
          `/governance/status?subject_id=${subjectId}`,
          tenant.api_key,
        );
        lifecycles.push(status.body.lifecycle);
      }
      expect(lifecycles).toEqual(['ACTIVE', 'ACTIVE', 'QUARANTINE']);
    });
  });

  describe('refusals', () => {
    it('given an unknown parent leaf hash, when an execution is submitted, then 422 PARENT_AUTH_NOT_FOUND and nothing appended', async () => {
      const before = await headPosition();
      const res = await execute({ parent_auth_leaf_hash: digest('no such leaf'), outcome: 'EXECUTED' });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('PARENT_AUTH_NOT_FOUND');
      expect(await headPosition()).toBe(before);
    });

    it("given another tenant's authorization leaf, when an execution is submitted, then 422 PARENT_AUTH_NOT_FOUND and nothing appended", async () => {
      const foreign = await authorize('foreign-agent', other.api_key);
      const before = await headPosition();
      const res = await execute({ parent_auth_leaf_hash: foreign.admitted.leaf_hash, outcome: 'EXECUTED' });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('PARENT_AUTH_NOT_FOUND');
      expect(await headPosition()).toBe(before);
      // The owner can still execute it: the refusal consumed nothing.
      expect(
        (
          await execute(
            { parent_auth_leaf_hash: foreign.admitted.leaf_hash, outcome: 'EXECUTED' },
            other.api_key,
          )
        ).status,
      ).toBe(201);
    });

    it('given an execution leaf (not an authorization) as the parent, when submitted, then 422 PARENT_AUTH_NOT_FOUND', async () => {
      const auth = await authorize();
      const first = await execute({ parent_auth_leaf_hash: auth.admitted.leaf_hash, outcome: 'EXECUTED' });
      expect(first.status).toBe(201);
      const res = await execute({ parent_auth_leaf_hash: first.body.exec_leaf_hash, outcome: 'EXECUTED' });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('PARENT_AUTH_NOT_FOUND');
    });

    it.each([
      [
        'a malformed parent hash',
        { parent_auth_leaf_hash: 'abc', outcome: 'EXECUTED' },
        ['/parent_auth_leaf_hash'],
      ],
      ['no parent hash', { outcome: 'EXECUTED' }, ['/parent_auth_leaf_hash']],
      ['an unknown outcome', { parent_auth_leaf_hash: digest('x'), outcome: 'MAYBE' }, ['/outcome']],
    ])(
      'given %s, when an execution is submitted, then 400 INVALID_REQUEST naming the field',
      async (_name, body, pointers) => {
        const res = await execute(body);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('INVALID_REQUEST');
        expect([...new Set(res.body.fields!.map((f) => f.pointer))].sort()).toEqual(pointers);
      },
    );

    it("given a subject_id that is not the authorization's subject, when submitted, then 400 naming /subject_id", async () => {
      const auth = await authorize();
      const res = await execute({
        parent_auth_leaf_hash: auth.admitted.leaf_hash,
        subject_id: 'someone-else',
        outcome: 'EXECUTED',
      });
      expect(res.status).toBe(400);
      expect(res.body.fields!.map((f) => f.pointer)).toEqual(['/subject_id']);
    });

    it('given an authorization without an execution, when its variance or triple-leaf is read, then 404', async () => {
      const auth = await authorize();
      for (const route of ['variance', 'triple-leaf']) {
        const res = await client().get<ErrorAnswer>(
          `/governance/${route}/${auth.admitted.leaf_hash}`,
          tenant.api_key,
        );
        expect(res.status).toBe(404);
      }
    });
  });

  describe('the log after all of the above', () => {
    it('then every tree head seen verifies and every pair of them is consistent', async () => {
      await log.latest();
      await log.checkAllConsistency();
    });
  });
});
