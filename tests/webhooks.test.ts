/**
 * Acceptance: webhooks over HTTP against the started server and a real local receiver. Every
 * delivery's signature is checked by a third-party verifier (@octokit/webhooks-methods, the
 * X-Hub-Signature-256 scheme) and by our own; every payload against its published schema.
 */

import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { validateResponse, validateWebhookPayload } from '../event-schemas';
import { verifySignatureHeader } from '../projectors/webhooks/signature';
import type { Resolve } from '../projectors/webhooks/target-guard';
import { WEBHOOK_EVENT_NAMES } from '../projectors/webhooks/webhook-events';
import {
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
import { type ReceivedDelivery, WebhookReceiver } from './support/webhook-receiver';

const ALL_EVENTS = WEBHOOK_EVENT_NAMES;

interface WebhookAnswer {
  webhook_id: string;
  url: string;
  events: string[];
  created_at: string;
  secret?: string;
}

interface DeliveryAnswer {
  delivery_id: string;
  event_id: string;
  event_type: string;
  status: string;
  next_attempt_at: string | null;
  redelivery_of: string | null;
  attempts: { attempt: number; at: string; status_code: number | null; error: string | null }[];
  max_attempts: number;
  retry_schedule_seconds: number[];
}

describe('webhooks over HTTP', () => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  const client = () => t.client;

  beforeAll(async () => {
    t = await startTestServer('gov-webhooks', {
      env: { GOV_WEBHOOK_ALLOW: '127.0.0.1', GOV_WEBHOOK_TIMEOUT_MS: '300' },
    });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await t?.dispose();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.script = () => ({ status: 200 });
  });

  const register = async (
    tenant: Registration,
    events: readonly string[] = ALL_EVENTS,
    extra: Record<string, unknown> = { secret: 'a-test-secret-of-some-length' },
    url = receiver.url,
  ) => {
    const res = await client().post<WebhookAnswer & ErrorAnswer>(
      '/webhooks',
      { url, events, ...extra },
      tenant.api_key,
    );
    expect(res.status).toBe(201);
    return res.body;
  };

  /** Checks a delivery the way a receiver must: signature (two verifiers), headers, schema. */
  const checkDelivery = async (delivery: ReceivedDelivery, secret: string) => {
    const header = delivery.headers['x-gov-signature-256'] as string;
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await octokitVerify(secret, delivery.raw, header)).toBe(true);
    expect(verifySignatureHeader(secret, delivery.raw, header)).toBe(true);
    expect(verifySignatureHeader(`${secret}x`, delivery.raw, header)).toBe(false);
    expect(delivery.headers['x-gov-event-id']).toBe(delivery.body.event_id);
    expect(delivery.headers['x-gov-event-type']).toBe(delivery.body.type);
    expect(delivery.headers['content-type']).toBe('application/json');
    const validation = validateWebhookPayload(
      delivery.body.type as (typeof ALL_EVENTS)[number],
      delivery.body,
    );
    expect(validation.ok ? [] : validation.problems).toEqual([]);
  };

  /** The dispatcher has projected everything committed, and the worker has made every due attempt. */
  const settleDispatcher = async () => {
    await t.server.webhookDelivery.consumer!.waitForPosition(
      await t.server.services.eventStore.headPosition(),
    );
    await t.server.webhookDelivery.worker.runOnce();
  };

  const deliveriesOf = (tenant: Registration, webhookId: string, query = '') =>
    client().get<{ deliveries: DeliveryAnswer[]; next_cursor: string | null }>(
      `/webhooks/${webhookId}/deliveries${query}`,
      tenant.api_key,
    );

  describe('registration', () => {
    let tenant: Registration;
    let other: Registration;
    beforeAll(async () => {
      tenant = await client().register();
      other = await client().register();
    });

    it('given no secret, when a webhook is registered, then the generated secret is returned once and never listed', async () => {
      const created = await register(tenant, ['leaf_admitted'], {});
      expect(created.webhook_id).toMatch(/^wh_[0-9a-f]{24}$/);
      expect(created.secret).toEqual(expect.any(String));
      expect(created.secret!.length).toBeGreaterThanOrEqual(32);
      expect(Date.parse(created.created_at)).not.toBeNaN();
      const listed = await client().get<{ webhooks: Record<string, unknown>[] }>('/webhooks', tenant.api_key);
      expect(listed.status).toBe(200);
      const mine = listed.body.webhooks.find((w) => w.webhook_id === created.webhook_id);
      expect(mine).toMatchObject({ url: receiver.url, events: ['leaf_admitted'], secret_generated: true });
      expect(JSON.stringify(listed.body)).not.toContain(created.secret);
      const one = await client().get(`/webhooks/${created.webhook_id}`, tenant.api_key);
      expect(JSON.stringify(one.body)).not.toContain(created.secret);
    });

    it.each([
      [{ url: receiver?.url ?? 'http://127.0.0.1/', events: ['leaf_minted'] }, '/events/0'],
      [{ url: 'not a url', events: ['leaf_admitted'] }, '/url'],
      [{ url: 'ftp://example.com/hook', events: ['leaf_admitted'] }, '/url'],
      [{ url: 'http://127.0.0.1/hook', events: [] }, '/events'],
      [{ url: 'http://127.0.0.1/hook' }, '/events'],
      [{ url: 'http://127.0.0.1/hook', events: ['gate_fail'], secret: 'short' }, '/secret'],
    ])(
      'given a bad body %j, then 400 INVALID_REQUEST names %s and nothing is appended',
      async (body, pointer) => {
        const before = await t.server.services.eventStore.headPosition();
        const res = await client().post<ErrorAnswer>('/webhooks', body, tenant.api_key);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('INVALID_REQUEST');
        expect(res.body.fields?.map((f) => f.pointer)).toContain(pointer);
        expect(await t.server.services.eventStore.headPosition()).toBe(before);
      },
    );

    it.each([
      ['http://10.1.2.3/hook', 'in the private (RFC 1918) range 10.0.0.0/8'],
      ['http://169.254.169.254/latest/meta-data', 'the cloud metadata address'],
      ['http://[::1]:8080/hook', 'the loopback address'],
      ['http://192.168.0.10/hook', 'in the private (RFC 1918) range 192.168.0.0/16'],
      // 127.0.0.1 is allowed here, as itself and IPv4-mapped: not through NAT64, 6to4 or the like
      ['http://[64:ff9b::7f00:1]/hook', 'NAT64 (64:ff9b::/96) of 127.0.0.1, in the loopback range'],
      ['http://[2002:7f00:1::]/hook', '6to4 (2002::/16) of 127.0.0.1, in the loopback range'],
      ['http://[::127.0.0.1]/hook', 'IPv4-compatible 127.0.0.1, in the loopback range'],
      ['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/hook', 'Teredo (2001::/32) client 10.0.0.1'],
      ['http://198.18.0.1/hook', 'in the benchmarking range 198.18.0.0/15'],
      ['http://[2001:db8::1]/hook', 'in the documentation range 2001:db8::/32'],
    ])(
      'given a target %s outside the allow-list, then 400 says why (%s) and nothing is appended',
      async (url, why) => {
        const before = await t.server.services.eventStore.headPosition();
        const res = await client().post<ErrorAnswer>(
          '/webhooks',
          { url, events: ['gate_fail'] },
          tenant.api_key,
        );
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('INVALID_REQUEST');
        expect(res.body.fields?.[0]?.pointer).toBe('/url');
        expect(res.body.fields?.[0]?.reason).toContain(why);
        expect(res.body.message).toContain('not allowed as a webhook target (it must be publicly reachable)');
        expect(await t.server.services.eventStore.headPosition()).toBe(before);
      },
    );

    it('given no key, then 401; given another tenant, then its webhooks are 404 to read, list, delete and redeliver', async () => {
      expect((await client().post('/webhooks', { url: receiver.url, events: ['gate_fail'] })).status).toBe(
        401,
      );
      expect((await client().get('/webhooks')).status).toBe(401);
      const created = await register(tenant, ['gate_fail']);
      expect((await client().get(`/webhooks/${created.webhook_id}`, other.api_key)).status).toBe(404);
      expect((await client().get(`/webhooks/${created.webhook_id}/deliveries`, other.api_key)).status).toBe(
        404,
      );
      expect(
        (await client().request('DELETE', `/webhooks/${created.webhook_id}`, { key: other.api_key })).status,
      ).toBe(404);
      const listed = await client().get<{ webhooks: { webhook_id: string }[] }>('/webhooks', other.api_key);
      expect(listed.body.webhooks.map((w) => w.webhook_id)).not.toContain(created.webhook_id);
      expect((await client().get(`/webhooks/${created.webhook_id}`, tenant.api_key)).status).toBe(200);
    });

    it('when a webhook is deleted, then it is gone from the list, a second delete is 404, and it receives nothing more', async () => {
      const created = await register(tenant, ['gate_fail']);
      const deleted = await client().request<{ deleted: boolean }>(
        'DELETE',
        `/webhooks/${created.webhook_id}`,
        {
          key: tenant.api_key,
        },
      );
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ webhook_id: created.webhook_id, deleted: true });
      expect(
        (await client().request('DELETE', `/webhooks/${created.webhook_id}`, { key: tenant.api_key })).status,
      ).toBe(404);
      const listed = await client().get<{ webhooks: { webhook_id: string }[] }>('/webhooks', tenant.api_key);
      expect(listed.body.webhooks.map((w) => w.webhook_id)).not.toContain(created.webhook_id);
      await client().submitEvidence(tenant.api_key, failingEvidence('deleted-hook-subject'));
      await settleDispatcher();
      expect((await deliveriesOf(tenant, created.webhook_id)).status).toBe(404);
    });
  });

  describe('every event fires from the action that causes it', () => {
    let tenant: Registration;
    let secret: string;
    let webhookId: string;
    const mine = () => receiver.received.filter((d) => d.body.tenant_id === tenant.tenant_id);
    const waitForType = async (type: string, count = 1) => {
      await receiver.waitFor(() => mine().filter((d) => d.body.type === type).length >= count);
      const found = mine().filter((d) => d.body.type === type);
      for (const delivery of found) await checkDelivery(delivery, secret);
      return found;
    };

    beforeAll(async () => {
      tenant = await client().register();
      await setTier(t.server, tenant.tenant_id, 'L2');
      secret = 'the-event-suite-secret-0123456789';
      webhookId = (await register(tenant, ALL_EVENTS, { secret })).webhook_id;
    });

    it('leaf_admitted: POST /governance/evidence → the spec fields, matching the 201', async () => {
      const admitted = await client().admit(tenant.api_key, validEvidence('fires-1'));
      const [delivery] = (await waitForType('leaf_admitted')).filter(
        (d) => d.body.leaf_hash === admitted.leaf_hash,
      );
      expect(delivery!.body).toMatchObject({
        type: 'leaf_admitted',
        tenant_id: tenant.tenant_id,
        leaf_index: admitted.leaf_index,
        leaf_hash: admitted.leaf_hash,
        subject_id: 'fires-1',
        replay_url: admitted.replay_url,
      });
      expect(delivery!.body.admitted_at).toMatch(/Z$/);
    });

    it('compliance_report_ready: an admission → the report of that artifact', async () => {
      const admitted = await client().admit(tenant.api_key, validEvidence('fires-2'));
      await receiver.waitFor(() =>
        mine().some(
          (d) =>
            d.body.type === 'compliance_report_ready' &&
            JSON.stringify(d.body).includes(admitted.artifact_hash),
        ),
      );
      await waitForType('compliance_report_ready');
    });

    it('gate_fail: failing evidence → gates_failed, details, ACTION_BLOCKED', async () => {
      const res = await client().submitEvidence(tenant.api_key, failingEvidence('fires-3'));
      expect(res.status).toBe(422);
      const [delivery] = await waitForType('gate_fail');
      expect(delivery!.body).toMatchObject({
        type: 'gate_fail',
        tenant_id: tenant.tenant_id,
        subject_id: 'fires-3',
        gates_failed: res.body.gates_failed,
        details: res.body.details,
        action: 'ACTION_BLOCKED',
      });
    });

    it('execution_trace_admitted, variance_recorded and governance_breach: a FAILED execution (a BREACH)', async () => {
      const admitted = await client().admit(tenant.api_key, validEvidence('fires-4'));
      const res = await client().post<{ exec_leaf_hash: string; variance_leaf_hash: string }>(
        '/governance/execution',
        { parent_auth_leaf_hash: admitted.leaf_hash, outcome: 'FAILED', executed_payload_hash: digest('x') },
        tenant.api_key,
      );
      expect(res.status).toBe(201);
      const [trace] = await waitForType('execution_trace_admitted');
      expect(trace!.body).toMatchObject({ leaf_hash: res.body.exec_leaf_hash, subject_id: 'fires-4' });
      const [variance] = await waitForType('variance_recorded');
      expect(variance!.body).toMatchObject({ leaf_hash: res.body.variance_leaf_hash });
      const [breach] = await waitForType('governance_breach');
      expect(breach!.body).toMatchObject({
        type: 'governance_breach',
        tenant_id: tenant.tenant_id,
        auth_leaf_hash: admitted.leaf_hash,
        exec_leaf_hash: res.body.exec_leaf_hash,
        variance_leaf_hash: res.body.variance_leaf_hash,
        classification: 'BREACH',
        omega_breach: true,
      });
      expect(typeof breach!.body.l2_distance).toBe('number');
      expect(breach!.body.drift_direction).toEqual({ H: 'degraded', C: 'degraded', E: 'degraded' });
    });

    it('observables_alert: the gate failure that takes a subject out of Ω (the 6th from 0.5: H 0.38, E 0.62), once', async () => {
      const alertsFor = () =>
        mine().filter((d) => d.body.type === 'observables_alert' && d.body.subject_id === 'fires-5');
      for (let i = 0; i < 5; i++) await client().submitEvidence(tenant.api_key, failingEvidence('fires-5'));
      await settleDispatcher();
      expect(alertsFor()).toHaveLength(0);
      await client().submitEvidence(tenant.api_key, failingEvidence('fires-5'));
      await waitForType('observables_alert');
      const [alert] = alertsFor();
      expect(alert!.body).toMatchObject({
        type: 'observables_alert',
        tenant_id: tenant.tenant_id,
        subject_id: 'fires-5',
        crossing: 'left_omega',
        observables: { H: 0.38, C: 0.41, E: 0.62 },
        previous: { H: 0.4, C: 0.425, E: 0.6 },
      });
      await client().submitEvidence(tenant.api_key, failingEvidence('fires-5'));
      await settleDispatcher();
      expect(alertsFor()).toHaveLength(1);
    });

    it('chain_depth_milestone: the 10th authorization leaf of the tenant, once', async () => {
      const chain = await client().get<{ total: number }>('/governance/chain', tenant.api_key);
      for (let i = chain.body.total; i < 11; i++)
        await client().admit(tenant.api_key, validEvidence(`depth-${i}`));
      const [milestone] = await waitForType('chain_depth_milestone');
      expect(milestone!.body).toMatchObject({
        type: 'chain_depth_milestone',
        tenant_id: tenant.tenant_id,
        depth: 10,
        counts: 'authorization_leaves',
      });
      await settleDispatcher();
      expect(mine().filter((d) => d.body.type === 'chain_depth_milestone')).toHaveLength(1);
    });

    it('the delivery log lists each delivery with its attempt, newest first', async () => {
      const log = await deliveriesOf(tenant, webhookId, '?status=delivered&limit=5');
      expect(log.status).toBe(200);
      const validation = validateResponse('delivery-log', log.body);
      expect(validation.ok ? [] : validation.problems).toEqual([]);
      expect(log.body.deliveries).toHaveLength(5);
      expect(log.body.next_cursor).toEqual(expect.any(String));
      for (const delivery of log.body.deliveries) {
        expect(delivery.status).toBe('delivered');
        expect(delivery.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
      }
      const next = await deliveriesOf(
        tenant,
        webhookId,
        `?status=delivered&limit=5&cursor=${encodeURIComponent(log.body.next_cursor!)}`,
      );
      expect(next.status).toBe(200);
      expect(next.body.deliveries[0]!.delivery_id).not.toBe(log.body.deliveries[0]!.delivery_id);
      expect((await deliveriesOf(tenant, webhookId, '?status=lost')).status).toBe(400);
    });

    it('redelivery: the same event (same event id, same bytes) is sent again', async () => {
      const log = await deliveriesOf(tenant, webhookId, '?status=delivered&limit=1');
      const original = log.body.deliveries[0]!;
      const before = mine().filter((d) => d.body.event_id === original.event_id).length;
      const res = await client().post(
        `/webhooks/${webhookId}/deliveries/${original.delivery_id}/redeliver`,
        {},
        tenant.api_key,
      );
      expect(res.status).toBe(202);
      await receiver.waitFor(
        () => mine().filter((d) => d.body.event_id === original.event_id).length > before,
      );
      const copies = mine().filter((d) => d.body.event_id === original.event_id);
      expect(new Set(copies.map((d) => d.raw)).size).toBe(1);
      expect(
        (await client().post(`/webhooks/${webhookId}/deliveries/nope/redeliver`, {}, tenant.api_key)).status,
      ).toBe(404);
    });
  });

  describe('tenant isolation and subscriptions', () => {
    it('given two webhooks of a tenant on one event, then each receives the same bytes signed with its own secret, and a redelivery to the second sends them again', async () => {
      const tenant = await client().register();
      const first = await register(tenant, ['leaf_admitted'], { secret: 'the-first-secret-0123456789' });
      const second = await register(tenant, ['leaf_admitted'], { secret: 'the-second-secret-0123456789' });
      const admitted = await client().admit(tenant.api_key, validEvidence('shared-body'));
      const toTenant = () => receiver.received.filter((d) => d.body.tenant_id === tenant.tenant_id);
      await receiver.waitFor(() => toTenant().length >= 2);
      const [a, b] = toTenant();
      expect(a!.body.leaf_hash).toBe(admitted.leaf_hash);
      expect(b!.raw).toBe(a!.raw);
      // Each delivery names its webhook, and verifies with that webhook's secret and not the other's.
      const secrets = new Map([
        [first.webhook_id, 'the-first-secret-0123456789'],
        [second.webhook_id, 'the-second-secret-0123456789'],
      ]);
      const named = [a!, b!].map((delivery) => delivery.headers['x-gov-webhook-id'] as string);
      expect(named.sort()).toEqual([first.webhook_id, second.webhook_id].sort());
      for (const delivery of [a!, b!]) {
        const header = delivery.headers['x-gov-signature-256'] as string;
        const matching = [...secrets].filter(([, secret]) =>
          verifySignatureHeader(secret, delivery.raw, header),
        );
        expect(matching.map(([webhookId]) => webhookId)).toEqual([delivery.headers['x-gov-webhook-id']]);
        await checkDelivery(delivery, matching[0]![1]);
      }
      await settleDispatcher(); // the log entry is written once the first attempt has ended
      const [logged] = (await deliveriesOf(tenant, second.webhook_id)).body.deliveries;
      const redeliver = await client().post(
        `/webhooks/${second.webhook_id}/deliveries/${logged!.delivery_id}/redeliver`,
        {},
        tenant.api_key,
      );
      expect(redeliver.status).toBe(202);
      await receiver.waitFor(() => toTenant().length >= 3);
      const again = toTenant()[2]!;
      expect(again.raw).toBe(a!.raw);
      await checkDelivery(again, 'the-second-secret-0123456789');
    });

    it("given tenants A and B with webhooks, when A admits, then only A's webhook (and only for subscribed events) receives it", async () => {
      const a = await client().register();
      const b = await client().register();
      const bReceiver = await WebhookReceiver.start('/b');
      try {
        await register(a, ['leaf_admitted']);
        await register(b, ALL_EVENTS, { secret: 'the-b-secret-0123456789' }, bReceiver.url);
        const admitted = await client().admit(a.api_key, validEvidence('iso-1'));
        await client().submitEvidence(a.api_key, failingEvidence('iso-2'));
        await receiver.waitFor((all) => all.some((d) => d.body.leaf_hash === admitted.leaf_hash));
        await settleDispatcher();
        expect(bReceiver.received).toHaveLength(0);
        const forA = receiver.received.filter((d) => d.body.tenant_id === a.tenant_id);
        expect(forA.map((d) => d.body.type)).toEqual(['leaf_admitted']);
      } finally {
        await bReceiver.close();
      }
    });
  });

  describe('retries (the server clock is the test clock)', () => {
    /** A fresh tenant each time: its one webhook is the only receiver of the event. */
    const oneDelivery = async (subject: string) => {
      const tenant = await client().register();
      const { webhook_id } = await register(tenant, ['gate_fail']);
      await client().submitEvidence(tenant.api_key, failingEvidence(subject));
      await settleDispatcher();
      const log = await deliveriesOf(tenant, webhook_id);
      expect(log.body.deliveries).toHaveLength(1);
      return {
        webhook_id,
        delivery: () => deliveriesOf(tenant, webhook_id).then((r) => r.body.deliveries[0]!),
      };
    };
    const attemptsAfter = async (ms: number, get: () => Promise<DeliveryAnswer>) => {
      t.clock.advance(ms);
      await settleDispatcher();
      return (await get()).attempts.length;
    };

    it('given a receiver failing 5 times then answering 200, then exactly 6 attempts at +0, +5 s, +35 s, +2 min 35 s, +12 min 35 s, +42 min 35 s, each attempt numbered in its header', async () => {
      let calls = 0;
      receiver.script = (_n, d) =>
        d.body.subject_id === 'retry-ok' && ++calls <= 5 ? { status: 500 } : { status: 200 };
      const { delivery } = await oneDelivery('retry-ok');
      const first = await delivery();
      expect(first.attempts).toHaveLength(1);
      expect(first).toMatchObject({ max_attempts: 6, retry_schedule_seconds: [5, 30, 120, 600, 1800] });
      const start = Date.parse(first.attempts[0]!.at);
      for (const wait of [5_000, 30_000, 2 * MINUTE_MS, 10 * MINUTE_MS, 30 * MINUTE_MS]) {
        expect(await attemptsAfter(wait - 1, delivery)).toBe((await delivery()).attempts.length);
        await attemptsAfter(1, delivery);
      }
      const done = await delivery();
      expect(done.status).toBe('delivered');
      expect(done.attempts.map((a) => Date.parse(a.at) - start)).toEqual([
        0, 5_000, 35_000, 155_000, 755_000, 2_555_000,
      ]);
      expect(done.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 500, 500, 200]);
      const sent = receiver.received.filter((d) => d.body.subject_id === 'retry-ok');
      expect(sent.map((d) => d.headers['x-gov-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
      expect(await attemptsAfter(60 * MINUTE_MS, delivery)).toBe(6);
    });

    it('given a receiver that never answers, then timeouts count as failures: 6 attempts, then failed', async () => {
      receiver.script = (_n, d) => (d.body.subject_id === 'retry-hang' ? 'hang' : { status: 200 });
      const { delivery } = await oneDelivery('retry-hang');
      for (const wait of [5_000, 30_000, 2 * MINUTE_MS, 10 * MINUTE_MS]) await attemptsAfter(wait, delivery);
      expect((await delivery()).status).toBe('pending');
      await attemptsAfter(30 * MINUTE_MS, delivery);
      const done = await delivery();
      expect(done.attempts).toHaveLength(6);
      expect(done.status).toBe('failed');
      expect(done.next_attempt_at).toBeNull();
      expect(done).toMatchObject({ max_attempts: 6 });
      for (const attempt of done.attempts) {
        expect(attempt.status_code).toBeNull();
        expect(attempt.error).toMatch(/timeout/i);
      }
      expect(await attemptsAfter(60 * MINUTE_MS, delivery)).toBe(6);
    });

    it('given a 429 with Retry-After: 600, then the next attempt waits 10 min, not 5 s', async () => {
      receiver.script = (_n, d) =>
        d.body.subject_id === 'retry-after' &&
        receiver.ofType('gate_fail').filter((x) => x.body.subject_id === 'retry-after').length === 1
          ? { status: 429, headers: { 'retry-after': '600' } }
          : { status: 200 };
      const { delivery } = await oneDelivery('retry-after');
      expect(await attemptsAfter(5_000, delivery)).toBe(1);
      expect(await attemptsAfter(600_000 - 5_000, delivery)).toBe(2);
      expect((await delivery()).status).toBe('delivered');
    });
  });

  describe('target host names (the guard resolves them from a table here, at registration and at every attempt)', () => {
    const dns = new Map<string, string[]>();
    beforeAll(() => {
      const guard = t.server.services.webhooks.guard as unknown as { resolve: Resolve };
      jest.spyOn(guard, 'resolve').mockImplementation(async (host) => {
        const addresses = dns.get(host);
        if (!addresses)
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return addresses;
      });
    });
    afterAll(() => jest.restoreAllMocks());
    const urlOn = (host: string) => receiver.url.replace('127.0.0.1', host);
    const onlyDelivery = async (tenant: Registration, webhookId: string) => {
      const log = await deliveriesOf(tenant, webhookId);
      expect(log.body.deliveries).toHaveLength(1);
      return log.body.deliveries[0]!;
    };

    it('given a host that does not resolve yet, then it is registered; attempts fail with the reason in the delivery log until it resolves, then the next retry delivers', async () => {
      const tenant = await client().register();
      const url = urlOn('later.hooks.test');
      const { webhook_id } = await register(tenant, ['gate_fail'], {}, url);
      await client().submitEvidence(tenant.api_key, failingEvidence('resolves-later'));
      await settleDispatcher();
      const failed = await onlyDelivery(tenant, webhook_id);
      expect(failed.status).toBe('pending');
      expect(failed.attempts).toEqual([
        expect.objectContaining({
          attempt: 1,
          status_code: null,
          error: 'host later.hooks.test does not resolve (ENOTFOUND)',
        }),
      ]);
      dns.set('later.hooks.test', ['127.0.0.1']);
      t.clock.advance(5_000);
      await settleDispatcher();
      const delivered = await onlyDelivery(tenant, webhook_id);
      expect(delivered.status).toBe('delivered');
      expect(delivered.attempts.map((a) => a.status_code)).toEqual([null, 200]);
      const got = receiver.received.filter((d) => d.body.tenant_id === tenant.tenant_id);
      expect(got.map((d) => d.headers.host)).toEqual([new URL(url).host]);
    });

    it('given a host resolving to a refused address, then 400 and nothing is appended; given one that resolves there only later, then that attempt fails with the reason in the delivery log', async () => {
      const tenant = await client().register();
      dns.set('inside.hooks.test', ['127.0.0.1', '10.0.0.7']);
      const before = await t.server.services.eventStore.headPosition();
      const refused = await client().post<ErrorAnswer>(
        '/webhooks',
        { url: urlOn('inside.hooks.test'), events: ['gate_fail'] },
        tenant.api_key,
      );
      expect(refused.status).toBe(400);
      expect(refused.body.fields?.[0]).toEqual({
        pointer: '/url',
        reason: expect.stringContaining('inside.hooks.test resolves to 10.0.0.7, which is in the private'),
      });
      expect(await t.server.services.eventStore.headPosition()).toBe(before);

      dns.set('turns.hooks.test', ['127.0.0.1']);
      const { webhook_id } = await register(tenant, ['gate_fail'], {}, urlOn('turns.hooks.test'));
      dns.set('turns.hooks.test', ['64:ff9b::7f00:1']);
      await client().submitEvidence(tenant.api_key, failingEvidence('turns-inside'));
      await settleDispatcher();
      const delivery = await onlyDelivery(tenant, webhook_id);
      expect(delivery.status).toBe('pending');
      expect(delivery.attempts[0]?.error).toBe(
        'target refused: turns.hooks.test resolves to 64:ff9b::7f00:1, which is NAT64 (64:ff9b::/96) of 127.0.0.1, in the loopback range 127.0.0.0/8: not allowed as a webhook target (it must be publicly reachable)',
      );
      expect(receiver.received.filter((d) => d.body.tenant_id === tenant.tenant_id)).toHaveLength(0);
    });
  });
});
