import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { type DeliveryRequest, deliver, MAX_PAYLOAD_BYTES, USER_AGENT } from './http-deliverer';
import { PinnedPools } from './pinned-pools';
import { SIGNATURE_HEADER, signatureHeader, verifySignatureHeader } from './signature';
import { TargetGuard } from './target-guard';

interface Received {
  /** The client's end of the connection it came on. */
  socketPort: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const secret = 'whsec_deliverer-test';
const received: Received[] = [];
let connections = 0;
let server: http.Server;
let base: string;
let port: number;

/** The receiver: answers by path. */
function answer(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
  received.push({
    socketPort: req.socket.remotePort!,
    method: req.method!,
    url: req.url!,
    headers: req.headers,
    body,
  });
  switch (req.url) {
    case '/ok':
      res.writeHead(200).end('thanks');
      return;
    case '/created':
      res.writeHead(201).end();
      return;
    case '/fail':
      res.writeHead(500).end('oops');
      return;
    case '/busy':
      res.writeHead(429, { 'Retry-After': '120' }).end();
      return;
    case '/unavailable':
      res.writeHead(503, { 'Retry-After': 'Sun, 01 Jun 2025 12:05:00 GMT' }).end();
      return;
    case '/redirect':
      res.writeHead(302, { Location: `${base}/ok` }).end();
      return;
    case '/huge':
      res.writeHead(200);
      res.end(Buffer.alloc(4 * 1024 * 1024, 'x'));
      return;
    case '/head-then-stall':
      res.writeHead(200);
      res.write('partial');
      return;
    case '/never':
      return;
  }
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  connections = 0;
});

const localGuard = new TargetGuard({ allow: ['127.0.0.1'] });
const body = Buffer.from(JSON.stringify({ event_id: 'evt_1', type: 'gov.test', text: 'ünïcödé' }), 'utf8');

function request(path: string, overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return {
    url: `${base}${path}`,
    body,
    headers: {
      [SIGNATURE_HEADER]: signatureHeader(secret, body),
      'X-GOV-Event-Id': 'evt_1',
      'X-GOV-Event-Type': 'gov.test',
      'X-GOV-Delivery-Attempt': '1',
    },
    guard: localGuard,
    ...overrides,
  };
}

describe('HTTP deliverer', () => {
  it('given a receiver answering 200, then the attempt reports 200 with its latency and no error', async () => {
    const result = await deliver(request('/ok'));
    expect(result).toEqual({ status: 200, retryAfter: null, latencyMs: expect.any(Number), error: null });
    expect(result.latencyMs).toBeGreaterThan(0);
  });

  it('given a delivery, then the receiver gets one POST with the exact body bytes, our headers and a verifiable signature', async () => {
    await deliver(request('/ok'));
    expect(received).toHaveLength(1);
    const [got] = received as [Received];
    expect(got.method).toBe('POST');
    expect(got.body.equals(body)).toBe(true);
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': USER_AGENT,
      'x-gov-event-id': 'evt_1',
      'x-gov-event-type': 'gov.test',
      'x-gov-delivery-attempt': '1',
    });
    const signature = got.headers['x-gov-signature-256'] as string;
    expect(verifySignatureHeader(secret, got.body, signature)).toBe(true);
    await expect(verify(secret, got.body.toString('utf8'), signature)).resolves.toBe(true);
  });

  it('given a caller header that collides with ours, then ours wins', async () => {
    await deliver(request('/ok', { headers: { 'Content-Type': 'text/plain', 'User-Agent': 'spoof' } }));
    expect(received[0]?.headers['content-type']).toBe('application/json');
    expect(received[0]?.headers['user-agent']).toBe(USER_AGENT);
  });

  it('given an injected clock, then the latency is measured with it', async () => {
    const ticks = [1000, 1250];
    const result = await deliver(request('/ok', { clock: () => ticks.shift() ?? 9999 }));
    expect(result.latencyMs).toBe(250);
  });

  it.each([
    ['/fail', 500],
    ['/created', 201],
    ['/redirect', 302],
  ])(
    'given a receiver path %s, then its status %i is reported as is (and a redirect is not followed)',
    async (path, status) => {
      const result = await deliver(request(path));
      expect(result).toMatchObject({ status, error: null });
      expect(received.map((r) => r.url)).toEqual([path]);
    },
  );

  it('given a 429 with Retry-After, then the header comes back for the retry policy', async () => {
    await expect(deliver(request('/busy'))).resolves.toMatchObject({ status: 429, retryAfter: '120' });
    await expect(deliver(request('/unavailable'))).resolves.toMatchObject({
      status: 503,
      retryAfter: 'Sun, 01 Jun 2025 12:05:00 GMT',
    });
  });

  it('given a receiver that never answers, then the attempt ends as a timeout after timeoutMs', async () => {
    const result = await deliver(request('/never', { timeoutMs: 200 }));
    expect(result).toMatchObject({ status: null, retryAfter: null, error: 'timeout after 200 ms' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(190);
    expect(result.latencyMs).toBeLessThan(2000);
  });

  it('given a receiver that answers 200 and then stalls its body, then the 200 counts when the time is up', async () => {
    await expect(deliver(request('/head-then-stall', { timeoutMs: 200 }))).resolves.toMatchObject({
      status: 200,
      error: null,
    });
  });

  it('given a huge response body, then the attempt ends without reading all of it', async () => {
    await expect(deliver(request('/huge', { timeoutMs: 5000 }))).resolves.toMatchObject({
      status: 200,
      error: null,
    });
  });

  it('given nothing listening on the port, then the attempt reports the connection error', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await deliver(request('/ok', { url: `http://127.0.0.1:${closedPort}/ok` }));
    expect(result).toMatchObject({ status: null, error: 'ECONNREFUSED' });
  });

  it('given a body over 128 KB, then delivery refuses before connecting; exactly 128 KB is sent', async () => {
    const tooBig = Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x20);
    await expect(deliver(request('/ok', { body: tooBig }))).rejects.toThrow(
      /131073 bytes; the limit is 131072/,
    );
    expect(connections).toBe(0);
    const atLimit = Buffer.alloc(MAX_PAYLOAD_BYTES, 0x20);
    await expect(deliver(request('/ok', { body: atLimit }))).resolves.toMatchObject({ status: 200 });
    expect(received[0]?.body.length).toBe(MAX_PAYLOAD_BYTES);
  });

  it('given a target the guard refuses at delivery time, then nothing is sent and the reason is the error', async () => {
    const strict = new TargetGuard({ allow: [] });
    const result = await deliver(request('/ok', { guard: strict }));
    expect(result).toMatchObject({
      status: null,
      error: expect.stringMatching(/^target refused: .*loopback/),
    });
    expect(connections).toBe(0);
  });

  it.each([
    ['64:ff9b::7f00:1', 'NAT64 (64:ff9b::/96) of 127.0.0.1'],
    ['2002:7f00:1::', '6to4 (2002::/16) of 127.0.0.1'],
    ['::7f00:1', 'IPv4-compatible 127.0.0.1'],
    ['2001:0:7f00:1::f7f7:f7f7', 'Teredo (2001::/32) server 127.0.0.1'],
    ['198.18.0.1', 'benchmarking range 198.18.0.0/15'],
  ])(
    'given a host name resolving to %s when the attempt connects, then nothing is sent and the error says why (%s)',
    async (address, reason) => {
      const guard = new TargetGuard({ allow: [], resolve: async () => [address] });
      const result = await deliver(request('/ok', { url: `http://hooks.invalid:${port}/ok`, guard }));
      expect(result).toMatchObject({ status: null, error: expect.stringContaining(reason) });
      expect(result.error).toMatch(/^target refused: hooks.invalid resolves to /);
      expect(connections).toBe(0);
    },
  );

  it('given a host name that does not resolve, then nothing is sent and the error says so', async () => {
    const guard = new TargetGuard({
      allow: [],
      resolve: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })),
    });
    const result = await deliver(request('/ok', { url: `http://later.invalid:${port}/ok`, guard }));
    expect(result).toMatchObject({ status: null, error: 'host later.invalid does not resolve (ENOTFOUND)' });
    expect(connections).toBe(0);
  });

  it('given a host name, then the connection goes to the address the guard checked, not a fresh DNS answer', async () => {
    // `hooks.invalid` has no DNS at all: only the pinned, checked address can reach the receiver.
    const resolved: string[] = [];
    const guard = new TargetGuard({
      allow: ['127.0.0.1'],
      resolve: async (host) => {
        resolved.push(host);
        return ['127.0.0.1'];
      },
    });
    const result = await deliver(request('/ok', { url: `http://hooks.invalid:${port}/ok`, guard }));
    expect(result).toMatchObject({ status: 200, error: null });
    expect(resolved).toEqual(['hooks.invalid']);
    expect(received[0]?.headers.host).toBe(`hooks.invalid:${port}`);
  });

  describe('with keep-alive pools', () => {
    let pools: PinnedPools;
    beforeEach(() => {
      pools = new PinnedPools();
    });
    afterEach(() => pools.close());

    it('given attempts one after another to the same receiver, then they share one connection', async () => {
      for (let i = 0; i < 5; i++)
        expect(await deliver(request('/ok', { pools }))).toMatchObject({ status: 200, error: null });
      expect(received).toHaveLength(5);
      expect(connections).toBe(1);
    });

    it('given an answer cut short (over the response limit), then its connection is not reused', async () => {
      expect(await deliver(request('/huge', { pools }))).toMatchObject({ status: 200 });
      expect(await deliver(request('/ok', { pools }))).toMatchObject({ status: 200 });
      expect(received.map((r) => r.url)).toEqual(['/huge', '/ok']);
      expect(received[1]!.socketPort).not.toBe(received[0]!.socketPort);
    });

    it('given a host whose checked addresses change, then the next attempt opens a connection of its own', async () => {
      const answers = [['127.0.0.1'], ['127.0.0.1', '127.0.0.2'], ['127.0.0.1']];
      const guard = new TargetGuard({ allow: ['127.0.0.0/8'], resolve: async () => answers.shift() ?? [] });
      const url = `http://hooks.invalid:${port}/ok`;
      for (let i = 0; i < 3; i++)
        expect(await deliver(request('/ok', { url, guard, pools }))).toMatchObject({ status: 200 });
      // The first and third were checked under the same addresses: the third reuses the first's socket.
      expect(connections).toBe(2);
    });
  });

  it('given a host name that now resolves to a private address, then delivery is refused (rebinding)', async () => {
    const answers = [['93.184.215.14'], ['10.0.0.1']];
    const guard = new TargetGuard({ allow: [], resolve: async () => answers.shift() ?? [] });
    await expect(guard.check('http://rebind.invalid/')).resolves.toMatchObject({ ok: true });
    const result = await deliver(request('/ok', { url: 'http://rebind.invalid/ok', guard }));
    expect(result.error).toMatch(/^target refused: rebind.invalid resolves to 10.0.0.1/);
    expect(connections).toBe(0);
  });
});
