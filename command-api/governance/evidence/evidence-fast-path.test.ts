/**
 * The evidence fast path must be indistinguishable from the Express route it shortcuts: the same
 * answers, headers, metrics and rate counting; whatever it hands back to Express must be answered as
 * if it had never looked at it. A Content-Type Express reads and the fast path does not take
 * (`application/vnd.gov+json`) sends the same request through Express alone, for comparison.
 */
import http from 'node:http';
import {
  type GovClient,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from '../../../tests/support/governance-client';
import { type RawAnswer, rawRequest } from '../../../tests/support/raw-request';
import { requestCount } from '../../../tests/support/request-count';

const EXPRESS_ONLY = 'application/vnd.gov+json';

type Raw = RawAnswer<Record<string, unknown>>;

/** One POST with the bytes and headers exactly as given. */
const post = (
  base: string,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
  options: { chunked?: boolean } = {},
) =>
  rawRequest<Record<string, unknown>>(base, 'POST', path, {
    headers,
    body,
    chunked: options.chunked ?? false,
  });

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
const withoutCorrelation = (body: Raw['body']) => ({ ...body, correlation_id: '<id>' });

describe('POST /governance/evidence before Express', () => {
  let t: TestServer;
  let client: GovClient;
  let tenant: Registration;
  const evidence = (type: string, key = tenant.api_key) => ({
    'content-type': type,
    authorization: `Bearer ${key}`,
  });
  /** POSTs `body` to the evidence route, as JSON from the tenant unless told otherwise. */
  const submit = (
    body: Buffer,
    options: { type?: string; key?: string; headers?: Record<string, string>; chunked?: boolean } = {},
  ) =>
    post(
      t.server.url,
      '/governance/evidence',
      body,
      { ...evidence(options.type ?? 'application/json', options.key), ...options.headers },
      { chunked: options.chunked ?? false },
    );
  const events = async (type?: string) => {
    let count = 0;
    for await (const event of t.server.services.eventStore.readAll())
      if (!type || event.type === type) count++;
    return count;
  };

  beforeAll(async () => {
    t = await startTestServer('gov-evidence-fast-path');
    client = t.client;
    tenant = await client.register();
    await setTier(t.server, tenant.tenant_id, 'L4');
  });
  afterAll(async () => {
    await t.dispose();
  });

  it('given valid evidence, then the fast answer has the shape and headers of the Express answer', async () => {
    const fast = await submit(json(validEvidence('fast-a')), {
      headers: { 'x-correlation-id': 'audit-run-7' },
    });
    const routed = await submit(json(validEvidence('fast-b')), { type: EXPRESS_ONLY });
    expect(fast.status).toBe(201);
    expect(routed.status).toBe(201);
    expect(Object.keys(fast.body!).sort()).toEqual(Object.keys(routed.body!).sort());
    expect(fast.body!.leaf_index).toBe((routed.body!.leaf_index as number) - 1);
    expect(fast.headers['content-type']).toBe(routed.headers['content-type']);
    expect(Number(fast.headers['content-length'])).toBe(JSON.stringify(fast.body).length);
    expect(fast.headers['x-correlation-id']).toBe('audit-run-7');
    expect(routed.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    const extra = (headers: http.IncomingHttpHeaders) =>
      Object.keys(headers).filter((name) => !['date', 'connection', 'keep-alive'].includes(name));
    expect(extra(fast.headers).sort()).toEqual(extra(routed.headers).sort());
  });

  it.each([
    ['malformed JSON', Buffer.from('{"subject_id":', 'utf8')],
    ['a JSON array', Buffer.from('[1,2]', 'utf8')],
    ['a string', Buffer.from('"evidence"', 'utf8')],
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from('{"subject_id":"', 'utf8'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    ],
    ['a member named __proto__', Buffer.from('{"__proto__":{"polluted":true}}', 'utf8')],
    ['an object the schema refuses', json({ subject_id: 'x' })],
  ])('given %s, then the answer is the Express answer and nothing is appended', async (_name, body) => {
    const before = await events();
    const fast = await submit(body);
    const routed = await submit(body, { type: EXPRESS_ONLY });
    expect(fast.status).toBe(400);
    expect(withoutCorrelation(fast.body)).toEqual(withoutCorrelation(routed.body));
    expect(fast.body!.correlation_id).toBe(fast.headers['x-correlation-id']);
    expect(await events()).toBe(before);
  });

  it.each<[string, (body: Record<string, unknown>) => void, string]>([
    [
      'a string',
      (body) => {
        (body.gate_results as { G5: { operator_id: string } }).G5.operator_id = 'op-\ud800';
      },
      '/gate_results/G5/operator_id',
    ],
    [
      'a member name',
      (body) => {
        body['note\udc00'] = 1;
      },
      '/note\udc00',
    ],
  ])(
    'given evidence with a lone surrogate escape in %s, then 400 naming it on the fast path and in Express, nothing appended',
    async (_where, plant, pointer) => {
      const before = await events();
      const body = validEvidence('fast-surrogate') as unknown as Record<string, unknown>;
      plant(body);
      // JSON.stringify writes a lone surrogate as its escape: the bytes are valid UTF-8.
      expect(JSON.stringify(body)).toMatch(/\\ud[89a-f][0-9a-f]{2}/);
      const fast = await submit(json(body));
      const routed = await submit(json(body), { type: EXPRESS_ONLY });
      for (const answer of [fast, routed]) {
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          error: 'INVALID_REQUEST',
          fields: [{ pointer, reason: expect.stringContaining('lone UTF-16 surrogate') }],
        });
      }
      expect(await events()).toBe(before);
    },
  );

  it('given valid evidence after a byte-order mark, then Express reads it (the fast path does not) and admits it', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json(validEvidence('fast-bom'))]);
    const answer = await submit(body);
    const again = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json(validEvidence('fast-bom-2'))]);
    const routed = await submit(again, { type: EXPRESS_ONLY });
    expect(answer.status).toBe(201);
    expect(routed.status).toBe(201);
  });

  it('given a chunked body, then Express answers it as usual', async () => {
    const answer = await submit(json(validEvidence('fast-chunked')), { chunked: true });
    expect(answer.status).toBe(201);
  });

  it.each(['bearer', 'BEARER', 'bEaReR'])(
    'given the scheme written %s, then the key is accepted on the fast path, in Express and on a GET',
    async (scheme) => {
      const headers = { authorization: `${scheme} ${tenant.api_key}` };
      const fast = await submit(json(validEvidence(`fast-${scheme}`)), { headers });
      const routed = await submit(json(validEvidence(`routed-${scheme}`)), { type: EXPRESS_ONLY, headers });
      const account = await fetch(`${t.server.url}/account`, { headers });
      expect([fast.status, routed.status, account.status]).toEqual([201, 201, 200]);
    },
  );

  it('given an unknown key, then 401 with its WWW-Authenticate, as Express answers it', async () => {
    const fast = await submit(json(validEvidence('fast-401')), { key: 'gov_live_0000000000000000_unknown' });
    expect(fast.status).toBe(401);
    expect(fast.body!.error).toBe('UNAUTHORIZED');
    expect(fast.headers['www-authenticate']).toBe('Bearer realm="gov"');
  });

  it('given a request the fast path hands back, then it is counted once against the rate allowance', async () => {
    const trial = await client.register();
    // Tier L1 allows 60 requests a minute; the test clock stands still, so they share one window.
    for (let i = 0; i < 59; i++) {
      const refused = await submit(json({ subject_id: 'x' }), { key: trial.api_key });
      expect(refused.status).toBe(400);
    }
    const last = await submit(json(validEvidence('fast-rate')), { key: trial.api_key });
    expect(last.status).toBe(201);
    const over = await submit(json(validEvidence('fast-rate')), { key: trial.api_key });
    expect(over.status).toBe(429);
    expect(over.body!.error).toBe('RATE_LIMITED');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('given admissions on the fast path, then the route metric counts them under the Express route', async () => {
    const metric = () =>
      requestCount(t.server.url, 'gov_http_request_duration_seconds', '/governance/evidence', 201);
    const before = await metric();
    await submit(json(validEvidence('fast-m1')));
    await submit(json(validEvidence('fast-m2')), { type: EXPRESS_ONLY });
    expect(await metric()).toBe(before + 2);
  });

  it('given a client that goes away in the middle of its body, then nothing is appended and the server goes on', async () => {
    const before = await events('EvidenceAdmitted');
    const { hostname, port } = new URL(t.server.url);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: hostname,
        port,
        method: 'POST',
        path: '/governance/evidence',
        headers: { ...evidence('application/json'), 'content-length': '5000' },
      });
      req.on('error', () => resolve());
      req.write('{"subject_id":"half');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const next = await submit(json(validEvidence('fast-after')));
    expect(next.status).toBe(201);
    expect(await events('EvidenceAdmitted')).toBe(before + 1);
  });
});
