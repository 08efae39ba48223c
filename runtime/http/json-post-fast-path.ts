/**
 * MEASURED FAST PATH: only for a write a bench shows is limited by Express (today the evidence
 * admission, bench `governance`, and the governed action, bench `platform`); every other route goes
 * through the route table and Express alone.
 *
 * A `POST` of a JSON body answered before Express. Express's router, body parser and middleware chain
 * (and the garbage they leave) take a large share of the main thread's time per request, and the main
 * thread, which also decides and sequences, is what limits these writes.
 *
 * Express keeps every error answer. The fast path takes only a request whose headers are the plain
 * shape (`Content-Type: application/json`, a `Content-Length` within the limit, no transfer or content
 * coding). After reading the body it hands anything but a JSON object to Express, and the route's
 * `answer` hands back (null) anything it would not answer itself (an unknown caller, an invalid body,
 * a spent rate allowance): Express answers it as it answers any request, running the same checks
 * again in its own order. What the fast path answers comes from the function the Express route
 * answers from too, so the two cannot drift apart.
 */

import { isUtf8 } from 'node:buffer';
import http from 'node:http';
import type { Logger } from 'pino';
import type { Histogram } from 'prom-client';
import { type HttpAnswer, writeAnswer } from './answer';
import { correlationIdOf } from './correlation';

const PLAIN_JSON = /^application\/json\s*(?:;\s*charset=(?:utf-8|"utf-8")\s*)?$/i;
const LENGTH = /^[1-9][0-9]{0,9}$/;

/** One route's fast answer. */
export interface FastJsonPost<P> {
  /** The Express route's pattern: the request's label in metrics and request logs. */
  route: string;
  /** The route's parameters when `url` is this route's, else null (the request is left alone). */
  match(url: string): P | null;
  /** The answer; null (having answered nothing) when Express should answer instead. */
  answer(
    req: http.IncomingMessage,
    body: object,
    params: P,
    correlationId: string,
  ): Promise<HttpAnswer | null>;
  /** The answer to an error `answer` threw (the route's 500 in its service's error shape). */
  failed(error: Error, logger: Logger, correlationId: string): HttpAnswer;
}

export interface FastPathServices {
  maxBodyBytes: number;
  logger: Logger;
  /** The service's request durations, labelled as its Express application labels them. */
  durations: Pick<Histogram<'method' | 'route' | 'status'>, 'observe'>;
}

/** A request whose body this path has read (and parsed): Express's body parser then leaves it be. */
type ReadRequest = http.IncomingMessage & { body?: unknown };

/**
 * Returns true when it took the request (it then answers it, or hands it to `express` itself); false
 * leaves the request to the next handler untouched.
 */
export function jsonPostFastPath<P>(
  services: FastPathServices,
  fast: FastJsonPost<P>,
  express: (req: http.IncomingMessage, res: http.ServerResponse) => void,
) {
  return (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    if (req.method !== 'POST' || req.url === undefined) return false;
    const params = fast.match(req.url);
    if (params === null || !plainBody(req, services.maxBodyBytes)) return false;
    const started = performance.now();
    readBody(req, (body) => {
      const parsed = parseObject(body);
      if (parsed === undefined) {
        express(replay(req, body), res);
        return;
      }
      (req as ReadRequest).body = parsed;
      answerFast(services, fast, req, res, parsed, params, started)
        .then((answered) => {
          if (!answered) express(req, res);
        })
        // answerFast answers every error of the route itself; what is left is a failed write (the
        // socket is gone) or a bug: logged, never an unhandled rejection that ends the process.
        .catch((error: unknown) => {
          services.logger.error({ err: error, route: fast.route }, 'the fast path could not answer');
          res.destroy();
        });
    });
    return true;
  };
}

/** Headers Express's JSON parser would read a body under as it is, within the size limit. */
function plainBody(req: http.IncomingMessage, maxBytes: number): boolean {
  const { headers } = req;
  const length = headers['content-length'];
  return (
    length !== undefined &&
    LENGTH.test(length) &&
    Number(length) <= maxBytes &&
    PLAIN_JSON.test(headers['content-type'] ?? '') &&
    headers['transfer-encoding'] === undefined &&
    (headers['content-encoding'] === undefined || headers['content-encoding'].toLowerCase() === 'identity')
  );
}

/** Collects the body. An aborted request gets no answer, as in Express: nobody is left to read one. */
function readBody(req: http.IncomingMessage, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  req.on('error', () => {});
}

/** A JSON object, or undefined for anything Express's parser should judge (and word the error of). */
function parseObject(body: Buffer): object | undefined {
  // Invalid UTF-8 would decode to U+FFFD and parse; a byte-order mark would not parse here.
  if (body[0] !== 0x7b || !isUtf8(body)) return undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A request Express can read the body of again (the original's is consumed): same socket, headers and
 * URL, the body buffered.
 */
function replay(req: http.IncomingMessage, body: Buffer): http.IncomingMessage {
  const copy = new http.IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  copy.httpVersion = req.httpVersion;
  copy.headers = req.headers;
  copy.rawHeaders = req.rawHeaders;
  copy.push(body);
  copy.push(null);
  // All of it has arrived: destroying an incomplete request would destroy the socket with it.
  copy.complete = true;
  return copy;
}

/** Answers the request; false (having answered nothing) when Express should answer instead. */
async function answerFast<P>(
  services: FastPathServices,
  fast: FastJsonPost<P>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: object,
  params: P,
  started: number,
): Promise<boolean> {
  const correlationId = correlationIdOf(req.headers['x-correlation-id']);
  let answer: HttpAnswer | null;
  try {
    answer = await fast.answer(req, body, params, correlationId);
    if (answer === null) return false;
  } catch (error) {
    answer = fast.failed(
      error as Error,
      services.logger.child({ correlation_id: correlationId }),
      correlationId,
    );
  }
  if (res.writableEnded || res.destroyed) return true;
  writeAnswer(res, answer, correlationId);
  const seconds = (performance.now() - started) / 1000;
  services.durations.observe({ method: 'POST', route: fast.route, status: String(answer.status) }, seconds);
  if (services.logger.isLevelEnabled('info'))
    services.logger.info(
      {
        correlation_id: correlationId,
        method: 'POST',
        route: fast.route,
        status: answer.status,
        ms: Math.round(seconds * 100_000) / 100,
      },
      'request',
    );
  return true;
}
