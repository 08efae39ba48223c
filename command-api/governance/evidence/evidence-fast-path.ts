/**
 * MEASURED FAST PATH: do not copy this pattern; every other route, and every new one, goes through the
 * route table and Express. It exists only because this route limits admissions/s (bench: governance).
 *
 * The hottest write, `POST /governance/evidence`, answered before Express. Express's router, body
 * parser and middleware chain (and the garbage they leave) take about 40% of the main thread's time
 * per admission, and the main thread, which also decides and sequences, is what limits admissions.
 *
 * Express keeps every error answer. The fast path takes only a request whose headers are the plain
 * shape (`Content-Type: application/json`, a `Content-Length` within the limit, no transfer or content
 * coding). After reading the body it hands anything but a valid JSON object, an unknown caller, an
 * invalid body and a spent rate allowance back to Express, which answers it as it answers any request:
 * the same checks run there again, in Express's order, and a request is counted once against its rate.
 * What it answers itself, the decision and its leaf, comes from `admitEvidence`, which the Express
 * route answers from too.
 */

import { isUtf8 } from 'node:buffer';
import http from 'node:http';
import type { SubmitEvidenceBody } from '../../../event-schemas';
import { type HttpAnswer, writeAnswer } from '../../../runtime/http/answer';
import { correlationIdOf } from '../../../runtime/http/correlation';
import { serverErrorAnswer } from '../../../runtime/http/errors';
import { RecentKeys } from '../../../runtime/http/recent-keys';
import { bodyProblems } from '../../../runtime/http/validate-body';
import type { GovernanceServices } from '../services';
import { findKeyHolder } from '../tenants/auth';
import { spendRequest } from '../tenants/request-rate';
import { admitEvidence } from './admit-evidence';

const PATH = '/governance/evidence';
/** The route's label in metrics and request logs: the Express route's pattern. */
const ROUTE = PATH;
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset=(?:utf-8|"utf-8")\s*)?$/i;
const LENGTH = /^[1-9][0-9]{0,9}$/;

/** A request whose body this path has read (and parsed): Express's body parser then leaves it be. */
type ReadRequest = http.IncomingMessage & { body?: unknown };

/**
 * Returns true when it took the request (it then answers it, or hands it to `express` itself); false
 * leaves the request to the next handler untouched.
 */
export function evidenceFastPath(
  services: GovernanceServices,
  express: (req: http.IncomingMessage, res: http.ServerResponse) => void,
) {
  const recentKeys = new RecentKeys();
  return (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    if (req.method !== 'POST' || req.url !== PATH || !plainBody(req, services.config.maxBodyBytes))
      return false;
    const started = performance.now();
    readBody(req, (body) => {
      const parsed = parseObject(body);
      if (parsed === undefined) {
        express(replay(req, body), res);
        return;
      }
      (req as ReadRequest).body = parsed;
      admit(services, recentKeys, req, res, parsed, started)
        .then((answered) => {
          if (!answered) express(req, res);
        })
        // admit answers every error of the admission itself; what is left is a failed write (the
        // socket is gone) or a bug: logged, never an unhandled rejection that ends the process.
        .catch((error: unknown) => {
          services.logger.error({ err: error }, 'the evidence fast path could not answer');
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

/** Answers the admission; false (having answered nothing) when Express should answer instead. */
async function admit(
  services: GovernanceServices,
  recentKeys: RecentKeys,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: object,
  started: number,
): Promise<boolean> {
  const correlationId = correlationIdOf(req.headers['x-correlation-id']);
  let answer: HttpAnswer;
  try {
    const caller = await findKeyHolder(services, req.headers.authorization, recentKeys);
    // Validation before the rate allowance: a request Express answers is counted there, once.
    if (!caller || bodyProblems('submit-evidence', body) || spendRequest(services, caller.tenant) !== null)
      return false;
    answer = await admitEvidence(services, caller.tenant, body as SubmitEvidenceBody, correlationId);
  } catch (error) {
    answer = serverErrorAnswer(
      error as Error,
      services.logger.child({ correlation_id: correlationId }),
      correlationId,
    );
  }
  if (res.writableEnded || res.destroyed) return true;
  writeAnswer(res, answer, correlationId);
  const seconds = (performance.now() - started) / 1000;
  services.metrics.httpRequests.observe(
    { method: 'POST', route: ROUTE, status: String(answer.status) },
    seconds,
  );
  if (services.logger.isLevelEnabled('info'))
    services.logger.info(
      {
        correlation_id: correlationId,
        method: 'POST',
        route: ROUTE,
        status: answer.status,
        ms: Math.round(seconds * 100_000) / 100,
      },
      'request',
    );
  return true;
}
