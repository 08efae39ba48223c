/**
 * The HTTP server every process of the service uses (listen()): what Node's parser refuses before the
 * app sees a request answers in the API's error shape, and a graceful close under keep-alive load
 * finishes as soon as the in-flight requests do, never cutting a response.
 */
import http from 'node:http';
import net from 'node:net';
import { loadConfig } from '../config/config';
import { type Listening, listen } from './listen';

const GRACE_MS = 20_000;
const HEADERS_TIMEOUT_MS = 300;

function config() {
  return loadConfig({
    GOV_PORT: '0',
    GOV_HOST: '127.0.0.1',
    GOV_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    GOV_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    GOV_REQUEST_TIMEOUT_MS: String(2 * HEADERS_TIMEOUT_MS),
  });
}

/** Sends `bytes` on a fresh connection; resolves with everything received once the server closes it. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    socket.on('connect', () => socket.write(bytes));
  });
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: { error?: string; message?: string; correlation_id?: string; fields?: unknown[] };
}

function parseRaw(raw: string): RawResponse {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as RawResponse['body'] };
}

describe('requests the HTTP parser refuses answer in the error shape', () => {
  let served: Listening;
  let handled = 0;

  beforeAll(async () => {
    served = await listen((_req, res) => {
      handled++;
      res.end('ok');
    }, config());
  });
  afterAll(async () => {
    await served?.close();
  });

  const expectErrorShape = (answer: RawResponse, status: number, error: string) => {
    expect({ status: answer.status, error: answer.body.error }).toEqual({ status, error });
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers.connection).toBe('close');
    expect(answer.body.correlation_id).toBe(answer.headers['x-correlation-id']);
    expect(typeof answer.body.message).toBe('string');
  };

  it('given a URL of 20 KB (over the 16 KB of request line and headers), then 431 HEADERS_TOO_LARGE saying what to shorten, and the app never sees it', async () => {
    const before = handled;
    const answer = parseRaw(
      await exchange(served.port, `GET /v1/account?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: gov\r\n\r\n`),
    );
    expectErrorShape(answer, 431, 'HEADERS_TOO_LARGE');
    expect(answer.body.message).toMatch(
      /^the request line and headers exceed 16 KB \(16384 bytes\); shorten/,
    );
    expect(handled).toBe(before);
  });

  it('given headers of 17 KB (a large cookie), then 431 in the error shape', async () => {
    const answer = parseRaw(
      await exchange(
        served.port,
        `GET /health HTTP/1.1\r\nHost: gov\r\nCookie: c=${'b'.repeat(17_000)}\r\n\r\n`,
      ),
    );
    expectErrorShape(answer, 431, 'HEADERS_TOO_LARGE');
  });

  it('given headers just under the limit, then the request is served', async () => {
    const raw = await exchange(
      served.port,
      `GET /health HTTP/1.1\r\nHost: gov\r\nConnection: close\r\nX-Pad: ${'c'.repeat(15_000)}\r\n\r\n`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
  });

  it.each([
    ['a method that is not HTTP', 'BR3W /health HTTP/1.1\r\nHost: gov\r\n\r\n'],
    ['a path with a space in it', 'GET /he alth HTTP/1.1\r\nHost: gov\r\n\r\n'],
    ['a header without a colon', 'GET /health HTTP/1.1\r\nHost gov\r\n\r\n'],
  ])('given %s, then 400 INVALID_REQUEST in the error shape', async (_name, bytes) => {
    const answer = parseRaw(await exchange(served.port, bytes));
    expectErrorShape(answer, 400, 'INVALID_REQUEST');
    expect(answer.body.message).toMatch(/^the request is not valid HTTP\/1\.1 \(HPE_[A-Z_]+\)/);
    expect(answer.body.fields).toHaveLength(1);
  });

  it('given a client slower than the headers timeout, then 408 REQUEST_TIMEOUT in the error shape, naming the timeouts', async () => {
    const answer = parseRaw(await exchange(served.port, 'GET /health HTTP/1.1\r\nHost: gov\r\n'));
    expectErrorShape(answer, 408, 'REQUEST_TIMEOUT');
    expect(answer.body.message).toContain(`within ${HEADERS_TIMEOUT_MS / 1000} s`);
  });
});

/** What one request of a client came to. */
type Outcome =
  | { kind: 'answered'; id: number }
  /** Refused or reset before any byte of a response: the server never took it on. */
  | { kind: 'refused'; code: string }
  /** A response that started and did not arrive whole: what a graceful close must never do. */
  | { kind: 'cut'; id: number; reason: string };

const BODY_BYTES = 64 * 1024;

/** GETs `/work?id=` on `agent` until `stopped()`; every request's outcome goes to `outcomes`. */
async function sendBackToBack(
  port: number,
  agent: http.Agent,
  nextId: () => number,
  outcomes: Outcome[],
  stopped: () => boolean,
) {
  while (!stopped()) {
    const id = nextId();
    outcomes.push(
      await new Promise<Outcome>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, path: `/work?id=${id}`, agent }, (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.on('error', (error) => resolve({ kind: 'cut', id, reason: error.message }));
          res.on('end', () =>
            resolve(
              res.statusCode === 200 && bytes === BODY_BYTES
                ? { kind: 'answered', id }
                : { kind: 'cut', id, reason: `status ${res.statusCode}, ${bytes} bytes` },
            ),
          );
        });
        req.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ kind: 'refused', code: error.code ?? error.message }),
        );
      }),
    );
    // A refused request means the server is gone: the loop ends with it.
    if (outcomes.at(-1)?.kind === 'refused') return;
  }
}

describe('a graceful close under keep-alive load', () => {
  it(`given 4 keep-alive connections sending back-to-back requests of 20 ms, when closed, then it returns within 2 s (the grace period is ${GRACE_MS / 1000} s), no response is cut, and every request the app finished was answered`, async () => {
    const finished = new Set<number>();
    const served = await listen((req, res) => {
      const id = Number(new URL(req.url ?? '/', 'http://gov').searchParams.get('id'));
      setTimeout(() => {
        res.setHeader('Content-Type', 'application/octet-stream');
        res.end(Buffer.alloc(BODY_BYTES, 1), () => finished.add(id));
      }, 20);
    }, config());
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const outcomes: Outcome[] = [];
    let id = 0;
    let stop = false;
    const clients = Array.from({ length: 4 }, () =>
      sendBackToBack(
        served.port,
        agent,
        () => ++id,
        outcomes,
        () => stop,
      ),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(outcomes.filter((o) => o.kind === 'answered').length).toBeGreaterThan(10);

      const started = performance.now();
      await served.close();
      const closedInMs = performance.now() - started;
      stop = true;
      await Promise.all(clients);

      expect(closedInMs).toBeLessThan(2000);
      expect(outcomes.filter((o) => o.kind === 'cut')).toEqual([]);
      // Each response the app finished reached its client whole.
      const answered = new Set(outcomes.flatMap((o) => (o.kind === 'answered' ? [o.id] : [])));
      expect([...finished].filter((done) => !answered.has(done))).toEqual([]);
    } finally {
      stop = true;
      agent.destroy();
    }
  });
});
