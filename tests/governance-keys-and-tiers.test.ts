/**
 * Acceptance: API key rotation (24-hour grace on an injected clock, keys never at rest, and a key in
 * its grace period that may read and submit but not manage the account) and tier gating after an
 * operator tier change, both through the library call and through the real `gov` CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runGov } from './support/children';
import {
  type AdmittedEvidence,
  type ErrorAnswer,
  HOUR_MS,
  MINUTE_MS,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
} from './support/governance-client';
import { WebhookReceiver } from './support/webhook-receiver';

interface Rotated {
  api_key: string;
  key_id: string;
  previous_key_id: string;
  previous_key_expires_at: string;
}

/** Every file under `dir`, recursively (SQLite main files, WAL and SHM included). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
    );
}

describe('API keys and tiers over HTTP', () => {
  let t: TestServer;
  const client = () => t.client;

  beforeAll(async () => {
    t = await startTestServer('gov-keys', { env: { GOV_WEBHOOK_ALLOW: '127.0.0.1' } });
  });
  beforeEach(() => t.clock.advance(MINUTE_MS));
  afterAll(async () => {
    await t?.dispose();
  });

  describe('POST /api-key/rotate', () => {
    let tenant: Registration;
    let rotated: Rotated;
    let rotatedAt: number;

    beforeAll(async () => {
      tenant = await client().register({ email: 'rot@example.com' });
    });

    it('given a live key, when it is rotated, then a new gov_live_ key is returned and works at once', async () => {
      rotatedAt = t.clock.now();
      const res = await client().post<Rotated>('/api-key/rotate', undefined, tenant.api_key);
      expect(res.status).toBe(200);
      rotated = res.body;
      expect(rotated.api_key).toMatch(/^gov_live_/);
      expect(rotated.api_key).not.toBe(tenant.api_key);
      expect(rotated.previous_key_expires_at).toBe(new Date(rotatedAt + 24 * HOUR_MS).toISOString());
      const account = await client().get('/account', rotated.api_key);
      expect(account.status).toBe(200);
      expect(account.body).toMatchObject({ tenant_id: tenant.tenant_id });
    });

    it('then the old key still works at +23h59m', async () => {
      t.clock.set(rotatedAt + 23 * HOUR_MS + 59 * MINUTE_MS);
      const res = await client().get('/account', tenant.api_key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ tenant_id: tenant.tenant_id });
    });

    it('then at +24h exactly the old key answers 401 while the new one keeps working', async () => {
      t.clock.set(rotatedAt + 24 * HOUR_MS);
      const old = await client().get<ErrorAnswer>('/account', tenant.api_key);
      expect(old.status).toBe(401);
      expect(old.body.error).toBe('UNAUTHORIZED');
      expect((await client().submitEvidence(tenant.api_key)).status).toBe(401);
      expect((await client().get('/account', rotated.api_key)).status).toBe(200);
    });

    it('given a test-mode key, when it is rotated, then the new key is a gov_test_ key', async () => {
      const testTenant = await client().register({ mode: 'test' });
      expect(testTenant.api_key).toMatch(/^gov_test_/);
      const res = await client().post<Rotated>('/api-key/rotate', undefined, testTenant.api_key);
      expect(res.status).toBe(200);
      expect(res.body.api_key).toMatch(/^gov_test_/);
      expect((await client().get('/account', res.body.api_key)).status).toBe(200);
    });

    it('given no valid key, when rotating, then 401', async () => {
      const res = await client().post<ErrorAnswer>(
        '/api-key/rotate',
        undefined,
        `gov_live_0123456789abcdef_${'A'.repeat(43)}`,
      );
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('UNAUTHORIZED');
    });

    it('then no key (issued or rotated), nor its secret part, appears anywhere in the event store or read store files', async () => {
      const keys = [tenant.api_key, rotated.api_key];
      const files = filesUnder(t.dataDir);
      expect(
        files.some((f) => path.basename(f) === path.basename(t.server.services.config.eventStoreFile)),
      ).toBe(true);
      expect(
        files.some((f) => path.basename(f) === path.basename(t.server.services.config.readStoreFile)),
      ).toBe(true);
      for (const file of files) {
        const bytes = fs.readFileSync(file);
        for (const key of keys) {
          expect({ file, found: bytes.includes(key) }).toEqual({ file, found: false });
          expect({ file, found: bytes.includes(key.slice(-43)) }).toEqual({ file, found: false });
        }
      }
    });
  });

  describe('a key in its 24-hour grace period after a rotation', () => {
    let receiver: WebhookReceiver;
    let tenant: Registration;
    let graceKey: string;
    let currentKey: string;
    let webhookId: string;
    let deliveryId: string;
    const head = () => t.server.services.eventStore.headPosition();

    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      tenant = await client().register({ email: 'grace@example.com' });
      // Set up with the first key while it is the current one: a webhook with one delivery.
      const hook = await client().post<{ webhook_id: string }>(
        '/webhooks',
        { url: receiver.url, events: ['leaf_admitted'] },
        tenant.api_key,
      );
      expect(hook.status).toBe(201);
      webhookId = hook.body.webhook_id;
      await client().admit(tenant.api_key);
      await receiver.waitFor((all) => all.length >= 1);
      deliveryId = await firstDelivery(tenant.api_key, webhookId);
      const rotated = await client().post<Rotated>('/api-key/rotate', undefined, tenant.api_key);
      expect(rotated.status).toBe(200);
      graceKey = tenant.api_key;
      currentKey = rotated.body.api_key;
    });
    afterAll(async () => {
      await receiver?.close();
    });

    /** The first delivery of the webhook's log (the log is written just after the attempt). */
    async function firstDelivery(key: string, id: string): Promise<string> {
      for (let i = 0; i < 200; i++) {
        const log = await client().get<{ deliveries: { delivery_id: string }[] }>(
          `/webhooks/${id}/deliveries`,
          key,
        );
        if (log.body.deliveries?.length) return log.body.deliveries[0]!.delivery_id;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`webhook ${id} has no delivery in its log`);
    }

    const management = () => [
      { what: 'POST /api-key/rotate', method: 'POST', route: '/api-key/rotate', json: undefined },
      {
        what: 'POST /webhooks',
        method: 'POST',
        route: '/webhooks',
        json: { url: 'http://127.0.0.1:9/hook', events: ['gate_fail'] },
      },
      { what: 'DELETE /webhooks/:id', method: 'DELETE', route: `/webhooks/${webhookId}`, json: undefined },
      {
        what: 'POST redeliver',
        method: 'POST',
        route: `/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`,
        json: undefined,
      },
    ];

    it('given the rotated-out key, when it calls each account-management route, then 403 FORBIDDEN saying to use the current key, and nothing is appended', async () => {
      for (const { what, method, route, json } of management()) {
        const before = await head();
        const res = await client().request<ErrorAnswer>(method, route, {
          key: graceKey,
          ...(json === undefined ? {} : { json }),
        });
        expect({ what, status: res.status, error: res.body.error }).toEqual({
          what,
          status: 403,
          error: 'FORBIDDEN',
        });
        expect(res.body.message).toMatch(/current key/);
        expect(Object.keys(res.body).sort()).toEqual(['correlation_id', 'error', 'message']);
        expect({ what, head: await head() }).toEqual({ what, head: before });
      }
      // The webhook it tried to delete is still registered.
      expect((await client().get(`/webhooks/${webhookId}`, currentKey)).status).toBe(200);
    });

    it('then until it expires it still submits evidence (201) and reads (200)', async () => {
      expect((await client().submitEvidence(graceKey)).status).toBe(201);
      for (const route of [
        '/account',
        '/webhooks',
        `/webhooks/${webhookId}`,
        `/webhooks/${webhookId}/deliveries`,
        '/governance/chain',
        '/governance/status',
      ])
        expect({ route, status: (await client().get(route, graceKey)).status }).toEqual({
          route,
          status: 200,
        });
    });

    it('then the current key manages the account: webhooks, redelivery, rotation', async () => {
      const hook = await client().post<{ webhook_id: string }>(
        '/webhooks',
        { url: 'http://127.0.0.1:9/hook', events: ['gate_fail'] },
        currentKey,
      );
      expect(hook.status).toBe(201);
      expect(
        (await client().request('DELETE', `/webhooks/${hook.body.webhook_id}`, { key: currentKey })).status,
      ).toBe(200);
      const redelivered = await client().post(
        `/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`,
        undefined,
        currentKey,
      );
      expect(redelivered.status).toBe(202);
      const rotated = await client().post<Rotated>('/api-key/rotate', undefined, currentKey);
      expect(rotated.status).toBe(200);
      expect(rotated.body.previous_key_id).toBe(currentKey.split('_')[2]);
    });

    it('given two rotations sent at once with the same key, then exactly one succeeds and the other is refused 403 FORBIDDEN', async () => {
      const owner = await client().register({ email: 'grace-race@example.com' });
      const answers = await Promise.all([
        client().post<Rotated & ErrorAnswer>('/api-key/rotate', undefined, owner.api_key),
        client().post<Rotated & ErrorAnswer>('/api-key/rotate', undefined, owner.api_key),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 403]);
      const won = answers.find((res) => res.status === 200)!;
      expect(answers.find((res) => res.status === 403)!.body.error).toBe('FORBIDDEN');
      // The winner's key is the current one: it manages the account.
      expect((await client().post('/api-key/rotate', undefined, won.body.api_key)).status).toBe(200);
    });
  });

  describe('tier gating after an operator tier change', () => {
    let tenant: Registration;
    let admitted: AdmittedEvidence;

    beforeAll(async () => {
      tenant = await client().register();
      admitted = await client().admit(tenant.api_key);
    });

    it('given an L1 tenant, when it exports its report, then 403 TIER_INSUFFICIENT', async () => {
      const res = await client().get<ErrorAnswer>(
        `/governance/report/${admitted.artifact_hash}?format=json`,
        tenant.api_key,
      );
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('TIER_INSUFFICIENT');
    });

    it('given the tenant was changed to L2, when it exports its report as JSON, then 200 with Content-Disposition attachment', async () => {
      await setTier(t.server, tenant.tenant_id, 'L2');
      expect((await client().get('/account', tenant.api_key)).body).toMatchObject({ tier: 'L2' });
      const res = await client().get(
        `/governance/report/${admitted.artifact_hash}?format=json`,
        tenant.api_key,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.json"$/);
      expect(res.body).toMatchObject({
        type: 'GOV_COMPLIANCE_REPORT_V1',
        tenant_id: tenant.tenant_id,
        artifact_hash: admitted.artifact_hash,
      });
    });

    it('then the Markdown export is text/markdown with Content-Disposition attachment', async () => {
      const res = await client().get(
        `/governance/report/${admitted.artifact_hash}?format=markdown`,
        tenant.api_key,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.md"$/);
      expect(res.text).toContain(admitted.artifact_hash);
    });

    it('then the closed-loop endpoints are open to it (no 403)', async () => {
      const execution = await client().post(
        '/governance/execution',
        { parent_auth_leaf_hash: admitted.leaf_hash, outcome: 'EXECUTED' },
        tenant.api_key,
      );
      expect(execution.status).toBe(201);
      expect((await client().get(`/governance/variance/${admitted.leaf_hash}`, tenant.api_key)).status).toBe(
        200,
      );
      expect(
        (await client().get(`/governance/triple-leaf/${admitted.leaf_hash}`, tenant.api_key)).status,
      ).toBe(200);
    });

    it('then the trial cap no longer applies: a sixth leaf is admitted', async () => {
      for (let i = 0; i < 5; i++) await client().admit(tenant.api_key);
      expect((await client().get('/account', tenant.api_key)).body).toMatchObject({ evidence_leaves: 6 });
    });
  });
});

describe('the gov CLI changing a tier on a stopped server', () => {
  let t: TestServer;
  let tenant: Registration;

  beforeAll(async () => {
    t = await startTestServer('gov-cli-tier');
    tenant = await t.client.register();
    await t.stop();
  });
  afterAll(async () => {
    await t?.dispose();
  });

  const gov = (...args: string[]) => runGov(args, { dataDir: t.dataDir });

  it('given a bad tier, when `gov tenant tier` runs, then it exits 2 and changes nothing', async () => {
    const result = await gov('tenant', 'tier', tenant.tenant_id, 'L9');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/tier/);
  });

  it('given a valid tier, when `gov tenant tier <id> L2` runs, then it exits 0, and after a restart the tenant is L2', async () => {
    const result = await gov('tenant', 'tier', tenant.tenant_id, 'L2');
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    // "L1 -> L2": the earlier bad-tier run changed nothing.
    expect(result.stdout).toContain(`${tenant.tenant_id}: tier L1 -> L2`);

    await t.start();
    const account = await t.client.get('/account', tenant.api_key);
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ tenant_id: tenant.tenant_id, tier: 'L2' });
    const admitted = await t.client.admit(tenant.api_key);
    const report = await t.client.get(
      `/governance/report/${admitted.artifact_hash}?format=json`,
      tenant.api_key,
    );
    expect(report.status).toBe(200);
  });
});
