import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config';
import { answerClientError, MAX_HEADER_BYTES } from './client-errors';

export interface Listening {
  server: http.Server;
  /** The base URL: GOV_PUBLIC_URL, or the bound address when the port was chosen by the system. */
  url: string;
  port: number;
  /**
   * Stops accepting, closes idle keep-alive connections, answers in-flight requests with
   * `Connection: close` and closes each connection after its response; what is still open after
   * GOV_SHUTDOWN_GRACE_MS is closed.
   */
  close(): Promise<void>;
}

/** Serves `handler` on GOV_HOST:GOV_PORT with the timeouts every process of the service uses. */
export async function listen(handler: http.RequestListener, config: Config): Promise<Listening> {
  // Responses not yet finished, so that a shutdown can close their connections once they are.
  const inFlight = new Set<http.ServerResponse>();
  let closing = false;
  // Slow clients must not hold connections forever: headers and whole requests that take longer than
  // the timeouts get 408 and a closed connection. Node checks them every connectionsCheckingInterval
  // (default 30 s), so check often enough that a timeout is enforced close to its value.
  const server = http.createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(config.headersTimeoutMs / 4))),
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    (req, res) => {
      inFlight.add(res);
      res.once('close', () => inFlight.delete(res));
      if (closing) lastOnItsConnection(res);
      handler(req, res);
    },
  );
  // Requests the parser refuses (headers over MAX_HEADER_BYTES, a malformed request line, a timeout)
  // get the API's error shape rather than Node's bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) =>
    answerClientError(error, socket, config),
  );
  // Idle keep-alive connections stay open longer than clients keep idle sockets (undici: 4 s, load
  // balancers: 60 s), so a client never sends a request on a socket the server is closing.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = config.port === 0 ? `http://127.0.0.1:${port}` : config.publicUrl;
  const close = async () => {
    closing = true;
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    // A keep-alive client that keeps sending would otherwise hold its connections until the grace
    // period ends: each in-flight response is the last on its connection, idle ones close now.
    for (const res of inFlight) lastOnItsConnection(res);
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
    await drained;
    clearTimeout(grace);
  };
  return { server, url, port, close };
}

/** Makes `res` the last response on its connection: the connection closes once it is sent whole. */
function lastOnItsConnection(res: http.ServerResponse): void {
  if (!res.headersSent) {
    // Node ends the connection after a response that says `Connection: close`, once it is flushed.
    res.setHeader('Connection', 'close');
    return;
  }
  // Headers already promised keep-alive: end the connection after the body (end() flushes first).
  const socket = res.socket;
  if (res.writableFinished) socket?.end();
  else res.once('finish', () => socket?.end());
}
