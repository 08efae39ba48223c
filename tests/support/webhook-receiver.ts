/**
 * A real HTTP receiver for webhook tests: records every request's raw bytes and headers and answers
 * as the test scripts it (a status, a Retry-After, or no answer at all).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  /** The exact bytes received, as UTF-8 text. */
  raw: string;
  body: Record<string, unknown>;
  receivedAt: number;
}

/** What to answer the n-th request (0-based): a status (and headers), or 'hang' (never answer). */
export type Script = (
  n: number,
  delivery: ReceivedDelivery,
) => { status: number; headers?: Record<string, string> } | 'hang';

export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  script: Script = () => ({ status: 200 });
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(path = '/hook', port = 0): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | null = null;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => receiver!.handle(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const bound = (server.address() as AddressInfo).port;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${bound}${path}`);
    return receiver;
  }

  /** Deliveries of one event type, in arrival order. */
  ofType(type: string): ReceivedDelivery[] {
    return this.received.filter((delivery) => delivery.body.type === type);
  }

  async waitFor(
    predicate: (all: ReceivedDelivery[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<ReceivedDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline)
        throw new Error(
          `the receiver did not see what was expected in ${timeoutMs} ms (${this.received.length} received)`,
        );
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.received;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, bytes: Buffer): void {
    const raw = bytes.toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // recorded as is; the test sees an empty body
    }
    const delivery: ReceivedDelivery = { headers: req.headers, raw, body, receivedAt: Date.now() };
    const n = this.received.length;
    this.received.push(delivery);
    const answer = this.script(n, delivery);
    if (answer === 'hang') {
      this.hanging.add(res);
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
    res.end('ok');
  }
}
