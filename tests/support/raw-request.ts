/**
 * One HTTP request with the method, path, headers and body bytes exactly as given (fetch would
 * normalize `..` away, and sets framing of its own), for suites that probe the HTTP edge.
 */
import http from 'node:http';

/** An error answer's members, the body most probes read. */
export interface ErrorShape {
  error?: string;
  message?: string;
  fields?: { pointer: string; reason: string }[];
}

export interface RawAnswer<B = ErrorShape> {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, undefined when the body is not JSON. */
  body: B | undefined;
}

export interface RawRequestOptions {
  headers?: Record<string, string>;
  /** Sent with its Content-Length, or in chunks without one when `chunked`. */
  body?: Buffer | Buffer[];
  chunked?: boolean;
}

export function rawRequest<B = ErrorShape>(
  base: string,
  method: string,
  path: string,
  options: RawRequestOptions = {},
): Promise<RawAnswer<B>> {
  const { hostname, port } = new URL(base);
  const chunks = options.body === undefined ? [] : [options.body].flat();
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const headers = {
    ...options.headers,
    ...(options.chunked
      ? { 'transfer-encoding': 'chunked' }
      : options.body === undefined
        ? {}
        : { 'content-length': String(length) }),
  };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: B | undefined;
        try {
          body = JSON.parse(text) as B;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    // A server may answer (and close) before a refused chunked body is all sent: the answer counts.
    req.on('error', (error) => (options.chunked ? undefined : reject(error)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}
