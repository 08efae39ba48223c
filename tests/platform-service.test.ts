/**
 * The agent platform as a second service of the embedded server: its own port, its own error shape
 * (`{error, detail}`) from the checks both services share, and its own OpenAPI document, while the
 * clearinghouse beside it keeps its own.
 */
import { startTestServer, type TestServer } from './support/governance-client';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer('gov-platform-service-');
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

const platform = (path: string, init?: RequestInit) => fetch(`${server.server.platformUrl}${path}`, init);

describe('the platform beside the clearinghouse', () => {
  it('given the embedded server, when GET /v1/version on the platform port, then the platform names itself', async () => {
    expect(server.server.platformUrl).not.toBe(server.server.url);
    const response = await platform('/v1/version');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      service: 'gov-agent-platform',
      version: expect.any(String),
      runtime: `node ${process.version}`,
    });
  });

  it('given an unknown path, when asked, then 404 in the platform shape {error, detail}', async () => {
    const response = await platform('/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'not_found',
      detail: expect.stringContaining('/v1/nothing-here'),
    });
  });

  it('given a known path and another method, when asked, then 405 with Allow, in the platform shape', async () => {
    const response = await platform('/v1/version', { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toEqual({ error: 'method_not_allowed', detail: expect.any(String) });
  });

  it('given malformed JSON or an unknown query parameter, when asked, then 400 invalid_request naming it', async () => {
    const malformed = await platform('/v1/version', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({
      error: 'invalid_request',
      detail: expect.stringContaining('not valid JSON'),
    });
    const query = await platform('/v1/version?x=1');
    expect(query.status).toBe(400);
    const body = (await query.json()) as { error: string; detail: string };
    expect(body).toEqual({ error: 'invalid_request', detail: expect.stringContaining('x') });
  });

  it('given the clearinghouse port, when an unknown path, then its own error shape is unchanged', async () => {
    const response = await fetch(`${server.server.url}/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'NOT_FOUND',
      message: expect.any(String),
      correlation_id: expect.any(String),
    });
  });

  it('given GET /openapi.json on the platform, then an OpenAPI 3.1 document whose every $ref resolves', async () => {
    const response = await platform('/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as Record<string, unknown>;
    expect(document.openapi).toBe('3.1.0');
    expect((document.info as { title: string }).title).toBe('Agent Platform API');
    expect(Object.keys(document.paths as object)).toEqual(
      expect.arrayContaining(['/v1/version', '/openapi.json']),
    );
    const unresolved: string[] = [];
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const item of node) visit(item);
        return;
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') {
          const target = value
            .replace(/^#\//, '')
            .split('/')
            .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], document);
          if (target === undefined) unresolved.push(value);
        } else visit(value);
      }
    };
    visit(document);
    expect(unresolved).toEqual([]);
  });
});
