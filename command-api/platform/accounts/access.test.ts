import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import pino from 'pino';
import { tableApp } from '../../../runtime/http/app';
import { platformErrors } from '../../../runtime/http/platform-errors';
import type { Access, Route } from '../../../runtime/http/route-table';
import type { AgentKeyHolder, PlatformServices, SessionHolder } from '../services';
import { ADMIN, agentAccess, agentOf, callerOf, SESSION } from './access';
import { hashToken, issueToken } from './tokens';

const PUBLIC_URL = 'http://platform.test:8081';
const NOW = Date.parse('2026-11-27T12:00:00Z');

/** An in-memory agent directory and session source: what the access layer reads. */
class Directory {
  readonly agents = new Map<string, { userId: string; tenantId: string }>();
  readonly keys = new Map<string, AgentKeyHolder>();
  readonly sessions = new Map<string, SessionHolder>();

  session(holder: Omit<SessionHolder, 'expiresAt'>, expiresAt = NOW + 3_600_000): string {
    const token = issueToken();
    this.sessions.set(hashToken(token), { ...holder, expiresAt: new Date(expiresAt).toISOString() });
    return token;
  }

  key(holder: AgentKeyHolder): string {
    const raw = `svc_sk_${issueToken()}`;
    this.keys.set(hashToken(raw), holder);
    return raw;
  }
}

const directory = new Directory();
const alice = directory.session({
  sessionId: 'ses_a',
  userId: 'usr_a',
  email: 'alice@example.com',
  role: 'user',
  tenantId: 'ten_a',
});
const admin = directory.session({
  sessionId: 'ses_b',
  userId: 'usr_b',
  email: 'bob@example.com',
  role: 'admin',
  tenantId: 'ten_b',
});
const expired = directory.session(
  { sessionId: 'ses_x', userId: 'usr_a', email: 'alice@example.com', role: 'user', tenantId: 'ten_a' },
  NOW,
);
directory.agents.set('svc_alice', { userId: 'usr_a', tenantId: 'ten_a' });
directory.agents.set('svc_bob', { userId: 'usr_b', tenantId: 'ten_b' });
const aliceKey = directory.key({
  keyId: 'key_1',
  agentId: 'svc_alice',
  userId: 'usr_a',
  tenantId: 'ten_a',
  scopes: ['memory:read'],
});
const unscopedKey = directory.key({
  keyId: 'key_2',
  agentId: 'svc_alice',
  userId: 'usr_a',
  tenantId: 'ten_a',
  scopes: [],
});

const services = {
  config: { trustProxyHops: 0, maxBodyBytes: 1_000_000, platformPublicUrl: PUBLIC_URL },
  logger: pino({ level: 'silent' }),
  metrics: { httpRequests: { startTimer: () => () => 0 } },
  clock: () => new Date(NOW),
  agentDirectory: {
    ownerOf: async (agentId: string) => directory.agents.get(agentId) ?? null,
    keyByHash: async (hash: string) => directory.keys.get(hash) ?? null,
  },
  sessionDirectory: { byTokenHash: async (hash: string) => directory.sessions.get(hash) ?? null },
} as unknown as PlatformServices;

function route(
  method: 'get' | 'post',
  path: string,
  access: Access<PlatformServices>,
): Route<PlatformServices> {
  return {
    method,
    path,
    access,
    tags: ['test'],
    operationId: `${method}${path}`,
    summary: 'test',
    responses: {},
    handler: () => (_req: Request, res: Response) => {
      res.json({ caller: callerOf(res), agent: res.locals.platformAgent ? agentOf(res) : null });
    },
  };
}

let server: Server;
let base: string;

beforeAll(async () => {
  const app = tableApp(
    [
      {
        mount: '/',
        routes: [
          route('get', '/mine', SESSION),
          route('post', '/mine', SESSION),
          route('post', '/admin', ADMIN),
          route('get', '/v1/agents/:agentId', agentAccess()),
          route('post', '/v1/agents/:agentId', agentAccess()),
          route('get', '/v1/agents/:agentId/memory', agentAccess('memory:read')),
          route('post', '/v1/agents/:agentId/memory', agentAccess('memory:write')),
        ],
      },
    ],
    services,
    'all',
    { errors: platformErrors },
  );
  server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

interface Call {
  session?: string;
  key?: string;
  origin?: string;
  referer?: string;
}

async function call(method: string, path: string, who: Call = {}) {
  const headers: Record<string, string> = {};
  if (who.session) headers.cookie = `theme=dark; gov_session=${who.session}`;
  if (who.key) headers.authorization = `Bearer ${who.key}`;
  if (who.origin) headers.origin = who.origin;
  if (who.referer) headers.referer = who.referer;
  const response = await fetch(`${base}${path}`, { method, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('SESSION', () => {
  it('admits a live session and says who the caller is', async () => {
    const { status, body } = await call('GET', '/mine', { session: alice });
    expect(status).toBe(200);
    expect(body.caller).toEqual({
      kind: 'session',
      sessionId: 'ses_a',
      userId: 'usr_a',
      email: 'alice@example.com',
      role: 'user',
      tenantId: 'ten_a',
    });
  });

  it.each([
    ['no credentials', {}],
    ['an unknown token', { session: issueToken() }],
    ['a malformed token', { session: 'not-a-token' }],
    ['an expired session', { session: expired }],
  ])('answers 401 unauthorized for %s', async (_name, who) => {
    const { status, body } = await call('GET', '/mine', who);
    expect(status).toBe(401);
    expect(body.error).toBe('unauthorized');
  });

  it('answers 401 for an Authorization header that holds no platform key', async () => {
    const { status, body } = await call('GET', '/mine', { key: 'gov_live_0123', session: alice });
    expect([status, body.error]).toEqual([401, 'unauthorized']);
  });

  it('refuses an API key with 403 session_required, even a valid one', async () => {
    const { status, body } = await call('GET', '/mine', { key: aliceKey });
    expect([status, body.error]).toEqual([403, 'session_required']);
  });

  it('checks the Origin (or Referer) of a state-changing request', async () => {
    expect((await call('POST', '/mine', { session: alice, origin: PUBLIC_URL })).status).toBe(200);
    expect((await call('POST', '/mine', { session: alice, referer: `${PUBLIC_URL}/app/x` })).status).toBe(
      200,
    );
    for (const who of [
      { session: alice },
      { session: alice, origin: 'http://evil.test' },
      { session: alice, origin: 'null' },
      { session: alice, referer: 'http://platform.test:9999/' },
      { session: alice, origin: 'http://evil.test', referer: `${PUBLIC_URL}/` },
    ]) {
      const { status, body } = await call('POST', '/mine', who);
      expect([status, body.error]).toEqual([403, 'csrf_rejected']);
    }
  });
});

describe('ADMIN', () => {
  it('admits an admin and refuses a user with 403 forbidden', async () => {
    expect((await call('POST', '/admin', { session: admin, origin: PUBLIC_URL })).status).toBe(200);
    const { status, body } = await call('POST', '/admin', { session: alice, origin: PUBLIC_URL });
    expect([status, body.error]).toEqual([403, 'forbidden']);
  });
});

describe('agentAccess', () => {
  it("admits the owner's session and sets the agent", async () => {
    const { status, body } = await call('GET', '/v1/agents/svc_alice', { session: alice });
    expect(status).toBe(200);
    expect(body.agent).toEqual({ agentId: 'svc_alice', ownerId: 'usr_a', tenantId: 'ten_a' });
  });

  it("answers 404 for another user's agent and for an unknown one", async () => {
    for (const path of ['/v1/agents/svc_bob', '/v1/agents/svc_nobody']) {
      const { status, body } = await call('GET', path, { session: alice });
      expect([status, body.error]).toEqual([404, 'not_found']);
    }
  });

  it('admits a key of the agent holding the scope, and an unscoped key', async () => {
    const scoped = await call('GET', '/v1/agents/svc_alice/memory', { key: aliceKey });
    expect(scoped.status).toBe(200);
    expect(scoped.body.caller).toEqual({
      kind: 'key',
      keyId: 'key_1',
      agentId: 'svc_alice',
      userId: 'usr_a',
      tenantId: 'ten_a',
      scopes: ['memory:read'],
    });
    expect((await call('POST', '/v1/agents/svc_alice/memory', { key: unscopedKey })).status).toBe(200);
  });

  it('refuses a key without the scope, and a key of another agent, with 403 forbidden', async () => {
    const unscoped = await call('POST', '/v1/agents/svc_alice/memory', { key: aliceKey });
    expect([unscoped.status, unscoped.body.error]).toEqual([403, 'forbidden']);
    const other = await call('GET', '/v1/agents/svc_bob', { key: aliceKey });
    expect([other.status, other.body.error]).toEqual([403, 'forbidden']);
  });

  it('answers 401 without credentials, and for an unknown or malformed key', async () => {
    for (const who of [{}, { key: `svc_sk_${issueToken()}` }, { key: 'gov_live_x' }]) {
      const { status, body } = await call('GET', '/v1/agents/svc_alice', who);
      expect([status, body.error]).toEqual([401, 'unauthorized']);
    }
  });

  it('checks CSRF for a session but not for a key', async () => {
    const session = await call('POST', '/v1/agents/svc_alice', { session: alice });
    expect([session.status, session.body.error]).toEqual([403, 'csrf_rejected']);
    expect((await call('POST', '/v1/agents/svc_alice', { key: aliceKey })).status).toBe(200);
    expect((await call('POST', '/v1/agents/svc_alice', { session: alice, origin: PUBLIC_URL })).status).toBe(
      200,
    );
  });
});
