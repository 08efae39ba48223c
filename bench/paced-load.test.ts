import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pacedLoad, postJson } from './paced-load';

describe('pacedLoad', () => {
  it('given 200 requests/s for 0.5 s, then it sends 100 requests, each due 5 ms after the one before', async () => {
    const due: number[] = [];
    const result = await pacedLoad({
      rate: 200,
      seconds: 0.5,
      send: async () => true,
      onAnswer: (dueMs) => due.push(dueMs),
    });
    expect(result.sent).toBe(100);
    expect(due.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i * 5));
    expect(result.elapsedSeconds).toBeGreaterThanOrEqual(0.495);
  });

  it('given a server that stalls for 300 ms, then sending goes on meanwhile and the stall is charged to every request it delayed', async () => {
    let release: () => void = () => {};
    const stall = new Promise<void>((resolve) => {
      release = resolve;
    });
    setTimeout(() => release(), 300);
    let sentDuringStall = 0;
    let stalled = true;
    void stall.then(() => {
      stalled = false;
    });
    const answers: Array<{ dueMs: number; latencyMs: number; ok: boolean }> = [];
    await pacedLoad({
      rate: 100,
      seconds: 0.5,
      send: async (i) => {
        if (stalled) sentDuringStall += 1;
        await stall;
        return i % 10 !== 0;
      },
      onAnswer: (dueMs, latencyMs, ok) => answers.push({ dueMs, latencyMs, ok }),
    });
    // An open model keeps sending on schedule (about 30 requests in 300 ms); a closed loop would send 1.
    expect(sentDuringStall).toBeGreaterThanOrEqual(20);
    const first = answers.find((a) => a.dueMs === 0)!;
    expect(first.latencyMs).toBeGreaterThanOrEqual(290);
    expect(answers.filter((a) => !a.ok)).toHaveLength(5);
  });
});

describe('postJson', () => {
  let server: http.Server;
  let url: URL;
  const sockets = new Set<unknown>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      sockets.add(req.socket);
      if (req.url === '/hang-up') return req.socket.destroy();
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        const parsed = JSON.parse(body) as { status: number };
        res.writeHead(parsed.status, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('given answers 201 then 500 over a keep-alive agent, then it resolves each status and reuses one socket', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    sockets.clear();
    expect(await postJson(agent, url, {}, JSON.stringify({ status: 201 }))).toBe(201);
    expect(await postJson(agent, url, {}, JSON.stringify({ status: 500 }))).toBe(500);
    expect(sockets.size).toBe(1);
    agent.destroy();
  });

  it('given a server that hangs up without answering, then it resolves 0', async () => {
    const agent = new http.Agent({ keepAlive: true });
    expect(await postJson(agent, new URL('/hang-up', url), {}, '{}')).toBe(0);
    agent.destroy();
  });

  it('given a server that never answers, then it resolves 0 after the timeout', async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const agent = new http.Agent({ keepAlive: true });
    const target = new URL(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`);
    expect(await postJson(agent, target, {}, '{}', 100)).toBe(0);
    agent.destroy();
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
});
