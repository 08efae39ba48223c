/**
 * The HTTP edge's answers to what the routes do not take, against the started embedded server and the
 * split roles over the same services: lone surrogates in bodies, a chunked body over the limit, a known
 * path with a method it does not have, unknown query parameters on every documented operation, and the
 * public replay route's 404.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collect } from '../ports/contract/event-store.contract';
import { createRequestHandler, type ServedSide } from '../runtime/wiring/http-app';
import { realPathValues, startEdgeFixture } from './support/edge-fixture';
import {
  type AdmittedEvidence,
  digest,
  type Registration,
  type TestServer,
  validEvidence,
} from './support/governance-client';
import {
  type DocumentedOperation,
  documentedOperations,
  fillPath,
  type OpenApiDocument,
  parametersOf,
  requiresApiKey,
} from './support/openapi-operations';
import { rawRequest as request } from './support/raw-request';

const MAX_BODY_BYTES = 262_144;
const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

describe('the HTTP edge', () => {
  let t: TestServer;
  let doc: OpenApiDocument;
  let tenant: Registration;
  let admitted: AdmittedEvidence;
  let webhookId: string;
  const base = () => t.server.url;
  const bearer = () => ({ authorization: `Bearer ${tenant.api_key}` });
  const eventCount = async () => (await collect(t.server.services.eventStore.readAll())).length;

  beforeAll(async () => {
    ({ t, doc, tenant, authorization: admitted, webhookId } = await startEdgeFixture('gov-http-edges'));
  });
  afterAll(async () => {
    await t?.dispose();
  });

  describe('lone surrogates in a body', () => {
    it.each<[string, string, () => Record<string, unknown>, string]>([
      [
        'an execution_context value',
        '/governance/execution',
        () => ({
          parent_auth_leaf_hash: admitted.leaf_hash,
          outcome: 'EXECUTED',
          execution_context: { note: 'ok \ud800 then' },
        }),
        '/execution_context/note',
      ],
      [
        'an execution_context member name',
        '/governance/execution',
        () => ({
          parent_auth_leaf_hash: admitted.leaf_hash,
          outcome: 'EXECUTED',
          execution_context: { 'key\udfff': 1 },
        }),
        '/execution_context/key\udfff',
      ],
      [
        'the organization',
        '/auto-register',
        () => ({ email: 'surrogate@example.com', organization: 'Acme \udbff' }),
        '/organization',
      ],
      [
        "a webhook's secret",
        '/webhooks',
        () => ({ url: 'http://127.0.0.1:9/s', events: ['gate_fail'], secret: 'abcdefghijklmnop\udc00' }),
        '/secret',
      ],
      [
        'a webhook body member name',
        '/webhooks',
        () => ({ url: 'http://127.0.0.1:9/s', events: ['gate_fail'], '\ud800': true }),
        '/\ud800',
      ],
    ])(
      'given %s with a lone surrogate escape, when POSTed to %s, then 400 naming it and nothing stored',
      async (_what, route, body, pointer) => {
        const before = await eventCount();
        const bytes = json(body());
        expect(bytes.toString('utf8')).toMatch(/\\ud[89a-f][0-9a-f]{2}/);
        const res = await request(base(), 'POST', route, {
          headers: { 'content-type': 'application/json', ...bearer() },
          body: bytes,
        });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          error: 'INVALID_REQUEST',
          fields: [{ pointer, reason: expect.stringContaining('lone UTF-16 surrogate') }],
        });
        expect(await eventCount()).toBe(before);
      },
    );
  });

  describe('a chunked body over the limit', () => {
    it.each([
      ['/governance/evidence', 'the evidence route (its fast path takes no chunked body: Express answers)'],
      ['/webhooks', 'an Express route'],
      ['/auto-register', 'an unauthenticated route'],
    ])(
      'given POST %s (%s) without a Content-Length, then 413 saying it is more than the limit',
      async (route) => {
        const half = Buffer.alloc(MAX_BODY_BYTES / 2 + 8, 0x20);
        const res = await request(base(), 'POST', route, {
          headers: { 'content-type': 'application/json', ...bearer() },
          chunked: true,
          body: [Buffer.from('{"pad":"'), half, half, Buffer.from('"}')],
        });
        expect(res.status).toBe(413);
        expect(res.body?.error).toBe('PAYLOAD_TOO_LARGE');
        expect(res.body?.message).toBe(
          `the request body is more than ${MAX_BODY_BYTES} bytes; the limit is ${MAX_BODY_BYTES} bytes`,
        );
      },
    );

    it('given a Content-Length over the limit, then the 413 says how large the body is', async () => {
      const body = Buffer.alloc(MAX_BODY_BYTES + 100, 0x20);
      const res = await request(base(), 'POST', '/webhooks', {
        headers: { 'content-type': 'application/json', ...bearer() },
        body,
      });
      expect(res.status).toBe(413);
      expect(res.body?.message).toBe(
        `the request body is ${body.length} bytes; the limit is ${MAX_BODY_BYTES} bytes`,
      );
    });
  });

  describe('a known path with a method it does not have', () => {
    /** Methods the document lists for each path template, with HEAD wherever GET is. */
    const documentedMethods = (): Map<string, string[]> => {
      const methods = new Map<string, string[]>();
      for (const { method, template } of documentedOperations(doc)) {
        const list = methods.get(template) ?? [];
        list.push(method.toUpperCase());
        if (method === 'get') list.push('HEAD');
        methods.set(template, list);
      }
      return methods;
    };
    const pathValues = () => realPathValues({ authorization: admitted, webhookId });

    it('given every documented path, when called with each method it lacks, then 405 METHOD_NOT_ALLOWED with the Allow header the document implies', async () => {
      const before = await eventCount();
      const checked: string[] = [];
      for (const [template, methods] of documentedMethods()) {
        const path = fillPath({ template } as DocumentedOperation, pathValues()).replace('0%2F000', '0/000');
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.includes(m))) {
          const res = await request(base(), method, path, { headers: bearer() });
          const allow = [...methods].sort().join(', ');
          expect({ method, template, status: res.status, allow: res.headers.allow }).toEqual({
            method,
            template,
            status: 405,
            allow,
          });
          expect(res.body).toMatchObject({
            error: 'METHOD_NOT_ALLOWED',
            message: `${path} does not take ${method}; it takes ${allow}`,
            correlation_id: res.headers['x-correlation-id'],
          });
          checked.push(`${method} ${template}`);
        }
      }
      expect(checked.length).toBeGreaterThan(40);
      expect(await eventCount()).toBe(before);
    });

    it('given an unknown path, then still 404; and OPTIONS answers as before (404, but 204 on the log)', async () => {
      expect((await request(base(), 'DELETE', '/no/such/path')).status).toBe(404);
      const options = await request(base(), 'OPTIONS', '/webhooks', { headers: bearer() });
      expect([options.status, options.body?.error, options.headers.allow]).toEqual([
        404,
        'NOT_FOUND',
        undefined,
      ]);
      expect((await request(base(), 'OPTIONS', '/gov/v1/log/sth')).status).toBe(204);
    });

    describe('in the split roles', () => {
      const servers: http.Server[] = [];
      const urls = {} as Record<'commands' | 'reads', string>;
      beforeAll(async () => {
        for (const side of ['commands', 'reads'] as const) {
          const server = http.createServer(createRequestHandler(t.server.services, side as ServedSide));
          await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
          servers.push(server);
          urls[side] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        }
      });
      afterAll(async () => {
        for (const server of servers) await new Promise((resolve) => server.close(resolve));
      });

      it.each<['commands' | 'reads', string, string, number, string | undefined]>([
        // A method the other side serves: "not served here", so a gateway's misroute is plain.
        ['commands', 'GET', '/governance/chain', 404, undefined],
        ['commands', 'GET', '/webhooks', 404, undefined],
        ['reads', 'POST', '/webhooks', 404, undefined],
        ['reads', 'DELETE', '/webhooks/{id}', 404, undefined],
        // A method no side serves: 405 on either side, with every method of the path.
        ['commands', 'DELETE', '/governance/evidence', 405, 'POST'],
        ['commands', 'GET', '/api-key/rotate', 405, 'POST'],
        ['commands', 'PUT', '/webhooks', 405, 'GET, HEAD, POST'],
        ['reads', 'PUT', '/webhooks', 405, 'GET, HEAD, POST'],
        ['reads', 'POST', '/governance/chain', 405, 'GET, HEAD'],
        ['reads', 'DELETE', '/gov/v1/log/sth', 405, 'GET, HEAD'],
      ])('given the %s side, when %s %s, then %s', async (side, method, template, status, allow) => {
        const path = template.replace('{id}', webhookId);
        const res = await request(urls[side], method, path, { headers: bearer() });
        expect([res.status, res.headers.allow]).toEqual([status, allow]);
        if (status === 404) expect(res.body?.message).toMatch(/ here: this is the (command|read) API/);
        else expect(res.body?.error).toBe('METHOD_NOT_ALLOWED');
      });
    });
  });

  describe('unknown query parameters', () => {
    /** Values for the parameters an operation requires, so the unknown one is the only problem. */
    const required = (): Record<string, string> => ({
      ...realPathValues({ authorization: admitted, webhookId }),
      index: '0',
      leaf_hash: admitted.leaf_hash,
      from: '1',
      tree_size: '1',
    });
    const target = (documented: DocumentedOperation, query: string) => {
      const path = fillPath(documented, required()).replace('0%2F000', '0/000');
      const params = parametersOf(doc, documented.operation)
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => `${p.name}=${required()[p.name]}`);
      return `${path}?${[...params, query].join('&')}`;
    };

    it('given every documented operation, when called with an unknown query parameter, then 400 naming query/<name> and nothing else, nothing appended', async () => {
      const before = await eventCount();
      const operations = documentedOperations(doc);
      expect(operations.length).toBeGreaterThan(20);
      for (const documented of operations) {
        const res = await request(
          base(),
          documented.method.toUpperCase(),
          target(documented, 'colour=blue'),
          {
            headers: {
              ...(requiresApiKey(doc, documented.operation) ? bearer() : {}),
              ...(documented.method === 'get' ? {} : { 'content-type': 'application/json' }),
            },
            ...(documented.method === 'get' ? {} : { body: Buffer.from('{}') }),
          },
        );
        expect({ op: documented.label, status: res.status, fields: res.body?.fields }).toEqual({
          op: documented.label,
          status: 400,
          fields: [
            {
              pointer: 'query/colour',
              reason: expect.stringMatching(/^is not a parameter of this endpoint/),
            },
          ],
        });
      }
      expect(await eventCount()).toBe(before);
    });

    it('given the parameters a route takes, then the reason lists them', async () => {
      const res = await request(base(), 'GET', `/governance/report/${admitted.artifact_hash}?formt=json`, {
        headers: bearer(),
      });
      expect(res.body?.fields).toEqual([
        { pointer: 'query/formt', reason: 'is not a parameter of this endpoint; it takes format' },
      ]);
      const none = await request(base(), 'GET', '/account?verbose=1', { headers: bearer() });
      expect(none.body?.fields).toEqual([
        { pointer: 'query/verbose', reason: 'is not a parameter of this endpoint, which takes none' },
      ]);
    });

    it('given valid evidence on the fast path with a query, then 400 and nothing admitted', async () => {
      const before = await eventCount();
      const res = await request(base(), 'POST', '/governance/evidence?dry_run=1', {
        headers: { 'content-type': 'application/json', ...bearer() },
        body: json(validEvidence('edges-query')),
      });
      expect([res.status, res.body?.fields?.[0]?.pointer]).toEqual([400, 'query/dry_run']);
      expect(await eventCount()).toBe(before);
    });

    it('given a proof the fast path serves, when an unknown parameter follows, then 400; without it, 200', async () => {
      const path = `/gov/v1/log/proof?leaf_hash=${admitted.leaf_hash}`;
      expect((await request(base(), 'GET', path)).status).toBe(200);
      const res = await request(base(), 'GET', `${path}&tree_sise=1`);
      expect([res.status, res.body?.fields?.[0]?.pointer]).toEqual([400, 'query/tree_sise']);
    });
  });

  it('given an artifact hash no bundle has, when the public replay route is asked, then 404 saying so (no tenant there)', async () => {
    const unknown = digest('no such bundle');
    const res = await request(base(), 'GET', `/governance/replay/${unknown}`);
    expect(res.status).toBe(404);
    expect(res.body?.message).toBe(`no admitted proof bundle has artifact hash ${unknown}`);
  });
});
