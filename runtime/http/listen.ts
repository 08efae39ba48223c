import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config';

export interface Listening {
  server: http.Server;
  /** The base URL: GOV_PUBLIC_URL, or the bound address when the port was chosen by the system. */
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (at most `graceMs`), then closes what is left. */
  close(): Promise<void>;
}

/** Serves `handler` on GOV_HOST:GOV_PORT with the timeouts every process of the service uses. */
export async function listen(handler: http.RequestListener, config: Config): Promise<Listening> {
  // Slow clients must not hold connections forever: headers and whole requests that take longer than
  // the timeouts get 408 and a closed connection. Node checks them every connectionsCheckingInterval
  // (default 30 s), so check often enough that a timeout is enforced close to its value.
  const server = http.createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(config.headersTimeoutMs / 4))),
    },
    handler,
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
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
    await drained;
    clearTimeout(grace);
  };
  return { server, url, port, close };
}
