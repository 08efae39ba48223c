/**
 * The proof fast path must be indistinguishable from the Express route it shortcuts: same body, same
 * headers, same metrics; and everything it does not serve must reach Express untouched.
 */
import {
  type GovClient,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from '../../../tests/support/governance-client';
import { requestCount } from '../../../tests/support/request-count';
import { proofFastPath } from './proof-fast-path';

describe('GET /gov/v1/log/proof before Express', () => {
  let t: TestServer;
  let client: GovClient;
  let leafHash: string;

  beforeAll(async () => {
    t = await startTestServer('gov-fast-path');
    client = t.client;
    const tenant = await client.register();
    await setTier(t.server, tenant.tenant_id, 'L2');
    for (let i = 0; i < 5; i++)
      leafHash = (await client.admit(tenant.api_key, validEvidence(`fast-${i}`))).leaf_hash;
  });
  afterAll(async () => {
    await t.dispose();
  });

  const headersOf = (answer: { headers: Headers }) => ({
    'content-type': answer.headers.get('content-type'),
    'access-control-allow-origin': answer.headers.get('access-control-allow-origin'),
    'content-length': answer.headers.get('content-length'),
  });

  it('given a signed leaf, then the fast answer equals the Express answer for the same proof', async () => {
    const size = (await client.get<{ tree_size: number }>('/gov/v1/log/sth')).body.tree_size;
    const fast = await client.get(`/gov/v1/log/proof?leaf_hash=${leafHash}`);
    // A tree_size parameter is not the fast path's shape: Express answers, for the same tree.
    const routed = await client.get(`/gov/v1/log/proof?leaf_hash=${leafHash}&tree_size=${size}`);
    expect(fast.status).toBe(200);
    expect(routed.status).toBe(200);
    expect(fast.text).toBe(routed.text);
    expect(headersOf(fast)).toEqual(headersOf(routed));
    expect(fast.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("given the client's correlation id, then it is echoed, as Express does", async () => {
    const answer = await client.request('GET', `/gov/v1/log/proof?leaf_hash=${leafHash}`, {
      headers: { 'x-correlation-id': 'audit-run-7' },
    });
    expect(answer.headers.get('x-correlation-id')).toBe('audit-run-7');
  });

  it('given what the fast path does not serve, then Express answers it with the usual errors', async () => {
    const unknown = await client.get(`/gov/v1/log/proof?leaf_hash=${'0'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'NOT_FOUND' });
    const upper = await client.get(`/gov/v1/log/proof?leaf_hash=${leafHash.toUpperCase()}`);
    expect(upper.status).toBe(400);
    expect(upper.body).toMatchObject({ error: 'INVALID_REQUEST' });
    const extra = await client.get(`/gov/v1/log/proof?leaf_hash=${leafHash}&page=2`);
    expect(extra.status).toBe(400);
    const post = await client.request('POST', `/gov/v1/log/proof?leaf_hash=${leafHash}`, { json: {} });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('given fast answers, then they are counted under the route, as Express answers are', async () => {
    const count = () => requestCount(t.server.url, 'gov_http_request_duration_seconds', '/proof', 200);
    const before = await count();
    for (let i = 0; i < 3; i++) await client.get(`/gov/v1/log/proof?leaf_hash=${leafHash}`);
    expect((await count()) - before).toBe(3);
  });

  it('given its one URL shape, then it answers itself; given any other, it writes nothing and passes', () => {
    const { services } = t.server;
    const fast = proofFastPath({ log: services.log, metrics: services.metrics, logger: services.logger });
    const attempt = (method: string, url: string) => {
      const written: unknown[] = [];
      const res = {
        writeHead: (...args: unknown[]) => written.push(args),
        end: (body: string) => written.push(body),
      };
      const served = fast({ method, url, headers: {} } as never, res as never);
      return { served, written: written.length };
    };
    expect(attempt('GET', `/gov/v1/log/proof?leaf_hash=${leafHash}`)).toEqual({ served: true, written: 2 });
    for (const [method, url] of [
      ['HEAD', `/gov/v1/log/proof?leaf_hash=${leafHash}`],
      ['GET', `/gov/v1/log/proof?leaf_hash=${leafHash}&tree_size=3`],
      ['GET', `/gov/v1/log/proof?leaf_hash=${'1'.repeat(64)}`],
      ['GET', `/gov/v1/log/proofs?leaf_hash=${leafHash}`],
      ['GET', `/gov/v1/log/proof?tree_size=3&leaf_hash=${leafHash}`],
    ] as const)
      expect({ url, ...attempt(method, url) }).toEqual({ url, served: false, written: 0 });
  });
});
