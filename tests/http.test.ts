import path from 'node:path';
import { collect } from '../ports/contract/event-store.contract';
import { loadConfig } from '../runtime/config/config';
import { createLogger } from '../runtime/support/logger';
import { type RunningServer, startEmbedded } from '../runtime/wiring/embedded';
import { setTier } from './support/governance-client';
import { tempDir } from './support/temp-dir';

describe('the embedded server over HTTP', () => {
  let server: RunningServer;
  let remove: () => void;
  beforeAll(async () => {
    const temp = tempDir('gov-http');
    remove = temp.remove;
    const config = loadConfig({
      GOV_PORT: '0',
      GOV_PLATFORM_PORT: '0',
      GOV_HOST: '127.0.0.1',
      GOV_DATA_DIR: path.join(temp.dir, 'data'),
      GOV_MAX_BODY_BYTES: '4096',
    });
    server = await startEmbedded(config, createLogger('silent'));
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  const post = (
    route: string,
    body: string,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ) => fetch(`${server.url}${route}`, { method: 'POST', body, headers });
  const eventCount = async () => (await collect(server.services.eventStore.readAll())).length;

  it('GET /health answers with the service, its bindings, upstream status and role (all: no leases)', async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    const health = await res.json();
    expect(health).toMatchObject({
      status: 'ok',
      service: 'gov-clearinghouse',
      version: expect.any(String),
      runtime: expect.stringMatching(/^node v/),
      engine: { package: 'gov-clearinghouse' },
      bindings: { event_store: true, read_store: true, bus: true },
      upstream: { event_store: 'healthy', read_store: 'healthy' },
      role: 'all',
    });
    // Its sequencer, projectors and forwarder are alone in the process: no lease to contend for.
    expect(health.leases).toEqual({});
  });

  it('GET /v1/metrics serves Prometheus text with projector metrics', async () => {
    const res = await fetch(`${server.url}/v1/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/gov_projector_lag_events/);
    expect(text).toMatch(/gov_process_resident_memory_bytes/);
  });

  it('given a new user, when they register, then the key works at once and only its hash is stored', async () => {
    const res = await post(
      '/auto-register',
      JSON.stringify({ email: 'ada@example.com', organization: 'Analytical' }),
    );
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, string>;
    expect(body).toMatchObject({
      api_key: expect.stringMatching(/^gov_live_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/),
      tenant_id: expect.stringMatching(/^ten_/),
      node_id: expect.stringMatching(/^node_/),
      log_url: `${server.url}/gov/v1/log`,
      dashboard_url: `${server.url}/dashboard`,
    });
    const account = await fetch(`${server.url}/account`, {
      headers: { authorization: `Bearer ${body.api_key}` },
    });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({
      tenant_id: body.tenant_id,
      email: 'ada@example.com',
      tier: 'L1',
      log: 'shared',
      log_url: `${server.url}/gov/v1/log`,
    });
    const stored = JSON.stringify(await collect(server.services.eventStore.readAll()));
    expect(stored).not.toContain(body.api_key!);
  });

  it('test mode issues gov_test_ keys, and names the test log as the tenant’s', async () => {
    const res = await post('/auto-register', JSON.stringify({ email: 'test@example.com', mode: 'test' }));
    const body = (await res.json()) as { api_key: string; log_url: string };
    expect(body.api_key).toMatch(/^gov_test_/);
    expect(body.log_url).toBe(`${server.url}/gov/v1/logs/test`);
    const account = await fetch(`${server.url}/account`, {
      headers: { authorization: `Bearer ${body.api_key}` },
    });
    expect(await account.json()).toMatchObject({ log: 'test', log_url: `${server.url}/gov/v1/logs/test` });
  });

  it('given a tenant moved to L4, then /account names its dedicated log', async () => {
    const res = await post('/auto-register', JSON.stringify({ email: 'l4@example.com' }));
    const body = (await res.json()) as { api_key: string; tenant_id: string };
    await setTier(server, body.tenant_id, 'L4');
    const account = await fetch(`${server.url}/account`, {
      headers: { authorization: `Bearer ${body.api_key}` },
    });
    const log = `dedicated-${body.tenant_id.slice('ten_'.length)}`;
    expect(await account.json()).toMatchObject({
      tier: 'L4',
      log,
      log_url: `${server.url}/gov/v1/logs/${log}`,
    });
  });

  it.each([
    ['no header', undefined],
    ['a malformed key', 'Bearer nope'],
    ['an unknown key', `Bearer gov_live_0123456789abcdef_${'A'.repeat(43)}`],
  ])('GET /account with %s answers 401 UNAUTHORIZED', async (_name, authorization) => {
    const res = await fetch(`${server.url}/account`, { headers: authorization ? { authorization } : {} });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'UNAUTHORIZED', message: expect.any(String) });
  });

  describe('bad input at the edge: 400 INVALID_REQUEST naming each field, nothing appended', () => {
    it.each([
      [
        'fields of the wrong kind',
        JSON.stringify({ email: 'not-an-email', mode: 'prod', extra: 1 }),
        ['/email', '/mode', '/extra'],
      ],
      ['a missing field', JSON.stringify({}), ['/email']],
      ['a body that is not an object', JSON.stringify([1, 2]), ['']],
      ['invalid JSON', '{"email": ', ['']],
      ['prototype-pollution keys', '{"email":"a@example.com","__proto__":{"admin":true}}', ['/__proto__']],
    ])('%s', async (_name, body, pointers) => {
      const before = await eventCount();
      const res = await post('/auto-register', body);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as {
        error: string;
        message: string;
        fields: { pointer: string; reason: string }[];
      };
      expect(answer.error).toBe('INVALID_REQUEST');
      expect(answer.fields.map((f) => f.pointer).sort()).toEqual([...pointers].sort());
      for (const field of answer.fields) expect(field.reason.length).toBeGreaterThan(5);
      expect(await eventCount()).toBe(before);
    });

    it('a body that is not JSON at all', async () => {
      const before = await eventCount();
      const res = await post('/auto-register', 'email=a@example.com', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'INVALID_REQUEST', fields: [{ pointer: '' }] });
      expect(await eventCount()).toBe(before);
    });

    it('an oversize body answers 413 with the limit', async () => {
      const before = await eventCount();
      const res = await post(
        '/auto-register',
        JSON.stringify({ email: 'a@example.com', organization: 'x'.repeat(10_000) }),
      );
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({
        error: 'PAYLOAD_TOO_LARGE',
        message: expect.stringMatching(/4096/),
      });
      expect(await eventCount()).toBe(before);
    });
  });

  it('an unknown route answers 404 in the same error shape', async () => {
    const res = await fetch(`${server.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'NOT_FOUND' });
  });

  it('given OPTIONS on an API route, then it is an unmatched method (404 in the error shape), while the public log answers CORS preflight', async () => {
    for (const route of ['/webhooks', '/webhooks/wh_1', '/governance/evidence', '/account']) {
      const res = await fetch(`${server.url}${route}`, { method: 'OPTIONS' });
      expect(res.status).toBe(404);
      expect(res.headers.get('allow')).toBeNull();
      expect(await res.json()).toMatchObject({
        error: 'NOT_FOUND',
        message: `no route for OPTIONS ${route}`,
      });
    }
    const preflight = await fetch(`${server.url}/gov/v1/log/sth`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
  });

  it('echoes a correlation id, or makes one', async () => {
    const mine = await fetch(`${server.url}/health`, { headers: { 'x-correlation-id': 'req-42' } });
    expect(mine.headers.get('x-correlation-id')).toBe('req-42');
    const made = await fetch(`${server.url}/health`);
    expect(made.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
