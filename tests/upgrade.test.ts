/**
 * Upgrade: a data folder written by the build of commit ce27a38, the last before the reshaping of
 * issue 30 (tests/fixtures/README.md says how it was made), opens with today's build and serves what
 * the old build served, byte for byte where the old answers were recorded; the old API keys still
 * authenticate as the rotation's grace period says; today's audit finds the store clean; and new
 * admissions extend the same log, provably consistent with the old tree head.
 *
 * No answer field is left out of the comparisons; the members added since (which log a head, proof or
 * leaf is in: asRecorded) are checked to name the shared log. The only answers computed from the time
 * of the request (GET /account and /governance/status: the trial window, leaves_today) are compared on
 * a server whose clock is pinned to one minute after the recording, the same UTC day.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import canonicalize from 'canonicalize';
import {
  type AuditReport,
  parsePublishedKeys,
  runAudit,
  sqliteAuditSource,
  trustFromPublishedKeys,
} from '../audit';
import {
  fromHex,
  loadVerifierKey,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
} from '../merkle-core';
import { createLogger } from '../runtime/support/logger';
import { type RunningServer, startEmbedded } from '../runtime/wiring/embedded';
import { freePort } from './support/children';
import {
  GovClient,
  HOUR_MS,
  MINUTE_MS,
  TestClock,
  testConfig,
  validEvidence,
} from './support/governance-client';
import { tempDir } from './support/temp-dir';

type Json = Record<string, unknown>;

interface Sth {
  tree_size: number;
  root_hash: string;
  timestamp: string;
  log_signature: string;
}

interface RecordedReads {
  account: Json;
  policy: Json;
  status: Json;
  chain: { items: { artifact_hash: string; subject_id: string }[] } & Json;
  reports: Record<string, Json>;
}

/** tests/fixtures/data-ce27a38.answers.json: what the old build answered, recorded by the script beside it. */
interface Answers {
  public_url: string;
  recorded_at: string;
  tenants: {
    a: {
      registration: { tenant_id: string };
      rotation: { previous_key_expires_at: string };
      api_key: string;
      previous_api_key: string;
    };
    b: { registration: { tenant_id: string }; api_key: string };
  };
  admitted: { leaf_index: number; leaf_hash: string; artifact_hash: string }[];
  execution: Json;
  webhook: { registered: { webhook_id: string }; list: Json; one: Json; deliveries: { deliveries: Json[] } };
  log: {
    sth: Sth;
    checkpoint: string;
    keys: { log: string } & Json;
    leaves: { leaf_index: number; leaf_hash: string; record: unknown }[];
  };
  reads: { a: RecordedReads & { variance: Json; triple_leaf: Json }; b: RecordedReads };
  published_keys: unknown;
}

const FIXTURES = path.join(__dirname, 'fixtures');
const FIXTURE_DIR = path.join(FIXTURES, 'data-ce27a38');
const answers = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, 'data-ce27a38.answers.json'), 'utf8'),
) as Answers;
const { a, b } = answers.tenants;
const oldSth = answers.log.sth;

/** RFC 9162 leaf hash of a record: SHA-256 of 0x00 and its RFC 8785 canonical JSON. */
function leafHashOf(record: unknown): string {
  return createHash('sha256')
    .update(Buffer.from([0]))
    .update(canonicalize(record) ?? '')
    .digest('hex');
}

interface OpenedFixture {
  server: RunningServer;
  client: GovClient;
  clock: TestClock;
  dataDir: string;
  /** Stops the server; the copy stays until `dispose`. */
  stop(): Promise<void>;
  dispose(): Promise<void>;
}

/** A fresh copy of the fixture, served by today's build with its clock one minute after the recording. */
async function openFixture(prefix: string): Promise<OpenedFixture> {
  const temp = tempDir(prefix);
  const dataDir = path.join(temp.dir, 'store');
  fs.cpSync(FIXTURE_DIR, dataDir, { recursive: true });
  const clock = new TestClock(Date.parse(answers.recorded_at) + MINUTE_MS);
  // A port of its own: with port 0 the server would put its own address in the links it answers.
  const port = await freePort();
  const server = await startEmbedded(
    testConfig(dataDir, { GOV_PORT: String(port), GOV_PUBLIC_URL: answers.public_url }),
    createLogger('silent'),
    { clock: clock.fn },
  );
  let running: RunningServer | null = server;
  const stop = async () => {
    await running?.close();
    running = null;
  };
  return {
    server,
    // server.url is the public URL, which names no host here.
    client: new GovClient(`http://127.0.0.1:${port}`),
    clock,
    dataDir,
    stop,
    async dispose() {
      await stop();
      temp.remove();
    },
  };
}

const audit = (eventsFile: string): Promise<AuditReport> =>
  runAudit(sqliteAuditSource(eventsFile), {
    trust: trustFromPublishedKeys(parsePublishedKeys(answers.published_keys)),
    workers: 0,
    checks: 'all',
  });

/**
 * `received` without the members issue 32 added to answers recorded before it (`log`, `log_url`: the
 * log a head, proof or leaf is in; `sth`: the head of its log a triple leaf's leaf is proved against),
 * each checked to name the shared log, where every old leaf is.
 */
function asRecorded(received: unknown, recorded: unknown): unknown {
  if (Array.isArray(received) && Array.isArray(recorded))
    return received.map((item, i) => asRecorded(item, recorded[i]));
  if (!received || !recorded || typeof received !== 'object' || typeof recorded !== 'object') return received;
  const kept: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(received)) {
    if (!(member in recorded) && member === 'log') expect(value).toBe('shared');
    else if (!(member in recorded) && member === 'log_url') expect(value).toMatch(/\/gov\/v1\/log$/);
    else if (!(member in recorded) && member === 'sth') expect(value).toMatchObject({ log: 'shared' });
    else kept[member] = asRecorded(value, (recorded as Record<string, unknown>)[member]);
  }
  return kept;
}

/** What the old build answered, and `received` is, beyond the members added since (asRecorded). */
function expectAsRecorded(received: unknown, recorded: unknown): void {
  expect(asRecorded(received, recorded)).toEqual(recorded);
}

/** GET that must answer 200; returns the body. */
async function read(client: GovClient, route: string, key?: string): Promise<unknown> {
  const res = await client.get(route, key);
  if (res.status !== 200) throw new Error(`GET ${route} answered ${res.status}: ${res.text}`);
  return res.body;
}

/** The log proves leaf `leaf_index` with `leaf_hash` in the tree of `sth` (verified here, against its root). */
async function expectIncluded(
  client: GovClient,
  leaf: { leaf_index: number; leaf_hash: string },
  sth: Sth,
): Promise<void> {
  const proof = (await read(
    client,
    `/gov/v1/log/proof?leaf_hash=${leaf.leaf_hash}&tree_size=${sth.tree_size}`,
  )) as { leaf_index: number; audit_path: string[] };
  expect(proof.leaf_index).toBe(leaf.leaf_index);
  const verdict = verifyInclusion(
    leaf.leaf_index,
    sth.tree_size,
    fromHex(leaf.leaf_hash),
    proof.audit_path.map(fromHex),
    fromHex(sth.root_hash),
  );
  expect(verdict).toEqual({ ok: true });
}

describe('a data folder written by the build of ce27a38 (before the reshaping)', () => {
  it('holds what the answers say: two tenants, five admissions, a closed loop and a tree of 7', () => {
    expect(answers.admitted).toHaveLength(5);
    expect(oldSth.tree_size).toBe(7);
    expect(answers.log.leaves).toHaveLength(7);
    expect(fs.readdirSync(FIXTURE_DIR).sort()).toEqual([
      'dispatch.db',
      'events.db',
      'keys',
      'read-models.db',
    ]);
  });

  it("today's audit finds the old event store clean, under the old node's published keys (one validator key retired)", async () => {
    const temp = tempDir('gov-upgrade-audit');
    try {
      // A copy: the audit opens the file, and the fixture stays as the old build left it.
      const file = path.join(temp.dir, 'events.db');
      fs.copyFileSync(path.join(FIXTURE_DIR, 'events.db'), file);
      const report = await audit(file);
      expect(report.discrepancies).toEqual([]);
      expect(report).toMatchObject({ leaves: 7, tree_size: 7, root_hash: oldSth.root_hash });
    } finally {
      temp.remove();
    }
  });

  describe("served by today's build", () => {
    let f: OpenedFixture;
    const client = () => f.client;

    beforeAll(async () => {
      f = await openFixture('gov-upgrade-serve');
    });
    afterAll(async () => {
      await f?.dispose();
    });

    it('answers the same signed tree head, checkpoint and published keys', async () => {
      expectAsRecorded(await read(client(), '/gov/v1/log/sth'), oldSth);
      expect((await client().get('/gov/v1/log/checkpoint')).text).toBe(answers.log.checkpoint);
      expectAsRecorded(await read(client(), '/gov/v1/log/keys'), answers.log.keys);
    });

    it("the tree head's signature verifies with the log key the old build published", async () => {
      const key = loadVerifierKey(answers.log.keys.log);
      const checkpoint = (await client().get('/gov/v1/log/checkpoint')).text;
      const verdict = await verifyCheckpoint(checkpoint, key);
      if (!verdict.ok) throw new Error(`the checkpoint does not verify: ${verdict.reason}`);
      expect(verdict.checkpoint.size).toBe(oldSth.tree_size);
      expect(Buffer.from(verdict.checkpoint.rootHash).toString('hex')).toBe(oldSth.root_hash);
    });

    it('serves every recorded leaf unchanged, each hashing to its leaf hash and proved in the old tree', async () => {
      for (const leaf of answers.log.leaves) {
        expectAsRecorded(await read(client(), `/gov/v1/log/leaf?index=${leaf.leaf_index}`), leaf);
        expect(leafHashOf(leaf.record)).toBe(leaf.leaf_hash);
        await expectIncluded(client(), leaf, oldSth);
      }
    });

    it.each([
      ['a', () => a.api_key, () => answers.reads.a],
      ['b', () => b.api_key, () => answers.reads.b],
    ])(
      'tenant %s: account, policy, status, chain and every report answer what the old build answered',
      async (_, keyOf, readsOf) => {
        const key = keyOf();
        const reads = readsOf();
        expectAsRecorded(await read(client(), '/account', key), reads.account);
        expectAsRecorded(await read(client(), '/governance/policy', key), reads.policy);
        expectAsRecorded(await read(client(), '/governance/status', key), reads.status);
        expectAsRecorded(await read(client(), '/governance/chain', key), reads.chain);
        expect(Object.keys(reads.reports)).toHaveLength(reads.chain.items.length);
        for (const [hash, report] of Object.entries(reads.reports))
          expectAsRecorded(await read(client(), `/governance/report/${hash}`, key), report);
      },
    );

    it('the closed loop: the variance record and the triple leaf are the old ones', async () => {
      const parent = answers.admitted[0]!.leaf_hash;
      expectAsRecorded(
        await read(client(), `/governance/variance/${parent}`, a.api_key),
        answers.reads.a.variance,
      );
      expectAsRecorded(
        await read(client(), `/governance/triple-leaf/${parent}`, a.api_key),
        answers.reads.a.triple_leaf,
      );
    });

    it('every replay bundle is served, its SHA-256 the artifact hash', async () => {
      for (const { artifact_hash } of answers.admitted) {
        const res = await fetch(`${f.client.url}/governance/replay/${artifact_hash}`);
        expect(res.status).toBe(200);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(artifact_hash);
      }
    });

    it('lists the webhook and its delivery log as the old build did', async () => {
      const { webhook_id } = answers.webhook.registered;
      expectAsRecorded(await read(client(), '/webhooks', a.api_key), answers.webhook.list);
      expectAsRecorded(await read(client(), `/webhooks/${webhook_id}`, a.api_key), answers.webhook.one);
      expectAsRecorded(
        await read(client(), `/webhooks/${webhook_id}/deliveries`, a.api_key),
        answers.webhook.deliveries,
      );
    });
  });

  describe('the API keys issued by the old build', () => {
    let f: OpenedFixture;

    beforeAll(async () => {
      f = await openFixture('gov-upgrade-keys');
    });
    afterAll(async () => {
      await f?.dispose();
    });

    it('the current keys authenticate; the rotated-out key reads during its 24 h of grace, may not manage, then stops', async () => {
      const { client } = f;
      expect((await client.get('/account', a.api_key)).status).toBe(200);
      expect((await client.get('/account', b.api_key)).status).toBe(200);
      const grace = await client.get('/account', a.previous_api_key);
      expect(grace.status).toBe(200);
      expectAsRecorded(grace.body, answers.reads.a.account);
      expect((await client.post('/api-key/rotate', {}, a.previous_api_key)).status).toBe(403);

      const expiresAt = Date.parse(a.rotation.previous_key_expires_at);
      expect(expiresAt - f.clock.now()).toBeGreaterThan(23 * HOUR_MS);
      f.clock.set(expiresAt + 1000);
      expect((await client.get('/account', a.previous_api_key)).status).toBe(401);
      expect((await client.get('/account', a.api_key)).status).toBe(200);
    });
  });

  describe("new admissions with today's build", () => {
    let f: OpenedFixture;

    beforeAll(async () => {
      f = await openFixture('gov-upgrade-extend');
    });
    afterAll(async () => {
      await f?.dispose();
    });

    it('extend the same log: a tree head signed by the same key, consistent with the old one, and a clean audit', async () => {
      const { client } = f;
      const lastOf = (subject: string) =>
        answers.reads.a.chain.items.filter((item) => item.subject_id === subject).at(-1)!.artifact_hash;

      // A's subject continues its chain from the old build's last bundle.
      const first = await client.admit(a.api_key, validEvidence('model-a'));
      expect(first.leaf_index).toBe(oldSth.tree_size);
      const chain = (await read(client, '/governance/chain', a.api_key)) as RecordedReads['chain'];
      expect(chain.items.at(-1)).toMatchObject({
        artifact_hash: first.artifact_hash,
        parent_bundle_hash: lastOf('model-a'),
      });

      // B's policy (version 2, G1 lower bound 0.75) still decides: 0.78 passes, 0.70 fails.
      const passing = validEvidence('model-b');
      passing.gate_results.G1.confidence_interval_lower = 0.78;
      const second = await client.admit(b.api_key, passing);
      const failing = validEvidence('model-b');
      failing.gate_results.G1.confidence_interval_lower = 0.7;
      const refused = await client.submitEvidence(b.api_key, failing);
      expect(refused.status).toBe(422);
      expect(refused.body.details.G1).toMatch(/0\.75/);

      // A closed loop on an authorization the old build admitted.
      const executed = await client.post(
        '/governance/execution',
        {
          parent_auth_leaf_hash: answers.admitted[3]!.leaf_hash,
          outcome: 'EXECUTED',
          executed_payload_hash: 'a'.repeat(64),
        },
        a.api_key,
      );
      expect(executed.status).toBe(201);

      const sth = (await read(client, '/gov/v1/log/sth')) as Sth;
      expect(sth.tree_size).toBe(oldSth.tree_size + 4);
      const checkpoint = await verifyCheckpoint(
        (await client.get('/gov/v1/log/checkpoint')).text,
        loadVerifierKey(answers.log.keys.log),
      );
      if (!checkpoint.ok) throw new Error(`the new checkpoint does not verify: ${checkpoint.reason}`);
      expect(Buffer.from(checkpoint.checkpoint.rootHash).toString('hex')).toBe(sth.root_hash);

      const consistency = (await read(
        client,
        `/gov/v1/log/consistency?from=${oldSth.tree_size}&to=${sth.tree_size}`,
      )) as { proof: string[] };
      expect(
        verifyConsistency(
          oldSth.tree_size,
          sth.tree_size,
          consistency.proof.map(fromHex),
          fromHex(oldSth.root_hash),
          fromHex(sth.root_hash),
        ),
      ).toEqual({ ok: true });
      for (const admitted of [first, second]) await expectIncluded(client, admitted, sth);

      // The old webhook is still subscribed: the new leaf is queued for it (its target is refused here).
      const deliveries = (await read(
        client,
        `/webhooks/${answers.webhook.registered.webhook_id}/deliveries`,
        a.api_key,
      )) as { deliveries: { event_type: string }[] };
      expect(deliveries.deliveries.length).toBeGreaterThan(answers.webhook.deliveries.deliveries.length);

      await f.stop();
      const report = await audit(path.join(f.dataDir, 'events.db'));
      expect(report.discrepancies).toEqual([]);
      expect(report).toMatchObject({ tree_size: sth.tree_size, root_hash: sth.root_hash });
    });
  });
});
