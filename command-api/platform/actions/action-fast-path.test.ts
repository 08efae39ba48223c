/**
 * The governed action's fast path must be indistinguishable from the Express route it shortcuts: the
 * same answers, headers and metrics; whatever it hands back to Express (a session caller, a refused
 * key, an invalid body) is answered as if it had never looked at it. A Content-Type Express reads and
 * the fast path does not take (`application/vnd.gov+json`) sends the same request through Express
 * alone, for comparison.
 */
import type http from 'node:http';
import {
  PlatformClient,
  type PlatformTestServer,
  startPlatformTestServer,
} from '../../../tests/support/platform-client';
import { type RawAnswer, rawRequest } from '../../../tests/support/raw-request';
import { requestCount } from '../../../tests/support/request-count';
import { agentStream } from '../agents/agent-state';

const EXPRESS_ONLY = 'application/vnd.gov+json';
const ACTION = { type: 'chat_message', content: 'Draft a short status note for the team.' };

type Raw = RawAnswer<Record<string, unknown>>;

let server: PlatformTestServer;
let client: PlatformClient;
let owner: { cookie: string };
let agentId: string;
let otherAgentId: string;
let key: string;
let otherKey: string;
let readOnlyKey: string;

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

/** POSTs `body` to the agent's actions route with `headers` exactly (JSON unless told otherwise). */
function post(body: Buffer, headers: Record<string, string>, agent = agentId): Promise<Raw> {
  return rawRequest<Record<string, unknown>>(server.platformUrl, 'POST', `/v1/agents/${agent}/actions`, {
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

const bearer = (raw: string) => ({ authorization: `Bearer ${raw}` });

/** The same request on the fast path and through Express alone. */
async function both(body: Buffer, headers: Record<string, string>, agent = agentId) {
  const fast = await post(body, headers, agent);
  const routed = await post(body, { ...headers, 'content-type': EXPRESS_ONLY }, agent);
  return { fast, routed };
}

async function actionEvents(): Promise<number> {
  let count = 0;
  for await (const event of server.server.services.eventStore.readStream(agentStream(agentId)))
    if (event.type === 'AgentActionDecided') count += 1;
  return count;
}

async function newKey(agent: string, scopes: string[]): Promise<string> {
  const answer = await client.request<{ raw_key: string }>('POST', `/v1/agents/${agent}/api-keys`, owner, {
    scopes,
  });
  expect(answer.status).toBe(201);
  return answer.body.raw_key;
}

async function newAgent(): Promise<string> {
  const answer = await client.request<{ agent: { agent_id: string } }>('POST', '/v1/agents', owner, {});
  expect(answer.status).toBe(201);
  return answer.body.agent.agent_id;
}

beforeAll(async () => {
  server = await startPlatformTestServer('gov-action-fast-path-');
  client = new PlatformClient(server);
  owner = await client.newUser('fast-path');
  agentId = await newAgent();
  otherAgentId = await newAgent();
  key = await newKey(agentId, ['actions', 'chat']);
  otherKey = await newKey(otherAgentId, ['actions', 'chat']);
  readOnlyKey = await newKey(agentId, ['agent:read']);
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

describe('POST /v1/agents/:agentId/actions before Express', () => {
  it('given a valid action from a key, then the fast answer has the shape and headers of the Express answer', async () => {
    const fast = await post(json(ACTION), { ...bearer(key), 'x-correlation-id': 'agent-run-7' });
    const routed = await post(json(ACTION), { ...bearer(key), 'content-type': EXPRESS_ONLY });
    expect(fast.status).toBe(200);
    expect(routed.status).toBe(200);
    expect(Object.keys(fast.body!).sort()).toEqual(Object.keys(routed.body!).sort());
    expect(fast.body!.verdict).toBe('ADMIT');
    expect(routed.body!.leaf_index as number).toBeGreaterThan(fast.body!.leaf_index as number);
    expect(fast.headers['content-type']).toBe(routed.headers['content-type']);
    expect(Number(fast.headers['content-length'])).toBe(Buffer.byteLength(fast.text));
    expect(fast.headers['x-correlation-id']).toBe('agent-run-7');
    expect(routed.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    const extra = (headers: http.IncomingHttpHeaders) =>
      Object.keys(headers).filter((name) => !['date', 'connection', 'keep-alive'].includes(name));
    expect(extra(fast.headers).sort()).toEqual(extra(routed.headers).sort());
  });

  it.each<[string, () => Record<string, string>, string | undefined, number, string]>([
    ['no credentials', () => ({}), undefined, 401, 'unauthorized'],
    ['an unknown key', () => bearer(`svc_sk_${'A'.repeat(43)}`), undefined, 401, 'unauthorized'],
    [
      'a malformed Authorization header',
      () => ({ authorization: 'Basic abc' }),
      undefined,
      401,
      'unauthorized',
    ],
    ['a key of another agent', () => bearer(otherKey), undefined, 403, 'forbidden'],
    ['a key without the actions scope', () => bearer(readOnlyKey), undefined, 403, 'forbidden'],
    ['an agent that does not exist', () => bearer(key), `svc_${'a'.repeat(26)}`, 403, 'forbidden'],
    ['a malformed agent id', () => bearer(key), 'not-an-agent', 403, 'forbidden'],
  ])(
    'given %s, then the Express refusal, and nothing is appended',
    async (_name, headers, agent, status, error) => {
      const before = await actionEvents();
      const { fast, routed } = await both(json(ACTION), headers(), agent ?? agentId);
      expect(fast.status).toBe(status);
      expect(fast.body).toMatchObject({ error });
      expect(fast.body).toEqual(routed.body);
      expect(await actionEvents()).toBe(before);
    },
  );

  it.each([
    ['malformed JSON', Buffer.from('{"type":', 'utf8')],
    ['a JSON array', Buffer.from('[1,2]', 'utf8')],
    ['a body the schema refuses', json({ type: 'chat_message' })],
    ['an unknown action type', json({ ...ACTION, type: 'launch_rockets' })],
    ['a member the schema does not know', json({ ...ACTION, principal: 'someone-else' })],
  ])('given %s, then the Express answer (invalid_request) and nothing is appended', async (_name, body) => {
    const before = await actionEvents();
    const { fast, routed } = await both(body, bearer(key));
    expect(fast.status).toBe(400);
    expect(fast.body).toMatchObject({ error: 'invalid_request' });
    expect(fast.body).toEqual(routed.body);
    expect(await actionEvents()).toBe(before);
  });

  it("given the owner's session from another site, then Express refuses it (csrf_rejected), nothing appended", async () => {
    const before = await actionEvents();
    const answer = await post(json(ACTION), {
      cookie: `gov_session=${owner.cookie}`,
      origin: 'https://evil.example',
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: 'csrf_rejected' });
    expect(await actionEvents()).toBe(before);
  });

  it("given the owner's session from the platform's pages, then Express decides the action", async () => {
    const answer = await post(json(ACTION), {
      cookie: `gov_session=${owner.cookie}`,
      origin: server.platformUrl,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ verdict: 'ADMIT' });
  });

  it('given actions on the fast path, then the route metric counts them under the Express route', async () => {
    const count = () =>
      requestCount(
        server.platformUrl,
        'gov_platform_http_request_duration_seconds',
        '/v1/agents/:agentId/actions',
        200,
      );
    const before = await count();
    expect((await post(json(ACTION), bearer(key))).status).toBe(200);
    expect((await post(json(ACTION), { ...bearer(key), 'content-type': EXPRESS_ONLY })).status).toBe(200);
    expect(await count()).toBe(before + 2);
  });
});
