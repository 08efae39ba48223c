/**
 * Agents and their API keys over HTTP, against the started server: every route and its errors, owner
 * and key scoping on every `:agentId` route, the admin-only delete, refusals that append nothing, and
 * a restart that loses nothing (agents, config versions, checkpoints, keys). Users sign in by the link
 * mailed to an SMTP server in the test.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { type PlatformSuite, session, usePlatformSuite } from './support/platform-client';

let { server, client, alice, bob } = {} as PlatformSuite;
usePlatformSuite('gov-platform-agents-', (suite) => ({ server, client, alice, bob } = suite));

type Agent = Record<string, unknown> & {
  agent_id: string;
  config_version: number;
  sandbox_session_id: string;
};
type Created = { agent: Agent; passport_id: string; sandbox_session_id: string };
type Key = { key_id: string; raw_key: string; prefix: string; scopes: string[]; created_at: string };

async function createAgent(user: { cookie: string }, body: Record<string, unknown> = {}): Promise<Created> {
  const answer = await client.request<Created>('POST', '/v1/agents', session(user), body);
  expect(answer.status).toBe(201);
  return answer.body;
}

async function createKey(user: { cookie: string }, agentId: string, body: Record<string, unknown> = {}) {
  const answer = await client.request<Key>('POST', `/v1/agents/${agentId}/api-keys`, session(user), body);
  expect(answer.status).toBe(201);
  return answer.body;
}

/** How many events the agent's stream holds. */
async function streamLength(agentId: string): Promise<number> {
  let n = 0;
  for await (const _event of server.server.platform.eventStore.readStream(`agent-${agentId}`)) n++;
  return n;
}

const LEAF = /^sha256:[0-9a-f]{64}$/;
const SANDBOX = /^sbx_[0-9a-f]{24}$/;

describe('creating and listing agents', () => {
  it('given a session, when POST /v1/agents with nothing, then 201: stopped, chat, config version 1, the defaults, a passport and a runtime session', async () => {
    const created = await createAgent(alice);
    expect(created.passport_id).toMatch(LEAF);
    expect(created.sandbox_session_id).toMatch(SANDBOX);
    expect(created.agent).toEqual({
      agent_id: expect.stringMatching(/^svc_[a-z2-7]{26}$/),
      name: expect.stringMatching(/^Agent /),
      state: 'stopped',
      mode: 'chat',
      model: 'offline',
      model_provider: 'offline',
      governance_mode: 'enforce',
      tier: 'L1',
      config_version: 1,
      passport_id: created.passport_id,
      sandbox_session_id: created.sandbox_session_id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('given a body, then the agent has its name, model, provider and governance mode; GET answers the same', async () => {
    const { agent } = await createAgent(alice, {
      agent_name: 'Scout',
      model: 'gpt-4o',
      model_provider: 'openai',
      governance_mode: 'review',
    });
    expect(agent).toMatchObject({
      name: 'Scout',
      model: 'gpt-4o',
      model_provider: 'openai',
      governance_mode: 'review',
    });
    const read = await client.request('GET', `/v1/agents/${agent.agent_id}`, session(alice));
    expect(read).toMatchObject({ status: 200, body: agent });
  });

  it('given a bad body, then 400 invalid_request naming the member, and no agent is made', async () => {
    const before = (await client.request<{ agents: Agent[] }>('GET', '/v1/agents', session(alice))).body
      .agents.length;
    for (const body of [
      { governance_mode: 'lenient' },
      { agent_name: '' },
      { color: 'red' },
      { model_provider: 'acme' },
    ]) {
      const answer = await client.request('POST', '/v1/agents', session(alice), body);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'invalid_request', detail: expect.any(String) });
    }
    const after = (await client.request<{ agents: Agent[] }>('GET', '/v1/agents', session(alice))).body.agents
      .length;
    expect(after).toBe(before);
  });

  it('given no session, a key, or a foreign Origin, then 401 unauthorized, 403 session_required, 403 csrf_rejected', async () => {
    expect((await client.request('POST', '/v1/agents', null, {})).body).toMatchObject({
      error: 'unauthorized',
    });
    const { agent } = await createAgent(alice);
    const key = await createKey(alice, agent.agent_id);
    const withKey = await client.request('POST', '/v1/agents', { key: key.raw_key }, {});
    expect(withKey).toMatchObject({ status: 403, body: { error: 'session_required' } });
    const foreign = await client.request(
      'POST',
      '/v1/agents',
      session(alice),
      {},
      { origin: 'https://evil.example' },
    );
    expect(foreign).toMatchObject({ status: 403, body: { error: 'csrf_rejected' } });
  });

  it('given two users, when each lists, then each sees only their own agents, newest first; a key or nobody cannot list', async () => {
    const bobs = await createAgent(bob, { agent_name: 'Bob 1' });
    const list = await client.request<{ agents: Agent[] }>('GET', '/v1/agents', session(bob));
    expect(list.status).toBe(200);
    expect(list.body.agents.map((agent) => agent.agent_id)).toEqual([bobs.agent.agent_id]);
    const alices = await client.request<{ agents: Agent[] }>('GET', '/v1/agents', session(alice));
    expect(alices.body.agents.length).toBeGreaterThan(1);
    expect(alices.body.agents.some((agent) => agent.agent_id === bobs.agent.agent_id)).toBe(false);
    const times = alices.body.agents.map((agent) => agent.created_at as string);
    expect([...times].sort().reverse()).toEqual(times);
    const key = await createKey(bob, bobs.agent.agent_id);
    expect((await client.request('GET', '/v1/agents', { key: key.raw_key })).body).toMatchObject({
      error: 'session_required',
    });
    expect((await client.request('GET', '/v1/agents', null)).status).toBe(401);
  });
});

describe('the lifecycle', () => {
  let agentId: string;
  let checkpointId: string;

  beforeAll(async () => {
    agentId = (await createAgent(alice, { agent_name: 'Life' })).agent.agent_id;
  });

  it('when PATCH changes a member, then a new config version; the same values again make none; an empty body is 400', async () => {
    const changed = await client.request<Agent>('PATCH', `/v1/agents/${agentId}`, session(alice), {
      model: 'claude-x',
      model_provider: 'anthropic',
    });
    expect(changed).toMatchObject({
      status: 200,
      body: { config_version: 2, model: 'claude-x', model_provider: 'anthropic' },
    });
    const same = await client.request<Agent>('PATCH', `/v1/agents/${agentId}`, session(alice), {
      model: 'claude-x',
    });
    expect(same).toMatchObject({ status: 200, body: { config_version: 2 } });
    const empty = await client.request('PATCH', `/v1/agents/${agentId}`, session(alice), {});
    expect(empty).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('when started, then running in a new runtime session; started again, then 409 agent_running and nothing appended', async () => {
    const before = (await client.request<Agent>('GET', `/v1/agents/${agentId}`, session(alice))).body;
    const started = await client.request<Agent>('POST', `/v1/agents/${agentId}/start`, session(alice));
    expect(started).toMatchObject({ status: 200, body: { state: 'running' } });
    expect(started.body.sandbox_session_id).toMatch(SANDBOX);
    expect(started.body.sandbox_session_id).not.toBe(before.sandbox_session_id);
    const events = await streamLength(agentId);
    const again = await client.request('POST', `/v1/agents/${agentId}/start`, session(alice));
    expect(again).toEqual({
      status: 409,
      body: { error: 'agent_running', detail: expect.any(String) },
      headers: expect.anything(),
    });
    expect(await streamLength(agentId)).toBe(events);
  });

  it('when stopped, then stopped with a checkpoint of config version 2; stopped again, then 409 agent_not_running', async () => {
    const stopped = await client.request<{ agent: Agent; checkpoint: Record<string, unknown> }>(
      'POST',
      `/v1/agents/${agentId}/stop`,
      session(alice),
    );
    expect(stopped.status).toBe(200);
    expect(stopped.body.agent.state).toBe('stopped');
    expect(stopped.body.checkpoint).toEqual({
      checkpoint_id: expect.stringMatching(/^chk_[0-9a-f]{24}$/),
      config_version: 2,
      profile_version: 0,
      memory_position: 0,
      cause: 'stop',
      created_at: expect.any(String),
    });
    checkpointId = stopped.body.checkpoint.checkpoint_id as string;
    const again = await client.request('POST', `/v1/agents/${agentId}/stop`, session(alice));
    expect(again).toMatchObject({ status: 409, body: { error: 'agent_not_running' } });
    const list = await client.request<{ checkpoints: unknown[] }>(
      'GET',
      `/v1/agents/${agentId}/checkpoints`,
      session(alice),
    );
    expect(list).toMatchObject({
      status: 200,
      body: { agent_id: agentId, checkpoints: [stopped.body.checkpoint] },
    });
  });

  it('given a later change, when restored from the checkpoint, then a new version with the config of version 2', async () => {
    await client.request('PATCH', `/v1/agents/${agentId}`, session(alice), {
      governance_mode: 'monitor',
      model: 'm3',
    });
    const restored = await client.request<{ agent: Agent; checkpoint: { checkpoint_id: string } }>(
      'POST',
      `/v1/agents/${agentId}/restore`,
      session(alice),
      { checkpoint_id: checkpointId },
    );
    expect(restored.status).toBe(200);
    expect(restored.body.agent).toMatchObject({
      config_version: 4,
      model: 'claude-x',
      governance_mode: 'enforce',
    });
    expect(restored.body.checkpoint.checkpoint_id).toBe(checkpointId);
    const unknown = await client.request('POST', `/v1/agents/${agentId}/restore`, session(alice), {
      checkpoint_id: `chk_${'0'.repeat(24)}`,
    });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const malformed = await client.request('POST', `/v1/agents/${agentId}/restore`, session(alice), {
      checkpoint_id: 'x',
    });
    expect(malformed).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('when rolled back to version 1, then version 5 equal in content to 1; to a version that is not, 404 and nothing appended', async () => {
    const rolled = await client.request<Agent>('POST', `/v1/agents/${agentId}/rollback`, session(alice), {
      version: 1,
    });
    expect(rolled).toMatchObject({
      status: 200,
      body: {
        config_version: 5,
        name: 'Life',
        model: 'offline',
        model_provider: 'offline',
        governance_mode: 'enforce',
      },
    });
    const events = await streamLength(agentId);
    const missing = await client.request('POST', `/v1/agents/${agentId}/rollback`, session(alice), {
      version: 99,
    });
    expect(missing).toMatchObject({
      status: 404,
      body: { error: 'not_found', detail: expect.stringContaining('99') },
    });
    expect(
      (await client.request('POST', `/v1/agents/${agentId}/rollback`, session(alice), { version: 0 })).status,
    ).toBe(400);
    expect(await streamLength(agentId)).toBe(events);
  });

  it('when the mode is switched, then autonomous and back; a mode that is not one is 400', async () => {
    const auto = await client.request<Agent>('PATCH', `/v1/agents/${agentId}/mode`, session(alice), {
      mode: 'autonomous',
    });
    expect(auto).toMatchObject({ status: 200, body: { mode: 'autonomous' } });
    const chat = await client.request<Agent>('PATCH', `/v1/agents/${agentId}/mode`, session(alice), {
      mode: 'chat',
    });
    expect(chat).toMatchObject({ status: 200, body: { mode: 'chat' } });
    expect(
      (await client.request('PATCH', `/v1/agents/${agentId}/mode`, session(alice), { mode: 'dream' })).status,
    ).toBe(400);
  });

  it('then version-health is good: the five signed versions verify', async () => {
    const health = await client.request('GET', `/v1/agents/${agentId}/version-health`, session(alice));
    expect(health).toMatchObject({
      status: 200,
      body: {
        agent_id: agentId,
        status: 'good',
        config_version: 5,
        reasons: [
          expect.stringContaining('5 signed config versions verify'),
          'the agent is ACTIVE and its observables are inside Ω: H 0.5, C 0.5, E 0.5',
        ],
        lifecycle: 'ACTIVE',
        observables: { H: 0.5, C: 0.5, E: 0.5 },
      },
    });
  });

  it('then health names the state, queue depth 0 and the last activity', async () => {
    const health = await client.request('GET', `/v1/agents/${agentId}/health`, session(alice));
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      agent_id: agentId,
      state: 'stopped',
      mode: 'chat',
      queue_depth: 0,
      sandbox_session_id: expect.stringMatching(SANDBOX),
      last_activity_at: expect.any(String),
    });
  });
});

describe('API keys', () => {
  let agentId: string;

  beforeAll(async () => {
    agentId = (await createAgent(alice, { agent_name: 'Keyed' })).agent.agent_id;
  });

  it('when made, then 201 with the raw key once; the list shows its prefix only; the key reads its agent', async () => {
    const key = await createKey(alice, agentId, { name: 'ci', scopes: ['agent:read', 'chat'] });
    expect(key).toEqual({
      key_id: expect.stringMatching(/^key_[0-9a-f]{24}$/),
      agent_id: agentId,
      name: 'ci',
      prefix: key.raw_key.slice(0, 14),
      scopes: ['agent:read', 'chat'],
      created_at: expect.any(String),
      raw_key: expect.stringMatching(/^svc_sk_[A-Za-z0-9_-]{43}$/),
    });
    const list = await client.request<{ keys: Record<string, unknown>[] }>(
      'GET',
      `/v1/agents/${agentId}/api-keys`,
      session(alice),
    );
    expect(list.status).toBe(200);
    expect(list.body.keys).toEqual([
      {
        key_id: key.key_id,
        name: 'ci',
        prefix: key.prefix,
        scopes: ['agent:read', 'chat'],
        created_at: key.created_at,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(key.raw_key);
    const read = await client.request('GET', `/v1/agents/${agentId}`, { key: key.raw_key });
    expect(read).toMatchObject({ status: 200, body: { agent_id: agentId } });
    const bearer = await fetch(`${server.platformUrl}/v1/agents/${agentId}`, {
      headers: { authorization: `bEaReR ${key.raw_key}` },
    });
    expect(bearer.status).toBe(200);
  });

  it('when made with an unknown scope, no scope or a name too long, then 400; a key cannot make, list or revoke keys (403 session_required)', async () => {
    const bad = await client.request('POST', `/v1/agents/${agentId}/api-keys`, session(alice), {
      scopes: ['root'],
    });
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const long = await client.request('POST', `/v1/agents/${agentId}/api-keys`, session(alice), {
      name: 'x'.repeat(121),
    });
    expect(long.status).toBe(400);
    const key = await createKey(alice, agentId);
    for (const [method, path] of [
      ['POST', `/v1/agents/${agentId}/api-keys`],
      ['GET', `/v1/agents/${agentId}/api-keys`],
      ['DELETE', `/v1/agents/${agentId}/api-keys/${key.key_id}`],
    ] as const) {
      const answer = await client.request(
        method,
        path,
        { key: key.raw_key },
        method === 'POST' ? {} : undefined,
      );
      expect([path, answer.status, answer.body.error]).toEqual([path, 403, 'session_required']);
    }
  });

  it('when revoked, then it stops working at once (401) and leaves the list; revoked again, 404', async () => {
    const key = await createKey(alice, agentId, { name: 'short-lived' });
    expect((await client.request('GET', `/v1/agents/${agentId}`, { key: key.raw_key })).status).toBe(200);
    const revoked = await client.request(
      'DELETE',
      `/v1/agents/${agentId}/api-keys/${key.key_id}`,
      session(alice),
    );
    expect(revoked).toMatchObject({ status: 200, body: { key_id: key.key_id, revoked: true } });
    expect((await client.request('GET', `/v1/agents/${agentId}`, { key: key.raw_key })).body).toMatchObject({
      error: 'unauthorized',
    });
    const list = await client.request<{ keys: { key_id: string }[] }>(
      'GET',
      `/v1/agents/${agentId}/api-keys`,
      session(alice),
    );
    expect(list.body.keys.map((k) => k.key_id)).not.toContain(key.key_id);
    const again = await client.request(
      'DELETE',
      `/v1/agents/${agentId}/api-keys/${key.key_id}`,
      session(alice),
    );
    expect(again).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const malformed = await client.request('DELETE', `/v1/agents/${agentId}/api-keys/nope`, session(alice));
    expect(malformed.status).toBe(404);
  });
});

describe('owner and key scoping on every agent route', () => {
  let agentId: string;
  /** A key of Bob's agent holding every scope. */
  let foreignKey: string;
  /** A key of Alice's agent holding only `tools`: no route here needs it. */
  let narrowKey: string;

  beforeAll(async () => {
    agentId = (await createAgent(alice, { agent_name: 'Scoped' })).agent.agent_id;
    const bobsAgent = (await createAgent(bob)).agent.agent_id;
    foreignKey = (await createKey(bob, bobsAgent)).raw_key;
    narrowKey = (await createKey(alice, agentId, { scopes: ['tools'] })).raw_key;
  });

  // Every `:agentId` route, with a valid body, and what a key of this agent without the scope answers.
  const routes = (): [string, string, unknown, string][] => [
    ['GET', `/v1/agents/${agentId}`, undefined, 'forbidden'],
    ['PATCH', `/v1/agents/${agentId}`, { agent_name: 'x' }, 'forbidden'],
    ['DELETE', `/v1/agents/${agentId}`, undefined, 'forbidden'],
    ['GET', `/v1/agents/${agentId}/health`, undefined, 'forbidden'],
    ['POST', `/v1/agents/${agentId}/start`, undefined, 'forbidden'],
    ['POST', `/v1/agents/${agentId}/stop`, undefined, 'forbidden'],
    ['POST', `/v1/agents/${agentId}/restore`, { checkpoint_id: `chk_${'0'.repeat(24)}` }, 'forbidden'],
    ['GET', `/v1/agents/${agentId}/checkpoints`, undefined, 'forbidden'],
    ['PATCH', `/v1/agents/${agentId}/mode`, { mode: 'autonomous' }, 'forbidden'],
    ['GET', `/v1/agents/${agentId}/version-health`, undefined, 'forbidden'],
    ['POST', `/v1/agents/${agentId}/rollback`, { version: 1 }, 'forbidden'],
    ['GET', `/v1/agents/${agentId}/api-keys`, undefined, 'session_required'],
    ['POST', `/v1/agents/${agentId}/api-keys`, {}, 'session_required'],
    ['DELETE', `/v1/agents/${agentId}/api-keys/key_${'0'.repeat(24)}`, undefined, 'session_required'],
  ];

  it('given no credentials, then 401 unauthorized on each', async () => {
    for (const [method, path, body] of routes()) {
      const answer = await client.request(method, path, null, body);
      expect([method, path, answer.status, answer.body.error]).toEqual([method, path, 401, 'unauthorized']);
    }
  });

  it("given another user's session, then 404 not_found on each, as for an agent that does not exist", async () => {
    for (const [method, path, body] of routes()) {
      const answer = await client.request(method, path, session(bob), body);
      expect([method, path, answer.status, answer.body.error]).toEqual([method, path, 404, 'not_found']);
    }
    const unknown = await client.request('GET', `/v1/agents/svc_${'a'.repeat(26)}`, session(alice));
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('given a key of another agent, then 403 forbidden on each', async () => {
    for (const [method, path, body] of routes()) {
      const answer = await client.request(method, path, { key: foreignKey }, body);
      expect([method, path, answer.status, answer.body.error]).toEqual([method, path, 403, 'forbidden']);
    }
  });

  it("given a key of this agent without the route's scope, then 403 on each (session_required where keys never serve)", async () => {
    for (const [method, path, body, error] of routes()) {
      const answer = await client.request(method, path, { key: narrowKey }, body);
      expect([method, path, answer.status, answer.body.error]).toEqual([method, path, 403, error]);
    }
  });

  it("given the owner's session from a foreign Origin, then 403 csrf_rejected on each route that changes something", async () => {
    for (const [method, path, body] of routes()) {
      if (method === 'GET') continue;
      const answer = await client.request(method, path, session(alice), body, {
        origin: 'https://evil.example',
      });
      expect([method, path, answer.status, answer.body.error]).toEqual([method, path, 403, 'csrf_rejected']);
    }
  });

  it('then the agent is untouched: no refusal appended anything', async () => {
    const agent = await client.request<Agent>('GET', `/v1/agents/${agentId}`, session(alice));
    expect(agent.body).toMatchObject({ name: 'Scoped', state: 'stopped', mode: 'chat', config_version: 1 });
    // Created (3 events) and its one key: nothing else.
    expect(await streamLength(agentId)).toBe(4);
  });
});

describe('deleting an agent (admin role)', () => {
  it('given the owner without the admin role, then 403 forbidden; an admin who does not own it, 404; the owner once admin, 200, and the agent and its keys are gone', async () => {
    const carol = await client.newUser('carol');
    const { agent } = await createAgent(carol);
    const key = await createKey(carol, agent.agent_id, { scopes: ['agent:read', 'agent:write'] });
    const byOwner = await client.request('DELETE', `/v1/agents/${agent.agent_id}`, session(carol));
    expect(byOwner).toMatchObject({
      status: 403,
      body: { error: 'forbidden', detail: expect.stringContaining('admin') },
    });
    const byKey = await client.request('DELETE', `/v1/agents/${agent.agent_id}`, { key: key.raw_key });
    expect(byKey).toMatchObject({ status: 403, body: { error: 'forbidden' } });

    const dave = await client.newUser('dave');
    await client.grantAdmin(dave.email);
    const byOtherAdmin = await client.request('DELETE', `/v1/agents/${agent.agent_id}`, session(dave));
    expect(byOtherAdmin).toMatchObject({ status: 404, body: { error: 'not_found' } });

    await client.grantAdmin(carol.email);
    const deleted = await client.request('DELETE', `/v1/agents/${agent.agent_id}`, session(carol));
    expect(deleted).toMatchObject({ status: 200, body: { agent_id: agent.agent_id, deleted: true } });
    expect((await client.request('GET', `/v1/agents/${agent.agent_id}`, session(carol))).status).toBe(404);
    expect((await client.request('POST', `/v1/agents/${agent.agent_id}/start`, session(carol))).status).toBe(
      404,
    );
    expect((await client.request('GET', `/v1/agents/${agent.agent_id}`, { key: key.raw_key })).status).toBe(
      401,
    );
    const list = await client.request<{ agents: Agent[] }>('GET', '/v1/agents', session(carol));
    expect(list.body.agents).toEqual([]);
    expect((await client.request('DELETE', `/v1/agents/${agent.agent_id}`, session(carol))).status).toBe(404);
  });
});

describe('the signed records', () => {
  /** The agent's events of `type`, as stored (the event store is private: only the records are published). */
  async function eventsOf(agentId: string, type: string): Promise<Record<string, unknown>[]> {
    const found: Record<string, unknown>[] = [];
    for await (const event of server.server.platform.eventStore.readStream(`agent-${agentId}`))
      if (event.type === type) found.push(event.data as Record<string, unknown>);
    return found;
  }

  it("given an agent with two config versions, then its passport_id and config leaves verify with the node's published key alone, chained, and hold no config content", async () => {
    const marker = `marker-${Date.now()}`;
    const { agent, passport_id } = await createAgent(alice, { agent_name: marker, model: `${marker}-model` });
    await client.request('PATCH', `/v1/agents/${agent.agent_id}`, session(alice), {
      agent_name: `${marker}-2`,
    });
    const keys = (await (await fetch(`${server.server.url}/gov/v1/log/keys`)).json()) as {
      authority: { public_key_spki: string };
    };
    const nodeKey = createPublicKey({
      key: Buffer.from(keys.authority.public_key_spki, 'base64'),
      format: 'der',
      type: 'spki',
    });
    // Independently of the service's code: RFC 8785 JSON, RFC 9162 leaf hash, Ed25519 over the record without its signature.
    const leafHash = (record: object) =>
      createHash('sha256')
        .update(Buffer.from([0]))
        .update(canonicalize(record) as string, 'utf8')
        .digest('hex');
    const signed = (record: Record<string, unknown>) => {
      const { signature, ...rest } = record;
      return verify(
        null,
        Buffer.from(canonicalize(rest) as string, 'utf8'),
        nodeKey,
        Buffer.from(signature as string, 'base64'),
      );
    };
    const [passport] = await eventsOf(agent.agent_id, 'AgentPassportIssued');
    const passportRecord = passport!.record as Record<string, unknown>;
    expect(`sha256:${leafHash(passportRecord)}`).toBe(passport_id);
    expect(signed(passportRecord)).toBe(true);
    const versions = await eventsOf(agent.agent_id, 'AgentConfigVersioned');
    expect(versions.map((version) => version.version)).toEqual([1, 2]);
    const [v1, v2] = versions.map((version) => version.record as Record<string, unknown>);
    expect(passportRecord.config_hash).toBe(leafHash(v1!));
    expect(v1!.previous_config_hash).toBeNull();
    expect(v2!.previous_config_hash).toBe(leafHash(v1!));
    for (const record of [v1!, v2!]) expect(signed(record)).toBe(true);
    // The commitment opens with the config and the nonce kept in the event.
    const opened = createHash('sha256')
      .update(Buffer.from(versions[1]!.nonce as string, 'hex'))
      .update(canonicalize(versions[1]!.config) as string, 'utf8')
      .digest('hex');
    expect(v2!.config_commitment).toBe(opened);
    expect(JSON.stringify([passportRecord, v1, v2])).not.toContain(marker);
  });
});

describe('the OpenAPI document', () => {
  it('lists every agent and key operation with who may call it', async () => {
    const document = (await (await fetch(`${server.platformUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; operationId: string }>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) => [`${method.toUpperCase()} ${path}`, operation.security] as const,
      ),
    );
    // The vault, quota and event log have their own suite (platform-vault.test.ts).
    const agents = operations.filter(
      ([name]) => name.includes('/v1/agents') && !/\/(vault|quota|billing|event-log)$/.test(name),
    );
    expect(agents.map(([name]) => name).sort()).toEqual(
      [
        'GET /v1/agents',
        'POST /v1/agents',
        'GET /v1/agents/{agentId}',
        'PATCH /v1/agents/{agentId}',
        'DELETE /v1/agents/{agentId}',
        'GET /v1/agents/{agentId}/health',
        'POST /v1/agents/{agentId}/start',
        'POST /v1/agents/{agentId}/stop',
        'POST /v1/agents/{agentId}/restore',
        'GET /v1/agents/{agentId}/checkpoints',
        'PATCH /v1/agents/{agentId}/mode',
        'GET /v1/agents/{agentId}/version-health',
        'POST /v1/agents/{agentId}/rollback',
        'GET /v1/agents/{agentId}/api-keys',
        'POST /v1/agents/{agentId}/api-keys',
        'DELETE /v1/agents/{agentId}/api-keys/{keyId}',
        'POST /v1/agents/{agentId}/actions',
        'GET /v1/agents/{agentId}/proofs/{leafHash}',
      ].sort(),
    );
    for (const [name, security] of agents) expect([name, (security ?? []).length > 0]).toEqual([name, true]);
  });
});

describe('a restart', () => {
  it('loses nothing: agents, config versions, checkpoints and keys are rebuilt from the events', async () => {
    const { agent } = await createAgent(alice, { agent_name: 'Durable' });
    const id = agent.agent_id;
    await client.request('PATCH', `/v1/agents/${id}`, session(alice), { model: 'm2' });
    await client.request('POST', `/v1/agents/${id}/start`, session(alice));
    await client.request('POST', `/v1/agents/${id}/stop`, session(alice));
    await client.request('POST', `/v1/agents/${id}/start`, session(alice));
    const key = await createKey(alice, id, { name: 'kept' });
    const before = {
      agent: (await client.request('GET', `/v1/agents/${id}`, session(alice))).body,
      checkpoints: (await client.request('GET', `/v1/agents/${id}/checkpoints`, session(alice))).body,
      keys: (await client.request('GET', `/v1/agents/${id}/api-keys`, session(alice))).body,
      health: (await client.request('GET', `/v1/agents/${id}/version-health`, session(alice))).body,
      list: (await client.request('GET', '/v1/agents', session(alice))).body,
    };
    await server.restart();
    const after = {
      agent: (await client.request('GET', `/v1/agents/${id}`, session(alice))).body,
      checkpoints: (await client.request('GET', `/v1/agents/${id}/checkpoints`, session(alice))).body,
      keys: (await client.request('GET', `/v1/agents/${id}/api-keys`, session(alice))).body,
      health: (await client.request('GET', `/v1/agents/${id}/version-health`, session(alice))).body,
      list: (await client.request('GET', '/v1/agents', session(alice))).body,
    };
    expect(after).toEqual(before);
    expect(after.agent).toMatchObject({ state: 'running', config_version: 2, model: 'm2' });
    expect((await client.request('GET', `/v1/agents/${id}`, { key: key.raw_key })).status).toBe(200);
    // The aggregate is folded from the stream again: it is still running.
    expect((await client.request('POST', `/v1/agents/${id}/start`, session(alice))).body).toMatchObject({
      error: 'agent_running',
    });
  }, 60_000);
});
