/**
 * Hostile input at the HTTP edge, against the started embedded server: oversize, deeply nested,
 * badly encoded and prototype-polluting bodies on every operation of the served OpenAPI document that
 * reads a body; numbers no integer field can hold; path tricks in every path parameter; slow clients.
 * Each gets a 4xx in the API's error shape (never a 5xx), and the event store holds exactly as many
 * events afterwards as before.
 */
import net from 'node:net';
import { collect } from '../ports/contract/event-store.contract';
import { ConfigError, loadConfig } from '../runtime/config/config';
import { realPathValues, startEdgeFixture } from './support/edge-fixture';
import {
  type AdmittedEvidence,
  type Registration,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';
import {
  type DocumentedOperation,
  documentedOperations,
  type OpenApiDocument,
  requiresApiKey,
} from './support/openapi-operations';
import { type RawAnswer, rawRequest } from './support/raw-request';

const MAX_BODY_BYTES = 262_144;
const json = (text: string) => Buffer.from(text, 'utf8');
const nestedObjects = (depth: number) => json(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const nestedArrays = (depth: number) => json(`${'['.repeat(depth)}${']'.repeat(depth)}`);
const withBytes = (before: string, bytes: number[], after: string) =>
  Buffer.concat([json(before), Buffer.from(bytes), json(after)]);

interface HostileBody {
  name: string;
  body: Buffer;
  contentType?: string;
  status: number;
  error: string;
  /** Only for operations whose document entry has a request body (an empty body is what the others take). */
  bodyRoutesOnly?: boolean;
}

const HOSTILE_BODIES: HostileBody[] = [
  {
    name: 'a body one byte over GOV_MAX_BODY_BYTES',
    body: json(`{"pad":"${'a'.repeat(MAX_BODY_BYTES + 1 - 10)}"}`),
    status: 413,
    error: 'PAYLOAD_TOO_LARGE',
  },
  { name: 'objects nested 10,000 deep', body: nestedObjects(10_000), status: 400, error: 'INVALID_REQUEST' },
  { name: 'arrays nested 10,000 deep', body: nestedArrays(10_000), status: 400, error: 'INVALID_REQUEST' },
  {
    name: 'arrays nested as deep as the body limit allows (131,000)',
    body: nestedArrays(131_000),
    status: 400,
    error: 'INVALID_REQUEST',
  },
  {
    name: 'invalid UTF-8 bytes (0xFF 0xFE) in a string',
    body: withBytes('{"email":"a', [0xff, 0xfe], '@example.com"}'),
    status: 400,
    error: 'INVALID_REQUEST',
  },
  {
    name: 'an overlong UTF-8 encoding of "/" (0xC0 0xAF)',
    body: withBytes('{"url":"http://example.com', [0xc0, 0xaf], 'x"}'),
    status: 400,
    error: 'INVALID_REQUEST',
  },
  {
    name: 'a UTF-16 surrogate encoded as UTF-8 (0xED 0xA0 0x80)',
    body: withBytes('{"subject_id":"', [0xed, 0xa0, 0x80], '"}'),
    status: 400,
    error: 'INVALID_REQUEST',
  },
  {
    name: 'a body declared as UTF-16',
    body: Buffer.from('{"email":"a@example.com"}', 'utf16le'),
    contentType: 'application/json; charset=utf-16',
    status: 415,
    error: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a __proto__ member',
    body: json('{"__proto__":{"polluted":true}}'),
    status: 400,
    error: 'INVALID_REQUEST',
  },
  {
    name: 'a constructor.prototype member',
    body: json('{"constructor":{"prototype":{"polluted":true}}}'),
    status: 400,
    error: 'INVALID_REQUEST',
  },
  {
    name: 'a prototype member',
    body: json('{"prototype":{"polluted":true}}'),
    status: 400,
    error: 'INVALID_REQUEST',
  },
  { name: 'a number no integer can hold', body: json('{"n":1e400}'), status: 400, error: 'INVALID_REQUEST' },
  { name: 'malformed JSON', body: json('{"email":'), status: 400, error: 'INVALID_REQUEST' },
  { name: 'JSON that is not an object', body: json('"a string"'), status: 400, error: 'INVALID_REQUEST' },
  {
    name: 'JSON sent as text/plain',
    body: json('{"email":"a@example.com"}'),
    contentType: 'text/plain',
    status: 400,
    error: 'INVALID_REQUEST',
  },
  {
    name: 'JSON sent without a Content-Type',
    body: json('{"email":"a@example.com"}'),
    contentType: '',
    status: 400,
    error: 'INVALID_REQUEST',
  },
  {
    name: 'an empty body',
    body: Buffer.alloc(0),
    status: 400,
    error: 'INVALID_REQUEST',
    bodyRoutesOnly: true,
  },
];

describe('hostile input at the HTTP edge', () => {
  let t: TestServer;
  let doc: OpenApiDocument;
  let tenant: Registration;
  let authorization: AdmittedEvidence;
  let webhookId: string;
  const client = () => t.client;
  const eventCount = async () => (await collect(t.server.services.eventStore.readAll())).length;

  beforeAll(async () => {
    ({ t, doc, tenant, authorization, webhookId } = await startEdgeFixture('gov-hostile'));
  });
  afterAll(async () => {
    await t?.dispose();
  });

  /** Real ids of the tenant's own resources: only the hostile part of a request is wrong. */
  const pathValues = () => realPathValues({ authorization, webhookId });
  const pathWith = (documented: DocumentedOperation, value: (name: string) => string) =>
    documented.template.replace(/\{([^}]+)\}/g, (_, name: string) => value(name));
  const headersFor = (documented: DocumentedOperation, contentType?: string): Record<string, string> => ({
    ...(requiresApiKey(doc, documented.operation) ? { authorization: `Bearer ${tenant.api_key}` } : {}),
    ...(contentType === '' ? {} : { 'content-type': contentType ?? 'application/json' }),
  });
  const bodyReading = () =>
    documentedOperations(doc).filter(({ method, operation }) => method === 'post' || operation.requestBody);

  /** A 4xx in the error shape: a code and a sentence. */
  const expectClearRefusal = (label: string, res: RawAnswer, status: number | number[]) => {
    const statuses = Array.isArray(status) ? status : [status];
    expect({ label, status: statuses.includes(res.status) ? 'expected' : res.status }).toEqual({
      label,
      status: 'expected',
    });
    expect(res.body?.error).toEqual(expect.any(String));
    expect(res.body?.message?.length ?? 0).toBeGreaterThan(10);
  };

  it('given the served document, then it has operations that read a body (the cases below run on each)', () => {
    const labels = bodyReading().map((op) => op.operation.operationId);
    expect(labels).toEqual(
      expect.arrayContaining([
        'autoRegister',
        'rotateApiKey',
        'submitEvidence',
        'submitExecution',
        'registerWebhook',
        'submitWitnessSignature',
        'redeliverWebhookDelivery',
      ]),
    );
  });

  describe.each(HOSTILE_BODIES)('given $name', (hostile) => {
    it(`when it is POSTed to each operation that reads a body, then ${hostile.status} ${hostile.error} and nothing is appended`, async () => {
      const before = await eventCount();
      const operations = bodyReading().filter(
        ({ operation }) => !hostile.bodyRoutesOnly || operation.requestBody,
      );
      expect(operations.length).toBeGreaterThan(3);
      for (const documented of operations) {
        const res = await rawRequest(
          t.server.url,
          documented.method.toUpperCase(),
          pathWith(documented, (name) => pathValues()[name]!),
          { headers: headersFor(documented, hostile.contentType), body: hostile.body },
        );
        expectClearRefusal(documented.label, res, hostile.status);
        expect({ label: documented.label, error: res.body?.error }).toEqual({
          label: documented.label,
          error: hostile.error,
        });
      }
      expect(await eventCount()).toBe(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  it('given an oversize body, then the 413 names the limit', async () => {
    const res = await rawRequest(t.server.url, 'POST', '/auto-register', {
      headers: { 'content-type': 'application/json' },
      body: HOSTILE_BODIES[0]!.body,
    });
    expect(res.body?.message).toMatch(new RegExp(`limit is ${MAX_BODY_BYTES} bytes`));
  });

  describe('numbers where integers are expected', () => {
    const submit = (route: string, text: string, key?: string) =>
      rawRequest(t.server.url, 'POST', route, {
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: json(text),
      });
    const evidenceWith = (field: 'bootstrap_iterations' | 'confidence_interval_lower', literal: string) => {
      const body = validEvidence('numbers-subject');
      (body.gate_results.G1 as Record<string, unknown>)[field] = '@@';
      return JSON.stringify(body).replace('"@@"', literal);
    };

    it.each([
      ['1e400', 'bootstrap_iterations', '/gate_results/G1/bootstrap_iterations'],
      ['18446744073709551616 (2^64)', 'bootstrap_iterations', '/gate_results/G1/bootstrap_iterations'],
      ['9007199254740993 (2^53 + 1)', 'bootstrap_iterations', '/gate_results/G1/bootstrap_iterations'],
      ['1000.5', 'bootstrap_iterations', '/gate_results/G1/bootstrap_iterations'],
      ['-1e400', 'confidence_interval_lower', '/gate_results/G1/confidence_interval_lower'],
    ] as const)(
      'given evidence with %s in %s, then 400 naming the field and nothing appended',
      async (literal, field, pointer) => {
        const before = await eventCount();
        const res = await submit(
          '/governance/evidence',
          evidenceWith(field, literal.split(' ')[0]!),
          tenant.api_key,
        );
        expectClearRefusal(literal, res, 400);
        expect(res.body?.fields?.map((f) => f.pointer)).toEqual([pointer]);
        expect(await eventCount()).toBe(before);
      },
    );

    it('given evidence with -0 iterations, then it is the integer 0: a G1 failure on record (422), not an error', async () => {
      const before = await eventCount();
      const res = await submit(
        '/governance/evidence',
        evidenceWith('bootstrap_iterations', '-0'),
        tenant.api_key,
      );
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'GATE_FAILURE', gates_failed: ['G1'] });
      expect(JSON.stringify(res.body)).toMatch(/bootstrap_iterations 0 is below/);
      // The gate failure is a domain event, and the only thing appended.
      expect(await eventCount()).toBe(before + 1);
    });

    it.each(['1e400', '18446744073709551616', '9007199254740992', '-1', '-0', '1.5'])(
      'given a witness signature for tree_size %s, then 400 and nothing appended',
      async (literal) => {
        const before = await eventCount();
        const res = await submit(
          '/gov/v1/log/witness-signatures',
          `{"tree_size":${literal},"cosignature":"— w.example AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`,
        );
        expectClearRefusal(literal, res, 400);
        expect(await eventCount()).toBe(before);
      },
    );

    it('given an execution whose exec_state holds 1e400, then 400 naming the field', async () => {
      const res = await submit(
        '/governance/execution',
        `{"parent_auth_leaf_hash":"${authorization.leaf_hash}","outcome":"EXECUTED","exec_state":{"H":1e400,"C":0.5,"E":0.5}}`,
        tenant.api_key,
      );
      expectClearRefusal('exec_state', res, 400);
      expect(res.body?.fields?.[0]?.pointer).toBe('/exec_state/H');
    });

    it.each([
      ['/governance/chain?page=1e400', true],
      ['/governance/chain?limit=18446744073709551616', true],
      ['/governance/chain?page=-0', true],
      ['/gov/v1/log/leaf?index=1e400', false],
      ['/gov/v1/log/leaf?index=18446744073709551616', false],
      ['/gov/v1/log/leaf?index=-0', false],
      ['/gov/v1/log/sth?tree_size=9007199254740993', false],
    ])('given GET %s, then 400', async (route, authenticated) => {
      const res = await rawRequest(t.server.url, 'GET', route, {
        headers: authenticated ? { authorization: `Bearer ${tenant.api_key}` } : {},
      });
      expectClearRefusal(route, res, 400);
    });
  });

  describe('prototype-pollution keys below the top level', () => {
    it.each([
      [
        '/governance/execution',
        (leaf: string) =>
          `{"parent_auth_leaf_hash":"${leaf}","outcome":"EXECUTED","execution_context":{"__proto__":{"polluted":true}}}`,
        '/execution_context/__proto__',
      ],
      [
        '/governance/evidence',
        () =>
          JSON.stringify(validEvidence('proto-subject')).replace(
            '"protected_metrics":{',
            '"protected_metrics":{"__proto__":0.1,',
          ),
        '/gate_results/G3/protected_metrics/__proto__',
      ],
    ])(
      'given a nested __proto__ member in a POST %s body, then 400 naming it, nothing appended, nothing polluted',
      async (route, body, pointer) => {
        const before = await eventCount();
        const res = await rawRequest(t.server.url, 'POST', route, {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.api_key}` },
          body: json(body(authorization.leaf_hash)),
        });
        expectClearRefusal(route, res, 400);
        expect(res.body?.fields).toEqual([{ pointer, reason: expect.stringMatching(/reserved/) }]);
        expect(await eventCount()).toBe(before);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      },
    );

    it('given constructor and prototype members in the free-form execution_context, then they are kept as plain data and pollute nothing', async () => {
      const fresh = await client().admit(tenant.api_key, validEvidence('proto-data-subject'));
      const context = { constructor: { prototype: { polluted: true } }, prototype: { polluted: true } };
      const res = await client().post(
        '/governance/execution',
        { parent_auth_leaf_hash: fresh.leaf_hash, outcome: 'EXECUTED', execution_context: context },
        tenant.api_key,
      );
      expect(res.status).toBe(201);
      const triple = await client().get<{ execution: { record: { execution_context: unknown } } }>(
        `/governance/triple-leaf/${fresh.leaf_hash}`,
        tenant.api_key,
      );
      expect(triple.body.execution.record.execution_context).toEqual(context);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    });

    it('given prototype keys in a query string, then 400 (unknown parameter) and nothing polluted', async () => {
      const res = await rawRequest(
        t.server.url,
        'GET',
        '/governance/chain?__proto__[polluted]=1&constructor[prototype][polluted]=1',
        { headers: { authorization: `Bearer ${tenant.api_key}` } },
      );
      expectClearRefusal('query', res, 400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('path tricks in every path parameter of the document', () => {
    const tricks: [string, (real: string) => string][] = [
      ['..', () => '..'],
      ['../../etc/passwd', () => '../../etc/passwd'],
      ['..%2f..%2fetc%2fpasswd', () => '..%2f..%2fetc%2fpasswd'],
      ['%2e%2e%2f%2e%2e%2fetc%2fpasswd', () => '%2e%2e%2f%2e%2e%2fetc%2fpasswd'],
      ['an overlong value (4,000 characters)', () => 'a'.repeat(4000)],
      ['the real id in upper case', (real) => real.toUpperCase()],
      ['a NUL byte (%00)', () => '%00'],
      ['the real id followed by %00', (real) => `${real}%00`],
      ['the real id followed by a space (%20)', (real) => `${real}%20`],
      ['a lone % sign', () => '%'],
      ['an invalid escape (%zz)', () => '%zz'],
      ['an overlong UTF-8 "/" (%c0%af)', () => '%c0%af'],
    ];

    it.each(tricks)(
      'given %s, then every operation answers 400 or 404 in the error shape, and nothing is appended',
      async (_name, trick) => {
        const before = await eventCount();
        const withParameters = documentedOperations(doc).filter(({ template }) => template.includes('{'));
        expect(withParameters.length).toBeGreaterThanOrEqual(8);
        for (const documented of withParameters) {
          const path = pathWith(documented, (name) => trick(pathValues()[name] ?? 'x'));
          const res = await rawRequest(t.server.url, documented.method.toUpperCase(), path, {
            headers: headersFor(documented),
            ...(documented.method === 'post' ? { body: json('{}') } : {}),
          });
          expectClearRefusal(`${documented.label} ${path.slice(0, 80)}`, res, [400, 404]);
          expect(res.text).not.toMatch(/root:/);
        }
        expect(await eventCount()).toBe(before);
      },
    );

    it('given the real id, then the same operations find the resource (the tricks are what is refused)', async () => {
      const report = await client().get(`/governance/report/${authorization.artifact_hash}`, tenant.api_key);
      expect(report.status).toBe(200);
      expect((await client().get(`/webhooks/${webhookId}`, tenant.api_key)).status).toBe(200);
    });
  });
});

describe('slow clients', () => {
  let t: TestServer;
  const HEADERS_TIMEOUT_MS = 300;
  const REQUEST_TIMEOUT_MS = 600;
  const eventCount = async () => (await collect(t.server.services.eventStore.readAll())).length;

  beforeAll(async () => {
    t = await startTestServer('gov-slow-clients', {
      env: {
        GOV_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        GOV_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
    });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  /** Opens a socket, lets `talk` write to it, and resolves with what came back once it is closed. */
  function converse(
    talk: (socket: net.Socket) => void,
  ): Promise<{ received: string; closedAfterMs: number }> {
    const { hostname, port } = new URL(t.server.url);
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = net.connect(Number(port), hostname);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        received += chunk;
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ received, closedAfterMs: Date.now() - started }));
      socket.on('connect', () => talk(socket));
    });
  }

  const REGISTRATION = '{"email":"slow@example.com"}';
  const HEADERS = `POST /auto-register HTTP/1.1\r\nHost: gov\r\nContent-Type: application/json\r\nContent-Length: ${REGISTRATION.length}\r\n\r\n`;

  it('given a client sending its headers a byte every 50 ms (slower than the headers timeout), then the server answers 408 and closes the connection', async () => {
    const before = await eventCount();
    let timer: NodeJS.Timeout | undefined;
    const { received, closedAfterMs } = await converse((socket) => {
      let i = 0;
      timer = setInterval(() => {
        if (socket.destroyed || i >= HEADERS.length) return clearInterval(timer);
        socket.write(HEADERS[i++]!);
      }, 50);
    });
    clearInterval(timer);
    // Node answers 408 when it can; a connection closed without a word is also a refusal.
    expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
    expect(closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(closedAfterMs).toBeLessThan(HEADERS.length * 50);
    expect(await eventCount()).toBe(before);
  });

  it('given a client that sends its headers and then stalls in the body, then the request timeout answers 408 and closes', async () => {
    const before = await eventCount();
    const { received, closedAfterMs } = await converse((socket) => {
      socket.write(`${HEADERS}${REGISTRATION.slice(0, 10)}`);
    });
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 3000);
    expect(await eventCount()).toBe(before);
  });

  it('given a client that connects and sends nothing, then it is closed after the headers timeout', async () => {
    const { received, closedAfterMs } = await converse(() => undefined);
    expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 3000);
  });

  it('given a client that sends in pieces but within the timeouts, then it is served', async () => {
    const { received } = await converse((socket) => {
      socket.write(HEADERS.slice(0, 20));
      setTimeout(() => socket.write(HEADERS.slice(20)), 50);
      setTimeout(() => socket.write(REGISTRATION), 100);
      socket.once('data', () => socket.end());
    });
    expect(received).toMatch(/^HTTP\/1\.1 201/);
  });

  it('then the server still answers other clients', async () => {
    expect((await t.client.get('/health')).status).toBe(200);
  });

  it.each([
    [{ GOV_HEADERS_TIMEOUT_MS: '50' }, /GOV_HEADERS_TIMEOUT_MS must be an integer from 100/],
    [{ GOV_REQUEST_TIMEOUT_MS: 'soon' }, /GOV_REQUEST_TIMEOUT_MS must be an integer/],
    [
      { GOV_HEADERS_TIMEOUT_MS: '5000', GOV_REQUEST_TIMEOUT_MS: '1000' },
      /GOV_REQUEST_TIMEOUT_MS \(1000\) must be at least GOV_HEADERS_TIMEOUT_MS \(5000\)/,
    ],
  ])('given the environment %o, then the configuration is refused naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('given no timeout variables, then the headers get 10 s and the whole request 30 s', () => {
    expect(loadConfig({})).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
  });
});
