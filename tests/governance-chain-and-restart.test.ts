/**
 * Acceptance: GET /governance/chain pagination and filters, GET /governance/status and the subject
 * lifecycle, and a restart mid-run: everything a client saw before is the same after, and the log
 * continues the same tree.
 */
import type { JsonSth } from '../domain/log';
import { fromHex, verifyConsistency } from '../merkle-core';
import {
  type AdmittedEvidence,
  type ErrorAnswer,
  failingEvidence,
  HOUR_MS,
  LogVerifier,
  MINUTE_MS,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';

interface ChainItem {
  artifact_hash: string;
  leaf_index: number;
  leaf_hash: string;
  subject_id: string;
  admitted_at: string;
  compliance_url: string;
  replay_url: string;
  log_url: string;
  parent_bundle_hash: string | null;
  lifecycle: string;
}

interface ChainPage {
  page: number;
  limit: number;
  total: number;
  has_more: boolean;
  items: ChainItem[];
}

interface Status {
  tenant_id: string;
  subject_id: string | null;
  lifecycle: string | null;
  observables: { H: number; C: number; E: number } | null;
  consecutive_fails: number;
  trial_leaves_remaining: number | null;
}

/** A URL without its origin: the port changes across restarts, the path must not. */
const pathOf = (url: string) => new URL(url).pathname;

describe('chain, status and restart over HTTP', () => {
  let t: TestServer;
  let log: LogVerifier;
  const client = () => t.client;

  beforeAll(async () => {
    t = await startTestServer('gov-chain');
    log = new LogVerifier(client);
  });
  beforeEach(() => t.clock.advance(MINUTE_MS));
  afterAll(async () => {
    await t?.dispose();
  });

  const chain = (key: string, query = '') =>
    client().get<ChainPage & ErrorAnswer>(`/governance/chain${query}`, key);
  const status = async (key: string, subjectId?: string) => {
    const res = await client().get<Status>(
      `/governance/status${subjectId ? `?subject_id=${subjectId}` : ''}`,
      key,
    );
    expect(res.status).toBe(200);
    return res.body;
  };

  describe('GET /governance/chain pagination', () => {
    let tenant: Registration;
    /** The 60 admissions, in admission (leaf index) order. */
    let admitted: AdmittedEvidence[];
    /** When each group of 20 was admitted. */
    const groupTimes: number[] = [];

    beforeAll(async () => {
      tenant = await client().register();
      await setTier(t.server, tenant.tenant_id, 'L2');
      admitted = [];
      for (let group = 0; group < 3; group++) {
        t.clock.advance(HOUR_MS);
        groupTimes.push(t.clock.now());
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            client().admit(tenant.api_key, validEvidence(`model-${i % 3}`)),
          ),
        );
        admitted.push(...answers.sort((x, y) => x.leaf_index - y.leaf_index));
      }
      for (const a of admitted.filter((_, i) => i % 10 === 0)) await log.checkAdmission(a);
    });

    it('given 60 bundles, when the chain is read without parameters, then page 1 of limit 50 with the first 50 in admission order', async () => {
      const res = await chain(tenant.api_key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1, limit: 50, total: 60, has_more: true });
      expect(res.body.items.map((i) => i.leaf_hash)).toEqual(admitted.slice(0, 50).map((a) => a.leaf_hash));
      const first = res.body.items[0]!;
      expect(first).toMatchObject({
        artifact_hash: admitted[0]!.artifact_hash,
        leaf_index: admitted[0]!.leaf_index,
        subject_id: 'model-0',
        admitted_at: new Date(groupTimes[0]!).toISOString(),
        parent_bundle_hash: null,
        log: 'shared',
      });
      expect(pathOf(first.compliance_url)).toBe(`/governance/report/${first.artifact_hash}`);
      expect(pathOf(first.log_url)).toBe('/gov/v1/log');
    });

    it('when page 2 is read, then it continues with the last 10: no overlap, no gap, and has_more false', async () => {
      const one = await chain(tenant.api_key, '?page=1');
      const two = await chain(tenant.api_key, '?page=2');
      expect(two.status).toBe(200);
      expect(two.body).toMatchObject({ page: 2, limit: 50, has_more: false });
      expect(two.body.items).toHaveLength(10);
      const all = [...one.body.items, ...two.body.items].map((i) => i.leaf_index);
      expect(all).toEqual(admitted.map((a) => a.leaf_index));
      expect((await chain(tenant.api_key, '?page=3')).body.items).toEqual([]);
    });

    it('when read in pages of 7, then the pages concatenate to the whole chain in the same stable order, every time', async () => {
      const collected: string[] = [];
      for (let page = 1; page <= 9; page++) {
        const res = await chain(tenant.api_key, `?page=${page}&limit=7`);
        expect(res.status).toBe(200);
        expect(res.body.has_more).toBe(page < 9);
        collected.push(...res.body.items.map((i) => i.artifact_hash));
      }
      expect(collected).toEqual(admitted.map((a) => a.artifact_hash));
      const again = await chain(tenant.api_key, '?limit=200');
      expect(again.body.items.map((i) => i.artifact_hash)).toEqual(collected);
    });

    it('when limit is 200 (the maximum), then every bundle is on one page', async () => {
      const res = await chain(tenant.api_key, '?limit=200');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ limit: 200, has_more: false });
      expect(res.body.items).toHaveLength(60);
    });

    it('when filtered by from and to, then only bundles admitted in [from, to) are listed, in order, and total counts them', async () => {
      const [t1, t2, t3] = groupTimes as [number, number, number];
      const iso = (ms: number) => new Date(ms).toISOString();
      const hashes = (page: ChainPage) => page.items.map((i) => i.leaf_hash);
      const from2 = await chain(tenant.api_key, `?from=${iso(t2)}&limit=200`);
      expect(from2.status).toBe(200);
      expect(hashes(from2.body)).toEqual(admitted.slice(20).map((a) => a.leaf_hash));
      expect(from2.body.total).toBe(40);
      const to2 = await chain(tenant.api_key, `?to=${iso(t2)}&limit=200`);
      expect(hashes(to2.body)).toEqual(admitted.slice(0, 20).map((a) => a.leaf_hash));
      expect(to2.body.total).toBe(20);
      const middle = await chain(tenant.api_key, `?from=${iso(t2)}&to=${iso(t3)}`);
      expect(hashes(middle.body)).toEqual(admitted.slice(20, 40).map((a) => a.leaf_hash));
      expect(middle.body.total).toBe(20);
      const before = await chain(tenant.api_key, `?to=${iso(t1)}`);
      expect(before.body.items).toEqual([]);
      expect(before.body.total).toBe(0);
      // Filters and pages combine; total counts the whole range, not the page.
      const paged = await chain(tenant.api_key, `?from=${iso(t2)}&page=2&limit=15`);
      expect(hashes(paged.body)).toEqual(admitted.slice(35, 50).map((a) => a.leaf_hash));
      expect(paged.body).toMatchObject({ total: 40, has_more: true });
    });

    it.each([
      ['limit above 200', '?limit=201', ['query/limit']],
      ['limit 0', '?limit=0', ['query/limit']],
      ['a non-numeric limit', '?limit=ten', ['query/limit']],
      ['page 0', '?page=0', ['query/page']],
      ['a negative page', '?page=-1', ['query/page']],
      ['a from that is not a time', '?from=yesterday', ['query/from']],
      ['a to before from', '?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z', ['query/to']],
      ['an unknown parameter', '?sort=desc', ['query/sort']],
      ['two bad parameters', '?limit=1000&page=x', ['query/limit', 'query/page']],
    ])(
      'given %s, when the chain is read, then 400 INVALID_REQUEST naming each parameter',
      async (_name, query, pointers) => {
        const res = await chain(tenant.api_key, query);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('INVALID_REQUEST');
        expect(res.body.fields!.map((f) => f.pointer).sort()).toEqual([...pointers].sort());
      },
    );
  });

  describe('GET /governance/status and the lifecycle', () => {
    it('given a new trial tenant, when it reads its status, then no subject yet and 5 trial leaves remaining', async () => {
      const tenant = await client().register();
      expect(await status(tenant.api_key)).toMatchObject({
        tenant_id: tenant.tenant_id,
        subject_id: null,
        consecutive_fails: 0,
        trial_leaves_remaining: 5,
      });
    });

    it('given a subject, when it passes and then fails 3 times in a row, then ACTIVE → QUARANTINE with consecutive_fails counting, and a pass resets the count', async () => {
      const tenant = await client().register();
      await client().admit(tenant.api_key, validEvidence('lifecycle-subject'));
      const active = await status(tenant.api_key, 'lifecycle-subject');
      expect(active).toMatchObject({
        subject_id: 'lifecycle-subject',
        lifecycle: 'ACTIVE',
        consecutive_fails: 0,
        trial_leaves_remaining: 4,
      });
      for (const member of ['H', 'C', 'E'] as const) {
        expect(active.observables![member]).toBeGreaterThanOrEqual(0);
        expect(active.observables![member]).toBeLessThanOrEqual(1);
      }

      const seen: [string | null, number][] = [];
      for (let i = 0; i < 3; i++) {
        const res = await client().submitEvidence(tenant.api_key, failingEvidence('lifecycle-subject'));
        expect(res.status).toBe(422);
        const after = await status(tenant.api_key, 'lifecycle-subject');
        seen.push([after.lifecycle, after.consecutive_fails]);
      }
      expect(seen).toEqual([
        ['ACTIVE', 1],
        ['ACTIVE', 2],
        ['QUARANTINE', 3],
      ]);
      const quarantined = await status(tenant.api_key, 'lifecycle-subject');
      expect(quarantined.trial_leaves_remaining).toBe(4);

      await client().admit(tenant.api_key, validEvidence('lifecycle-subject'));
      const reset = await status(tenant.api_key, 'lifecycle-subject');
      expect(reset.consecutive_fails).toBe(0);
      expect(reset.trial_leaves_remaining).toBe(3);
    });

    it('given an unknown subject, when its status is read, then 404', async () => {
      const tenant = await client().register();
      const res = await client().get<ErrorAnswer>('/governance/status?subject_id=nobody', tenant.api_key);
      expect(res.status).toBe(404);
    });
  });

  describe('a restart mid-run', () => {
    let tenant: Registration;
    let before: {
      chain: ChainItem[];
      status: Status;
      account: Record<string, unknown>;
      sth: JsonSth;
      leaves: string[];
    };

    const leafHashes = async (size: number) => {
      const hashes: string[] = [];
      for (let index = 0; index < size; index++) {
        const res = await client().get<{ leaf_hash: string }>(`/gov/v1/log/leaf?index=${index}`);
        expect(res.status).toBe(200);
        hashes.push(res.body.leaf_hash);
      }
      return hashes;
    };
    const snapshot = async () => {
      const sth = await log.latest();
      const page = await chain(tenant.api_key, '?limit=200');
      expect(page.status).toBe(200);
      const account = await client().get('/account', tenant.api_key);
      expect(account.status).toBe(200);
      return {
        chain: page.body.items.map((i) => ({
          ...i,
          compliance_url: pathOf(i.compliance_url),
          replay_url: pathOf(i.replay_url),
          // The port changes with the restart; the log does not.
          log_url: pathOf(i.log_url),
        })),
        status: await status(tenant.api_key, 'restart-subject'),
        account: { ...account.body, log_url: pathOf(account.body.log_url as string) },
        sth,
        leaves: await leafHashes(sth.tree_size),
      };
    };

    beforeAll(async () => {
      tenant = await client().register();
      for (let i = 0; i < 2; i++)
        await log.checkAdmission(await client().admit(tenant.api_key, validEvidence('restart-subject')));
      expect((await client().submitEvidence(tenant.api_key, failingEvidence('restart-subject'))).status).toBe(
        422,
      );
      before = await snapshot();
      expect(before.status.trial_leaves_remaining).toBe(3);
      await t.restart();
    });

    it('given a server restarted on the same data dir, then chain, status, account and every leaf are unchanged', async () => {
      const after = await snapshot();
      expect(after.chain).toEqual(before.chain);
      expect(after.status).toEqual(before.status);
      expect(after.account).toEqual(before.account);
      expect(after.leaves).toEqual(before.leaves);
    });

    it('then the tree is the same: same root at the same size, under the same log key', async () => {
      const after = await log.latest();
      expect(after.tree_size).toBe(before.sth.tree_size);
      expect(after.root_hash).toBe(before.sth.root_hash);
      expect(after.log_id).toBe(before.sth.log_id);
    });

    it('then the next admission continues the same tree: its leaf_index is the previous size, and the old STH is consistent with the new', async () => {
      const next = await client().admit(tenant.api_key, validEvidence('restart-subject'));
      expect(next.leaf_index).toBe(before.sth.tree_size);
      await log.checkAdmission(next);
      const res = await client().get<{ proof: string[] }>(
        `/gov/v1/log/consistency?from=${before.sth.tree_size}&to=${next.sth.tree_size}`,
      );
      expect(res.status).toBe(200);
      const verdict = verifyConsistency(
        before.sth.tree_size,
        next.sth.tree_size,
        res.body.proof.map(fromHex),
        fromHex(before.sth.root_hash),
        fromHex(next.sth.root_hash),
      );
      expect(verdict).toEqual({ ok: true });
      // The subject's chain continues from its last bundle before the restart.
      const page = await chain(tenant.api_key);
      expect(page.body.items.at(-1)).toMatchObject({
        leaf_hash: next.leaf_hash,
        parent_bundle_hash: before.chain.at(-1)!.artifact_hash,
      });
    });

    it('then the trial limits carried over: 2 more leaves, then 409 TRIAL_EXHAUSTED', async () => {
      expect((await status(tenant.api_key)).trial_leaves_remaining).toBe(2);
      await client().admit(tenant.api_key, validEvidence('restart-subject'));
      await client().admit(tenant.api_key, validEvidence('restart-subject'));
      const res = await client().submitEvidence(tenant.api_key, validEvidence('restart-subject'));
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('TRIAL_EXHAUSTED');
    });

    it('then every tree head seen, before and after the restart, verifies and is consistent with every other', async () => {
      await log.latest();
      await log.checkAllConsistency();
    });
  });
});
