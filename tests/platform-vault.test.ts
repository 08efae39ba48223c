/**
 * The BYOK vault, quota reads, the event log and feature gating over HTTP, against the started server:
 * a key stored, listed by prefix, opened by `vaultKeyFor`, replaced and deleted; owner and key scoping
 * and CSRF on every route; refusals that append nothing; no raw key in any answer, log line, event or
 * file of the data folder; a server with another master key that opens nothing and stores nothing;
 * the event log's pages and what it leaves out; the quota of a tier and its roll-up; a route gated
 * above L1 refusing a lower tier with `required_tier`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Request, Response } from 'express';
import { agentAccess, SESSION } from '../command-api/platform/accounts/access';
import { userStream } from '../command-api/platform/accounts/user-state';
import { agentIdParameter } from '../command-api/platform/agents/agent-http';
import { requireFeature } from '../command-api/platform/quota/feature-gate';
import type { PlatformServices } from '../command-api/platform/services';
import { VaultLockedError, vaultKeyFor } from '../command-api/platform/vault/vault-keys';
import { userIdOfEmail } from '../domain/platform/ids';
import { vaultMasterKeyId } from '../domain/platform/vault';
import { validateResponse } from '../event-schemas';
import { loadConfig } from '../runtime/config/config';
import { tableApp } from '../runtime/http/app';
import { platformErrors } from '../runtime/http/platform-errors';
import type { RouteTable } from '../runtime/http/route-table';
import { createLogger } from '../runtime/support/logger';
import { runGov } from './support/children';
import { setTier } from './support/governance-client';
import { type Credentials, type PlatformSuite, session, usePlatformSuite } from './support/platform-client';

const MASTER_A = randomBytes(32).toString('hex');
const MASTER_B = randomBytes(32).toString('hex');
const env: Record<string, string> = { GOV_VAULT_KEY: MASTER_A };
const logLines: string[] = [];
/** Every answer body of the suite, searched for raw keys at the end. */
const answers: string[] = [];

let { server, client, alice, bob } = {} as PlatformSuite;
usePlatformSuite('gov-platform-vault-', (suite) => ({ server, client, alice, bob } = suite), {
  env,
  logger: createLogger('trace', { write: (line: string) => void logLines.push(line) }),
});

/** The answer's body, checked against its response schema. */
function conforms(body: unknown, name: Parameters<typeof validateResponse>[0]): void {
  expect(validateResponse(name, body)).toEqual({ ok: true, value: body });
}
const platform = (): PlatformServices => server.server.platform;

async function call<T = Record<string, unknown>>(
  method: string,
  route: string,
  credentials: Credentials,
  body?: unknown,
  headers?: Record<string, string>,
) {
  const answer = await client.request<T>(method, route, credentials, body, headers);
  answers.push(JSON.stringify(answer.body));
  return answer;
}

async function createAgent(user: { cookie: string }): Promise<string> {
  const answer = await call<{ agent: { agent_id: string } }>('POST', '/v1/agents', session(user), {});
  expect(answer.status).toBe(201);
  return answer.body.agent.agent_id;
}

async function createKey(user: { cookie: string }, agentId: string, scopes?: string[]): Promise<string> {
  const answer = await call<{ raw_key: string }>(
    'POST',
    `/v1/agents/${agentId}/api-keys`,
    session(user),
    scopes ? { scopes } : {},
  );
  expect(answer.status).toBe(201);
  return answer.body.raw_key;
}

async function streamLength(stream: string): Promise<number> {
  let n = 0;
  for await (const _event of platform().eventStore.readStream(stream)) n++;
  return n;
}

/** A provider key with a distinctive middle, as providers issue them (long, printable). */
function providerKey(label: string): string {
  return `sk-proj-${label}${randomBytes(24).toString('base64url')}`;
}

const STORED = {
  agent_id: expect.stringMatching(/^svc_/),
  provider: 'openai',
  prefix: 'sk-proj-…',
  stored_at: expect.any(String),
  replaced: false,
};

describe('the vault', () => {
  it('given a session, when a key is stored, listed, replaced and deleted, then only provider and prefix are answered and vaultKeyFor opens the key in force', async () => {
    const agentId = await createAgent(alice);
    const vault = `/v1/agents/${agentId}/vault`;
    expect(await call('GET', vault, session(alice))).toMatchObject({
      status: 200,
      body: { agent_id: agentId, keys: [] },
    });
    const first = providerKey('FIRSTKEY');
    const put = await call('PUT', vault, session(alice), { provider: 'openai', api_key: first });
    expect(put).toMatchObject({ status: 200, body: { ...STORED, agent_id: agentId } });
    conforms(put.body, 'vault-stored');
    expect(await vaultKeyFor(platform(), agentId, 'openai')).toBe(first);

    const second = providerKey('SECONDKEY');
    const replaced = await call('PUT', vault, session(alice), { provider: 'openai', api_key: second });
    expect(replaced.body).toMatchObject({ replaced: true });
    const anthropic = `sk-ant-api03-${randomBytes(30).toString('base64url')}`;
    await call('PUT', vault, session(alice), { provider: 'anthropic', api_key: anthropic });
    expect(await vaultKeyFor(platform(), agentId, 'openai')).toBe(second);
    expect(await vaultKeyFor(platform(), agentId, 'anthropic')).toBe(anthropic);
    expect(await vaultKeyFor(platform(), agentId, 'google')).toBeNull();

    const listed = await call<{ keys: unknown[] }>('GET', vault, session(alice));
    conforms(listed.body, 'vault-list');
    expect(listed.body).toEqual({
      agent_id: agentId,
      keys: [
        { provider: 'anthropic', prefix: 'sk-ant-a…', stored_at: expect.any(String) },
        { provider: 'openai', prefix: 'sk-proj-…', stored_at: replaced.body.stored_at },
      ],
    });

    const deleted = await call('DELETE', `${vault}?provider=openai`, session(alice));
    expect(deleted).toMatchObject({
      status: 200,
      body: { agent_id: agentId, provider: 'openai', deleted: true, deleted_at: expect.any(String) },
    });
    conforms(deleted.body, 'vault-deleted');
    expect(await vaultKeyFor(platform(), agentId, 'openai')).toBeNull();
    expect((await call<{ keys: unknown[] }>('GET', vault, session(alice))).body.keys).toHaveLength(1);
    expect(await call('DELETE', `${vault}?provider=openai`, session(alice))).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
  });

  it("given one user's agents, then each agent's keys are its own (one data key for the user)", async () => {
    const one = await createAgent(alice);
    const two = await createAgent(alice);
    const key = providerKey('AGENTONE');
    await call('PUT', `/v1/agents/${one}/vault`, session(alice), { provider: 'google', api_key: key });
    expect(await vaultKeyFor(platform(), two, 'google')).toBeNull();
    expect(
      (await call<{ keys: unknown[] }>('GET', `/v1/agents/${two}/vault`, session(alice))).body.keys,
    ).toEqual([]);
    let dataKeys = 0;
    for await (const event of platform().eventStore.readStream(userStream(userIdOfEmail(alice.email))))
      if (event.type === 'VaultDataKeyCreated') dataKeys++;
    expect(dataKeys).toBe(1);
  });

  it('given callers other than the owner or a key with the scope, then 401, 404, 403, and nothing is appended', async () => {
    const agentId = await createAgent(alice);
    const other = await createAgent(alice);
    const vault = `/v1/agents/${agentId}/vault`;
    const writer = await createKey(alice, agentId, ['agent:write']);
    const reader = await createKey(alice, agentId, ['agent:read']);
    const chat = await createKey(alice, agentId, ['chat']);
    const otherKey = await createKey(alice, other);
    const body = { provider: 'openai', api_key: providerKey('SCOPED') };
    const stream = userStream(userIdOfEmail(alice.email));
    const before = await streamLength(stream);

    const refusals: Array<[string, string, Credentials, unknown, number, string, Record<string, string>?]> = [
      ['GET', vault, null, undefined, 401, 'unauthorized'],
      ['PUT', vault, null, body, 401, 'unauthorized'],
      ['DELETE', `${vault}?provider=openai`, null, undefined, 401, 'unauthorized'],
      ['GET', vault, session(bob), undefined, 404, 'not_found'],
      ['PUT', vault, session(bob), body, 404, 'not_found'],
      ['DELETE', `${vault}?provider=openai`, session(bob), undefined, 404, 'not_found'],
      ['GET', vault, { key: otherKey }, undefined, 403, 'forbidden'],
      ['PUT', vault, { key: otherKey }, body, 403, 'forbidden'],
      ['GET', vault, { key: chat }, undefined, 403, 'forbidden'],
      ['PUT', vault, { key: reader }, body, 403, 'forbidden'],
      ['DELETE', `${vault}?provider=openai`, { key: reader }, undefined, 403, 'forbidden'],
      ['PUT', vault, session(alice), body, 403, 'csrf_rejected', { origin: 'https://evil.example' }],
      [
        'DELETE',
        `${vault}?provider=openai`,
        session(alice),
        undefined,
        403,
        'csrf_rejected',
        { origin: 'https://evil.example' },
      ],
      ['PUT', vault, session(alice), { provider: 'acme', api_key: body.api_key }, 400, 'invalid_request'],
      ['PUT', vault, session(alice), { provider: 'openai', api_key: 'short' }, 400, 'invalid_request'],
      [
        'PUT',
        vault,
        session(alice),
        { provider: 'openai', api_key: 'has a space in it, twenty+' },
        400,
        'invalid_request',
      ],
      ['PUT', vault, session(alice), { ...body, note: 'x' }, 400, 'invalid_request'],
      ['DELETE', vault, session(alice), undefined, 400, 'invalid_request'],
      ['DELETE', `${vault}?provider=acme`, session(alice), undefined, 400, 'invalid_request'],
      ['DELETE', `${vault}?provider=google`, session(alice), undefined, 404, 'not_found'],
    ];
    for (const [method, route, credentials, sent, status, error, headers] of refusals) {
      const answer = await call(method, route, credentials, sent, headers);
      expect([method, route, status, error, answer.status, answer.body.error]).toEqual([
        method,
        route,
        status,
        error,
        status,
        error,
      ]);
      expect(typeof answer.body.detail).toBe('string');
    }
    expect(await streamLength(stream)).toBe(before);
    expect(await streamLength(userStream(userIdOfEmail(bob.email)))).toBeGreaterThan(0);

    expect((await call('PUT', vault, { key: writer }, body)).status).toBe(200);
    expect((await call('GET', vault, { key: reader })).status).toBe(200);
    expect((await call('DELETE', `${vault}?provider=openai`, { key: writer })).status).toBe(200);
  });

  it('given a stored key, then neither it nor a distinctive part of it is in any answer, log line, event or file of the data folder', async () => {
    const agentId = await createAgent(alice);
    const marker = `VAULTMARKER${randomBytes(9).toString('hex')}`;
    const raw = `sk-proj-${marker}${randomBytes(12).toString('hex')}`;
    await call('PUT', `/v1/agents/${agentId}/vault`, session(alice), { provider: 'openai', api_key: raw });
    await call('GET', `/v1/agents/${agentId}/vault`, session(alice));
    await call('GET', `/v1/agents/${agentId}/event-log`, session(alice));
    expect(await vaultKeyFor(platform(), agentId, 'openai')).toBe(raw);
    // A refused write names what is wrong, never the key it was sent.
    const refusedMarker = `REFUSEDMARKER${randomBytes(9).toString('hex')}`;
    const refusedKey = `sk-${refusedMarker}${randomBytes(12).toString('hex')}`;
    for (const body of [
      { provider: 'acme', api_key: refusedKey },
      { provider: 'openai', api_key: `${refusedKey} x` },
      { provider: 'openai', api_key: refusedKey.repeat(20) },
    ])
      expect((await call('PUT', `/v1/agents/${agentId}/vault`, session(alice), body)).status).toBe(400);
    const needles = [raw, marker, raw.slice(10, 30), refusedKey, refusedMarker];

    for (const needle of needles) {
      expect(answers.filter((answer) => answer.includes(needle))).toEqual([]);
      expect(logLines.filter((line) => line.includes(needle))).toEqual([]);
    }
    const events: string[] = [];
    for await (const event of platform().eventStore.readAll()) events.push(JSON.stringify(event));
    for (const needle of needles) expect(events.filter((event) => event.includes(needle))).toEqual([]);
    // Every file the server wrote (event store, read models, their WAL files), bytes as they are.
    const files = listFiles(server.dataDir).filter((file) => !file.includes(`${path.sep}keys${path.sep}`));
    expect(files.some((file) => file.endsWith('events.db'))).toBe(true);
    expect(files.some((file) => file.endsWith('read-models.db'))).toBe(true);
    let emailFound = false;
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      for (const needle of needles) expect([file, bytes.includes(needle)]).toEqual([file, false]);
      emailFound ||= bytes.includes(alice.email);
    }
    // The search does find what the files hold in clear.
    expect(emailFound).toBe(true);
  });

  it('given a server started with another master key, then it opens nothing and stores nothing (fails closed), and lists prefixes still; the right key opens again', async () => {
    const agentId = await createAgent(alice);
    const raw = providerKey('LOCKED');
    await call('PUT', `/v1/agents/${agentId}/vault`, session(alice), { provider: 'openai', api_key: raw });
    const stream = userStream(userIdOfEmail(alice.email));
    env.GOV_VAULT_KEY = MASTER_B;
    await server.restart();
    try {
      await expect(vaultKeyFor(platform(), agentId, 'openai')).rejects.toThrow(VaultLockedError);
      const before = await streamLength(stream);
      const put = await call('PUT', `/v1/agents/${agentId}/vault`, session(alice), {
        provider: 'google',
        api_key: providerKey('NEVER'),
      });
      expect(put).toMatchObject({ status: 503, body: { error: 'service_unavailable' } });
      expect(await streamLength(stream)).toBe(before);
      expect(logLines.some((line) => line.includes('vault locked'))).toBe(true);
      expect((await call('GET', `/v1/agents/${agentId}/vault`, session(alice))).body).toMatchObject({
        keys: [{ provider: 'openai', prefix: 'sk-proj-…' }],
      });
    } finally {
      env.GOV_VAULT_KEY = MASTER_A;
      await server.restart();
    }
    expect(await vaultKeyFor(platform(), agentId, 'openai')).toBe(raw);
  }, 60_000);

  it('given gov keys show, then it names the master key in use by its id, never the key', async () => {
    const shown = await runGov(['keys', 'show'], {
      dataDir: server.dataDir,
      env: { GOV_VAULT_KEY: MASTER_A },
    });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`${vaultMasterKeyId(Buffer.from(MASTER_A, 'hex'))}  (GOV_VAULT_KEY)`);
    expect(shown.stdout).not.toContain(MASTER_A);
    const file = await runGov(['keys', 'show'], { dataDir: server.dataDir, env: { GOV_VAULT_KEY: '' } });
    const fileKey = fs.readFileSync(path.join(server.dataDir, 'keys', 'vault-master.key'), 'utf8').trim();
    expect(file.stdout).toContain(vaultMasterKeyId(Buffer.from(fileKey, 'base64')));
    expect(file.stdout).not.toContain(fileKey);
  });

  it('given the first start, then a master key file was made (the key when GOV_VAULT_KEY is unset); a malformed GOV_VAULT_KEY is refused without quoting it', () => {
    const file = path.join(server.dataDir, 'keys', 'vault-master.key');
    expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const secretish = 'zz'.repeat(32);
    expect(() => loadConfig({ GOV_VAULT_KEY: secretish })).toThrow(/GOV_VAULT_KEY must be 64 hex/);
    try {
      loadConfig({ GOV_VAULT_KEY: secretish });
    } catch (error) {
      expect((error as Error).message).not.toContain(secretish);
    }
  });
});

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

type LogEvent = {
  type: string;
  revision: number;
  position: number;
  recorded_at: string;
  data: Record<string, unknown>;
};
type LogPage = { agent_id: string; events: LogEvent[]; next_cursor: string | null };

describe('the event log', () => {
  it("given an agent's history, then its events newest first, paged to the end, with private members left out", async () => {
    const agentId = await createAgent(alice);
    await call('PATCH', `/v1/agents/${agentId}`, session(alice), { model: 'm2' });
    await call('POST', `/v1/agents/${agentId}/start`, session(alice));
    await call('POST', `/v1/agents/${agentId}/stop`, session(alice));
    const reader = await createKey(alice, agentId, ['agent:read']);
    const stored: Array<{ type: string; revision: number; data: Record<string, unknown> }> = [];
    for await (const event of platform().eventStore.readStream(`agent-${agentId}`))
      stored.push({
        type: event.type,
        revision: event.revision,
        data: event.data as Record<string, unknown>,
      });

    const seen: LogEvent[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page: { status: number; body: LogPage } = await call<LogPage>(
        'GET',
        `/v1/agents/${agentId}/event-log${query}`,
        { key: reader },
      );
      expect(page.status).toBe(200);
      conforms(page.body, 'agent-event-log');
      expect(page.body.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.events);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.map((event) => event.revision)).toEqual(stored.map((event) => event.revision).reverse());
    expect(seen.map((event) => event.type)).toEqual(stored.map((event) => event.type).reverse());

    const text = JSON.stringify(seen);
    const secrets = stored.flatMap(({ data }) =>
      ['nonce', 'key_hash'].flatMap((name) => (typeof data[name] === 'string' ? [data[name] as string] : [])),
    );
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const secret of secrets) expect(text).not.toContain(secret);
    const created = seen.find((event) => event.type === 'ApiKeyCreated');
    expect(created?.data).toEqual({
      key_id: expect.stringMatching(/^key_/),
      name: null,
      prefix: expect.stringMatching(/^svc_sk_/),
      scopes: ['agent:read'],
      created_at: expect.any(String),
    });
    const versioned = seen.find((event) => event.type === 'AgentConfigVersioned');
    expect(versioned?.data.leaf_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(versioned?.data).not.toHaveProperty('config');
    expect(versioned?.data).not.toHaveProperty('record');
  });

  it('given a bad limit or cursor, or callers other than the owner or a reading key, then 400, 401, 404, 403', async () => {
    const agentId = await createAgent(alice);
    const route = `/v1/agents/${agentId}/event-log`;
    const chat = await createKey(alice, agentId, ['chat']);
    for (const query of ['?limit=0', '?limit=201', '?limit=x', '?cursor=bm9wZQ', '?page=2'])
      expect((await call('GET', `${route}${query}`, session(alice))).body).toMatchObject({
        error: 'invalid_request',
      });
    expect((await call('GET', route, null)).status).toBe(401);
    expect((await call('GET', route, session(bob))).status).toBe(404);
    expect((await call('GET', route, { key: chat })).status).toBe(403);
  });
});

describe('quota', () => {
  it("given an L1 owner, then the agent's quota (and its billing alias) says the tier's daily limit, none used", async () => {
    const agentId = await createAgent(alice);
    const reader = await createKey(alice, agentId, ['agent:read']);
    const quota = await call('GET', `/v1/agents/${agentId}/quota`, session(alice));
    expect(quota).toMatchObject({
      status: 200,
      body: {
        agent_id: agentId,
        email: alice.email,
        tier: 'L1',
        allowed: true,
        remaining: 500,
        limit: 500,
        used: 0,
        resets_at: expect.stringMatching(/T00:00:00\.000Z$/),
      },
    });
    conforms(quota.body, 'agent-quota');
    expect(Date.parse(quota.body.resets_at as string) - platform().clock().getTime()).toBeLessThanOrEqual(
      86_400_000,
    );
    expect((await call('GET', `/v1/agents/${agentId}/billing`, { key: reader })).body).toEqual(quota.body);
    const other = await createKey(alice, await createAgent(alice));
    const chat = await createKey(alice, agentId, ['chat']);
    for (const route of [`/v1/agents/${agentId}/quota`, `/v1/agents/${agentId}/billing`]) {
      expect((await call('GET', route, null)).status).toBe(401);
      expect((await call('GET', route, session(bob))).status).toBe(404);
      expect((await call('GET', route, { key: other })).body).toMatchObject({ error: 'forbidden' });
      expect((await call('GET', route, { key: chat })).body).toMatchObject({ error: 'forbidden' });
    }
  });

  it("given a session, then the tenant summary rolls up the user's agents; a key or nobody is refused", async () => {
    const carol = await client.newUser('carol');
    const one = await createAgent(carol);
    // The test clock stands still: a second later, so "newest first" has one answer.
    server.clock.advance(1000);
    const two = await createAgent(carol);
    const summary = await call<Record<string, unknown>>('GET', '/v1/billing/tenant-summary', session(carol));
    expect(summary).toMatchObject({
      status: 200,
      body: {
        email: carol.email,
        tenant_id: expect.stringMatching(/^ten_/),
        tier: 'L1',
        limit_per_agent: 500,
        used: 0,
        agents: [
          { agent_id: two, allowed: true, remaining: 500, used: 0 },
          { agent_id: one, allowed: true, remaining: 500, used: 0 },
        ],
      },
    });
    conforms(summary.body, 'tenant-quota-summary');
    const key = await createKey(carol, one);
    expect((await call('GET', '/v1/billing/tenant-summary', { key })).body).toMatchObject({
      error: 'session_required',
    });
    expect((await call('GET', '/v1/billing/tenant-summary', null)).status).toBe(401);
  });
});

describe('feature gating', () => {
  /** Routes gated above L1, served by the route table machinery with the server's own services. */
  const gated: RouteTable<PlatformServices> = [
    {
      mount: '/',
      routes: [
        {
          method: 'get',
          path: '/v1/agents/:agentId/schedules',
          access: agentAccess('agent:read'),
          params: [agentIdParameter],
          use: requireFeature('schedules'),
          tags: ['agents'],
          operationId: 'probeSchedules',
          summary: 'A route of an L2 feature',
          responses: {},
          handler: () => (_req: Request, res: Response) => void res.json({ served: true }),
        },
        {
          method: 'get',
          path: '/v1/sub-agents-probe',
          access: SESSION,
          use: requireFeature('sub_agents'),
          tags: ['agents'],
          operationId: 'probeSubAgents',
          summary: 'A collection route of an L2+ feature',
          responses: {},
          handler: () => (_req: Request, res: Response) => void res.json({ served: true }),
        },
      ],
    },
  ];

  it('given an L1 owner, then 403 feature_requires_upgrade naming the tier; after gov tenant tier L2, the L2 route serves and the L2+ one still refuses', async () => {
    const dave = await client.newUser('dave');
    const agentId = await createAgent(dave);
    const app = tableApp(gated, platform(), 'all', { errors: platformErrors });
    const listener = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listener.once('listening', () => resolve()));
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    const get = async (route: string, credentials: Credentials) => {
      const response = await fetch(`${base}${route}`, {
        headers:
          credentials && 'cookie' in credentials ? { cookie: `gov_session=${credentials.cookie}` } : {},
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    try {
      expect(await get(`/v1/agents/${agentId}/schedules`, null)).toMatchObject({ status: 401 });
      expect(await get(`/v1/agents/${agentId}/schedules`, session(dave))).toEqual({
        status: 403,
        body: {
          error: 'feature_requires_upgrade',
          detail: expect.stringContaining('L2'),
          required_tier: 'L2',
        },
      });
      // What is enforced is what /v1/capabilities advertises: one table.
      const catalog = await call<{
        features: Array<{ feature: string; required_tier: string; tiers: string[] }>;
      }>('GET', '/v1/capabilities', null);
      const entry = (feature: string) => catalog.body.features.find((item) => item.feature === feature);
      expect(entry('schedules')).toMatchObject({ required_tier: 'L2', tiers: ['L2', 'L2+', 'L4'] });
      expect(entry('sub_agents')).toMatchObject({ required_tier: 'L2+' });
      for (const feature of ['vault', 'quota', 'event_log'])
        expect(entry(feature)).toMatchObject({ required_tier: 'L1', available: true });
      const me = await call<{ tenant_id: string }>('GET', '/v1/auth/me', session(dave));
      await setTier(server.server, me.body.tenant_id, 'L2');
      // An operator's tier change reaches the platform's callers within a second (the owner's tenant is
      // remembered that long).
      for (let waited = 0; waited < 2000; waited += 50) {
        if ((await get(`/v1/agents/${agentId}/schedules`, session(dave))).status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await get(`/v1/agents/${agentId}/schedules`, session(dave))).toEqual({
        status: 200,
        body: { served: true },
      });
      expect(await get('/v1/sub-agents-probe', session(dave))).toMatchObject({
        status: 403,
        body: { error: 'feature_requires_upgrade', required_tier: 'L2+' },
      });
      expect((await call('GET', `/v1/agents/${agentId}/quota`, session(dave))).body).toMatchObject({
        tier: 'L2',
        limit: 10_000,
        remaining: 10_000,
      });
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('given the OpenAPI document, then it lists the vault, quota and event-log operations, each with its security', async () => {
    const doc = await call<{ paths: Record<string, Record<string, { security?: unknown[] }>> }>(
      'GET',
      '/openapi.json',
      null,
    );
    const operations = Object.entries(doc.body.paths).flatMap(([route, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) => [`${method.toUpperCase()} ${route}`, operation] as const,
      ),
    );
    const ours = operations
      .map(([name]) => name)
      .filter((name) => /vault|quota|billing|event-log/.test(name))
      .sort();
    expect(ours).toEqual(
      [
        'DELETE /v1/agents/{agentId}/vault',
        'GET /v1/agents/{agentId}/billing',
        'GET /v1/agents/{agentId}/event-log',
        'GET /v1/agents/{agentId}/quota',
        'GET /v1/agents/{agentId}/vault',
        'GET /v1/billing/tenant-summary',
        'PUT /v1/agents/{agentId}/vault',
      ].sort(),
    );
    for (const [name, operation] of operations.filter(([name]) => ours.includes(name)))
      expect([name, (operation.security ?? []).length > 0]).toEqual([name, true]);
  });
});
