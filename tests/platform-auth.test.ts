/**
 * Accounts of the agent platform against the started server: sign-in by a link received by a real SMTP
 * server (the `smtp-server` package) in the test, the session cookie, /v1/auth/me, link reuse and
 * expiry, sign-out, session listing and revocation, CSRF, key callers on session routes, WebSocket
 * tickets, a restart, the admin role granted by the gov CLI, and nothing secret in the server's log.
 */
import { redeemTicket } from '../command-api/platform/accounts/ws-tickets';
import type { AgentDirectory } from '../command-api/platform/services';
import { hashApiKey, userIdOfEmail } from '../domain/platform/ids';
import { validateResponse } from '../event-schemas/validation';
import { createLogger } from '../runtime/support/logger';
import { runGov } from './support/children';
import { MINUTE_MS, setTier, startTestServer } from './support/governance-client';
import { signInLinkOf } from './support/mail-catcher';
import { type PlatformTestServer, startPlatformTestServer } from './support/platform-client';

let server: PlatformTestServer;
const logLines: string[] = [];
/** Every secret and address the flow saw: none may be in the server's log. */
const secrets: { name: string; value: string }[] = [];

const AGENT_A = `svc_${'a'.repeat(26)}`;
const AGENT_B = `svc_${'b'.repeat(26)}`;
const agents = new Map<string, { userId: string; tenantId: string }>();
const directory: AgentDirectory = {
  ownerOf: async (agentId) => agents.get(agentId) ?? null,
  keyByHash: async () => null,
};

beforeAll(async () => {
  server = await startPlatformTestServer('gov-platform-auth-', {
    env: { GOV_SIGN_INS_PER_IP_HOUR: '1000' },
    logger: createLogger('trace', {
      write: (line: string) => {
        logLines.push(line);
      },
    }),
  });
  // Until the agents feature is merged, the agents the tickets are for come from an in-memory directory.
  server.server.platform.agentDirectory = directory;
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

const url = (path: string) => `${server.server.platformUrl}${path}`;
const origin = () => new URL(server.server.platformUrl).origin;

interface Call {
  cookie?: string;
  origin?: string | null;
  key?: string;
  json?: unknown;
  accept?: string;
}

async function call(method: string, path: string, options: Call = {}) {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = `gov_session=${options.cookie}`;
  // A browser's state-changing request carries its page's Origin; null leaves it out.
  const sentOrigin = options.origin === undefined ? origin() : options.origin;
  if (sentOrigin && method !== 'GET') headers.origin = sentOrigin;
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.accept) headers.accept = options.accept;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url(path), {
    method,
    headers,
    redirect: 'manual',
    ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : null) as Record<string, unknown>,
  };
}

/** Asks for a link for `email` and returns the link the SMTP server received. */
async function requestLink(email: string): Promise<string> {
  const before = server.mail.mails.length;
  const answer = await call('POST', '/v1/auth/login', { json: { email }, origin: null });
  expect(answer.status).toBe(202);
  expect(server.mail.mails.length).toBe(before + 1);
  const link = signInLinkOf(await server.mail.next(email.toLowerCase(), before));
  const token = new URL(link).searchParams.get('token')!;
  secrets.push(
    { name: `sign-in token for ${email}`, value: token },
    { name: 'its secret part', value: token.slice(-43) },
  );
  return link;
}

const pathOf = (link: string) => new URL(link).pathname + new URL(link).search;
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

/** Opens a link's page as a browser (or a mail scanner) does: status, headers and HTML. */
async function open(link: string) {
  const response = await fetch(url(pathOf(link)), { redirect: 'manual' });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/**
 * Opens the link twice (a mail scanner, then its person), then posts its token as a JSON client;
 * returns the session cookie's value.
 */
async function follow(
  link: string,
): Promise<{ cookie: string; setCookie: string; body: Record<string, unknown> }> {
  for (let i = 0; i < 2; i++) expect((await open(link)).status).toBe(200);
  const answer = await call('POST', '/v1/auth/callback', { json: { token: tokenOf(link) }, origin: null });
  expect(answer.status).toBe(200);
  const setCookie = answer.headers.getSetCookie().find((c) => c.startsWith('gov_session='))!;
  const cookie = /^gov_session=([^;]+)/.exec(setCookie)![1]!;
  secrets.push({ name: 'session cookie', value: cookie });
  return { cookie, setCookie, body: answer.body };
}

/** Posts the page's form as a browser on the platform's page does (its Origin unless told otherwise). */
function postForm(token: string, headers: Record<string, string> = { origin: origin() }) {
  return fetch(url('/v1/auth/callback'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
}

async function signIn(email: string): Promise<string> {
  return (await follow(await requestLink(email))).cookie;
}

const head = () => server.server.services.eventStore.headPosition();

describe('sign-in by an emailed link', () => {
  const email = 'Ada.Lovelace@Example.com';
  let cookie: string;

  it('given an address, when a link is asked for, then 202, the SMTP server receives the link, and following it sets the session cookie and /v1/auth/me answers', async () => {
    secrets.push(
      { name: 'email', value: 'ada.lovelace@example.com' },
      { name: 'email as typed', value: email },
    );
    const { cookie: value, setCookie, body } = await follow(await requestLink(email));
    cookie = value;
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/Secure/);
    expect(body).toEqual({
      session_id: expect.stringMatching(/^ses_[0-9a-f]{24}$/),
      expires_at: expect.any(String),
      email: 'ada.lovelace@example.com',
      tenant_id: expect.stringMatching(/^ten_[0-9a-f]{24}$/),
    });
    const me = await call('GET', '/v1/auth/me', { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      email: 'ada.lovelace@example.com',
      role: 'user',
      tier: 'L1',
      tenant_id: body.tenant_id,
    });
    expect(validateResponse('auth-me', me.body).ok).toBe(true);
    expect(validateResponse('auth-signed-in', body).ok).toBe(true);
  });

  it("given the user's tenant, when an operator changes its tier (gov tenant tier), then /v1/auth/me says the new tier", async () => {
    const me = await call('GET', '/v1/auth/me', { cookie });
    await setTier(server.server, me.body.tenant_id as string, 'L2');
    expect((await call('GET', '/v1/auth/me', { cookie })).body).toMatchObject({ tier: 'L2' });
  });

  it('given a signed-in user, when it signs in again, then the same user and tenant, in a second session', async () => {
    const again = await follow(await requestLink('ada.lovelace@example.com'));
    const me = await call('GET', '/v1/auth/me', { cookie: again.cookie });
    expect(me.body).toEqual((await call('GET', '/v1/auth/me', { cookie })).body);
    expect(again.cookie).not.toBe(cookie);
  });

  it('given an address never seen and one known, when links are asked for, then both answers are the same 202', async () => {
    const known = await call('POST', '/v1/auth/login', { json: { email: 'ada.lovelace@example.com' } });
    const unknown = await call('POST', '/v1/auth/login', { json: { email: 'nobody-yet@example.com' } });
    secrets.push({ name: 'unknown email', value: 'nobody-yet@example.com' });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    expect(known.body).toEqual({ detail: expect.any(String), expires_in: 900 });
    expect(validateResponse('auth-login-accepted', known.body).ok).toBe(true);
  });

  it('given a link, when it is opened (as a mail scanner does), then a page with a form that posts its token, and nothing is appended', async () => {
    const link = await requestLink('scanned@example.com');
    const before = await head();
    const page = await open(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('strict-origin');
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
    );
    expect(page.headers.getSetCookie()).toEqual([]);
    expect(page.html).toContain(
      `<form method="post" action="${server.server.platformUrl}/v1/auth/callback">`,
    );
    expect(page.html).toContain(`<input type="hidden" name="token" value="${tokenOf(link)}">`);
    expect(page.html).toContain('<strong>scanned@example.com</strong>');
    expect(page.html).not.toMatch(/<script|src=|href=/);
    expect(await head()).toBe(before);
    // Opened again, it still works: then the form signs in.
    expect((await open(link)).status).toBe(200);
    expect((await postForm(tokenOf(link))).status).toBe(303);
  });

  it('given an address with HTML-significant characters, when its link is opened, then the page escapes it', async () => {
    const email = "o'neil&co@example.com";
    secrets.push({ name: 'email with quotes', value: email });
    const page = await open(await requestLink(email));
    expect(page.status).toBe(200);
    expect(page.html).toContain('<strong>o&#39;neil&amp;co@example.com</strong>');
    expect(page.html).not.toContain(email);
  });

  it('given a followed link, when it is followed again, then 401 unauthorized (its page says it does not work) and nothing is appended', async () => {
    const link = await requestLink('reuse@example.com');
    await follow(link);
    const before = await head();
    const again = await call('POST', '/v1/auth/callback', { json: { token: tokenOf(link) }, origin: null });
    expect(again.status).toBe(401);
    expect(again.body).toEqual({
      error: 'unauthorized',
      detail: expect.stringContaining('already used or expired'),
    });
    expect(again.headers.getSetCookie()).toEqual([]);
    const page = await open(link);
    expect(page.status).toBe(401);
    expect(page.html).toContain('<h1>This sign-in link does not work</h1>');
    expect(page.html).toContain('already used or expired');
    expect(page.html).not.toContain('<form');
    expect((await postForm(tokenOf(link))).status).toBe(401);
    expect(await head()).toBe(before);
  });

  it('given a link 15 minutes old, when it is opened or posted, then 401', async () => {
    const link = await requestLink('late@example.com');
    server.clock.advance(15 * MINUTE_MS);
    expect((await open(link)).status).toBe(401);
    const late = await call('POST', '/v1/auth/callback', { json: { token: tokenOf(link) } });
    expect([late.status, late.body.error]).toEqual([401, 'unauthorized']);
  });

  it('given a malformed or forged token, when it is opened or posted, then 401 unauthorized', async () => {
    for (const token of ['nope', `sit_${userIdOfEmail('x@example.com').slice(4)}_${'A'.repeat(43)}`]) {
      const page = await fetch(url(`/v1/auth/callback?token=${token}`));
      expect(page.status).toBe(401);
      expect(await page.text()).not.toContain(token);
      const answer = await call('POST', '/v1/auth/callback', { json: { token } });
      expect([answer.status, answer.body.error]).toEqual([401, 'unauthorized']);
    }
  });

  it("given a link's page, when its form is posted, then 303 to the platform root with the cookie set", async () => {
    const link = await requestLink('browser@example.com');
    const answer = await postForm(tokenOf(link));
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`${server.server.platformUrl}/`);
    const cookie = /^gov_session=([^;]+)/.exec(answer.headers.getSetCookie()[0]!)![1]!;
    secrets.push({ name: 'browser session cookie', value: cookie });
    expect((await call('GET', '/v1/auth/me', { cookie })).status).toBe(200);
  });

  it("given a form on another site (login CSRF), when it posts a link's token, then 403 csrf_rejected, nothing is appended, and the link still works", async () => {
    const link = await requestLink('victim@example.com');
    const before = await head();
    const foreign: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { referer: 'http://evil.example/page' },
    ];
    for (const headers of foreign) {
      const answer = await postForm(tokenOf(link), headers);
      expect([answer.status, ((await answer.json()) as { error: string }).error]).toEqual([
        403,
        'csrf_rejected',
      ]);
      expect(answer.headers.getSetCookie()).toEqual([]);
    }
    const json = await call('POST', '/v1/auth/callback', {
      json: { token: tokenOf(link) },
      origin: 'http://evil.example',
    });
    expect([json.status, json.body.error]).toEqual([403, 'csrf_rejected']);
    expect(await head()).toBe(before);
    expect((await postForm(tokenOf(link), { referer: `${origin()}/somewhere` })).status).toBe(303);
  });

  it('given two links of a new address, when both are posted at once (two devices, or a retry), then one tenant is registered and both sessions are of it', async () => {
    const email = 'racing@example.com';
    const links = [await requestLink(email), await requestLink(email)];
    const sessions = await Promise.all(
      links.map((link) =>
        call('POST', '/v1/auth/callback', { json: { token: tokenOf(link) }, origin: null }),
      ),
    );
    expect(sessions.map((answer) => answer.status)).toEqual([200, 200]);
    for (const answer of sessions) {
      const cookie = /^gov_session=([^;]+)/.exec(answer.headers.getSetCookie()[0]!)![1]!;
      secrets.push({ name: 'racing session cookie', value: cookie });
    }
    const tenants: string[] = [];
    for await (const event of server.server.services.eventStore.readAll({
      filter: { eventTypes: ['TenantRegistered'] },
    })) {
      const data = event.data as { tenant_id: string; email: string };
      if (data.email === email) tenants.push(data.tenant_id);
    }
    expect(tenants).toHaveLength(1);
    expect(sessions.map((answer) => answer.body.tenant_id)).toEqual([tenants[0], tenants[0]]);
  });

  it('given a body without a token or with two, when posted, then 400 invalid_request', async () => {
    const none = await call('POST', '/v1/auth/callback', { json: {} });
    expect([none.status, none.body.error]).toEqual([400, 'invalid_request']);
    const twice = await fetch(url('/v1/auth/callback'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin() },
      body: 'token=a&token=b',
    });
    expect(twice.status).toBe(400);
  });

  it('given 5 links sent to one address within 15 minutes, when a sixth is asked for, then 429 rate_limited with Retry-After, and nothing is sent', async () => {
    for (let i = 0; i < 5; i++) await requestLink('busy@example.com');
    const mails = server.mail.mails.length;
    const sixth = await call('POST', '/v1/auth/login', { json: { email: 'BUSY@example.com' } });
    expect([sixth.status, sixth.body.error]).toEqual([429, 'rate_limited']);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(server.mail.mails.length).toBe(mails);
  });

  it('given a body that is not an address, when a link is asked for, then 400 invalid_request', async () => {
    const answer = await call('POST', '/v1/auth/login', { json: { email: 'not an address' } });
    expect([answer.status, answer.body.error]).toEqual([400, 'invalid_request']);
  });
});

describe('who may call', () => {
  it('given no credentials, or an unknown cookie, when /v1/auth/me, then 401 unauthorized', async () => {
    for (const options of [{}, { cookie: 'A'.repeat(43) }, { cookie: 'garbage' }]) {
      const answer = await call('GET', '/v1/auth/me', options);
      expect([answer.status, answer.body.error]).toEqual([401, 'unauthorized']);
    }
  });

  it('given an agent API key, when a session-only route is called, then 403 session_required', async () => {
    const key = `svc_sk_${'k'.repeat(43)}`;
    for (const [method, path] of [
      ['GET', '/v1/auth/me'],
      ['GET', '/v1/auth/sessions'],
      ['POST', '/v1/ws-ticket'],
    ] as const) {
      const answer = await call(method, path, {
        key,
        ...(method === 'POST' ? { json: { agent_id: AGENT_A } } : {}),
      });
      expect([answer.status, answer.body.error]).toEqual([403, 'session_required']);
    }
  });

  it("given a session cookie, when a state-changing request lacks the platform's Origin, then 403 csrf_rejected and nothing is appended", async () => {
    const cookie = await signIn('csrf@example.com');
    const before = await head();
    for (const sent of [null, 'http://evil.example']) {
      const answer = await call('POST', '/v1/auth/logout', { cookie, origin: sent });
      expect([answer.status, answer.body.error]).toEqual([403, 'csrf_rejected']);
    }
    expect(await head()).toBe(before);
    expect((await call('GET', '/v1/auth/me', { cookie })).status).toBe(200);
  });
});

describe('sessions', () => {
  it('given a session, when it signs out, then 204, the cookie is cleared and stops working', async () => {
    const cookie = await signIn('logout@example.com');
    const out = await call('POST', '/v1/auth/logout', { cookie });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^gov_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await call('GET', '/v1/auth/me', { cookie })).status).toBe(401);
    expect((await call('POST', '/v1/auth/logout', { cookie })).status).toBe(401);
  });

  it('given two sessions, when they are listed and one is revoked from the other, then it stops working', async () => {
    const laptop = await signIn('two@example.com');
    const phone = await signIn('two@example.com');
    const listed = await call('GET', '/v1/auth/sessions', { cookie: laptop });
    expect(listed.status).toBe(200);
    const sessions = listed.body.sessions as { session_id: string; current: boolean }[];
    expect(sessions).toHaveLength(2);
    expect(validateResponse('auth-sessions', listed.body).ok).toBe(true);
    expect(sessions.map((s) => s.current).sort()).toEqual([false, true]);
    const phoneSession = sessions.find((s) => !s.current)!.session_id;
    expect((await call('DELETE', `/v1/auth/sessions/${phoneSession}`, { cookie: laptop })).status).toBe(204);
    expect((await call('GET', '/v1/auth/me', { cookie: phone })).status).toBe(401);
    expect((await call('GET', '/v1/auth/me', { cookie: laptop })).status).toBe(200);
    const again = await call('DELETE', `/v1/auth/sessions/${phoneSession}`, { cookie: laptop });
    expect([again.status, again.body.error]).toEqual([404, 'not_found']);
    // Another user's session is not found either.
    const other = await signIn('other@example.com');
    const mine = (await call('GET', '/v1/auth/sessions', { cookie: laptop })).body.sessions as {
      session_id: string;
    }[];
    const foreign = await call('DELETE', `/v1/auth/sessions/${mine[0]!.session_id}`, { cookie: other });
    expect([foreign.status, foreign.body.error]).toEqual([404, 'not_found']);
  });
});

describe('WebSocket tickets', () => {
  let cookie: string;
  let userId: string;

  beforeAll(async () => {
    cookie = await signIn('tickets@example.com');
    userId = userIdOfEmail('tickets@example.com');
    agents.set(AGENT_A, { userId, tenantId: 'ten_x' });
    agents.set(AGENT_B, { userId: userIdOfEmail('someone-else@example.com'), tenantId: 'ten_y' });
  });

  async function mint(agentId = AGENT_A): Promise<string> {
    const answer = await call('POST', '/v1/ws-ticket', { cookie, json: { agent_id: agentId } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ticket: expect.stringMatching(/^wst_/), expires_at: expect.any(String) });
    expect(validateResponse('ws-ticket', answer.body).ok).toBe(true);
    const ticket = answer.body.ticket as string;
    secrets.push({ name: 'ticket', value: ticket });
    return ticket;
  }

  it('given a ticket for an agent, when it is redeemed, then the user and agent; when again, then refused', async () => {
    const ticket = await mint();
    expect(await redeemTicket(server.server.platform, ticket, AGENT_A)).toEqual({
      ok: true,
      userId,
      agentId: AGENT_A,
    });
    expect(await redeemTicket(server.server.platform, ticket, AGENT_A)).toMatchObject({
      ok: false,
      status: 401,
      error: 'unauthorized',
    });
  });

  it('given a ticket for one agent, when presented for another, then 403, and it still opens its own', async () => {
    const ticket = await mint();
    expect(await redeemTicket(server.server.platform, ticket, AGENT_B)).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await redeemTicket(server.server.platform, ticket, AGENT_A)).toMatchObject({ ok: true });
  });

  it('given a ticket 30 seconds old, when it is redeemed, then refused', async () => {
    const ticket = await mint();
    server.clock.advance(30_000);
    expect(await redeemTicket(server.server.platform, ticket, AGENT_A)).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it("given another user's agent or an unknown one, when a ticket is asked for, then 404 not_found", async () => {
    for (const agentId of [AGENT_B, `svc_${'c'.repeat(26)}`]) {
      const answer = await call('POST', '/v1/ws-ticket', { cookie, json: { agent_id: agentId } });
      expect([answer.status, answer.body.error]).toEqual([404, 'not_found']);
    }
  });

  it('given no Origin, when a ticket is asked for with the cookie, then 403 csrf_rejected', async () => {
    const answer = await call('POST', '/v1/ws-ticket', { cookie, origin: null, json: { agent_id: AGENT_A } });
    expect([answer.status, answer.body.error]).toEqual([403, 'csrf_rejected']);
  });
});

describe('a restart and the admin role', () => {
  it('given a session, when the server restarts and an operator grants admin with the gov CLI, then the cookie still works and /v1/auth/me says admin', async () => {
    const cookie = await signIn('operator-made@example.com');
    await server.stop();
    const granted = await runGov(['user', 'grant-admin', 'Operator-Made@example.com', '--operator', 'test'], {
      dataDir: server.dataDir,
    });
    expect({ code: granted.code, stderr: granted.stderr }).toEqual({ code: 0, stderr: '' });
    expect(granted.stdout).toContain(`${userIdOfEmail('operator-made@example.com')}: role user -> admin`);
    const unknown = await runGov(['user', 'grant-admin', 'never-signed-in@example.com'], {
      dataDir: server.dataDir,
    });
    expect(unknown.code).toBe(1);
    await server.start();
    server.server.platform.agentDirectory = directory;
    const me = await call('GET', '/v1/auth/me', { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'operator-made@example.com', role: 'admin' });
  }, 60_000);

  it('given a running server, when the gov CLI grants and then revokes admin, then /v1/auth/me follows each change', async () => {
    const cookie = await signIn('revoked@example.com');
    const roleBecomes = async (role: string) => {
      for (let i = 0; i < 200; i++) {
        if ((await call('GET', '/v1/auth/me', { cookie })).body.role === role) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the role never became ${role}`);
    };
    expect(
      (await runGov(['user', 'grant-admin', 'revoked@example.com'], { dataDir: server.dataDir })).code,
    ).toBe(0);
    await roleBecomes('admin');
    const revoked = await runGov(['user', 'revoke-admin', 'revoked@example.com'], {
      dataDir: server.dataDir,
    });
    expect(revoked.stdout).toContain('role admin -> user');
    await roleBecomes('user');
  }, 60_000);
});

describe('without GOV_SMTP_URL', () => {
  it('given a sign-in, then its link is written to the server log at info level, and it works; per client address, links are limited', async () => {
    const lines: string[] = [];
    const local = await startTestServer('gov-platform-auth-log-', {
      env: { GOV_SIGN_INS_PER_IP_HOUR: '2' },
      logger: createLogger('info', {
        write: (line: string) => {
          lines.push(line);
        },
      }),
    });
    try {
      const answer = await fetch(`${local.server.platformUrl}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'dev@example.com' }),
      });
      expect(answer.status).toBe(202);
      const entry = lines
        .map((line) => JSON.parse(line) as { level: number; mail?: { to: string; text: string } })
        .find((line) => line.mail);
      expect(entry).toMatchObject({ level: 30, mail: { to: 'dev@example.com' } });
      const link = /https?:\/\/\S+\/v1\/auth\/callback\?token=[A-Za-z0-9_-]+/.exec(entry!.mail!.text)![0];
      expect((await fetch(link)).status).toBe(200);
      const followed = await fetch(`${local.server.platformUrl}/v1/auth/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: new URL(link).searchParams.get('token') }),
      });
      expect(followed.status).toBe(200);

      // GOV_SIGN_INS_PER_IP_HOUR=2: the second link from this client address is sent, the third refused.
      const login = (email: string) =>
        fetch(`${local.server.platformUrl}/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email }),
        });
      expect((await login('dev2@example.com')).status).toBe(202);
      const third = await login('dev3@example.com');
      expect(third.status).toBe(429);
      expect(await third.json()).toEqual({
        error: 'rate_limited',
        detail: expect.stringContaining('this address'),
      });
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(lines.filter((line) => line.includes('"mail"'))).toHaveLength(2);
    } finally {
      await local.dispose();
    }
  }, 60_000);
});

describe("the server's log", () => {
  it('holds no sign-in token, session cookie, ticket or email address', () => {
    const output = logLines.join('');
    expect(output).toContain('"msg":"request"');
    const hashes = secrets.map((secret) => ({
      name: `${secret.name} (hash)`,
      value: hashApiKey(secret.value),
    }));
    const found = [...secrets, ...hashes]
      .filter((secret) => output.includes(secret.value))
      .map((s) => s.name);
    expect(found).toEqual([]);
  });
});
