/**
 * MEASURED FAST PATH: do not copy this pattern; every other route, and every new one, goes through the
 * route table and Express. It exists only because proof reads are the log's busiest (bench: governance).
 *
 * The public log's hottest request, answered before Express: `GET /gov/v1/log/proof?leaf_hash=<hash>`
 * for a leaf in the latest signed tree (what verifiers and monitors ask most). Express costs several
 * times the proof itself, so this path parses the one URL shape it serves and writes the same answer
 * the Express route writes (body, CORS, correlation id, metrics, request log). Everything else — other
 * routes, `tree_size`, a malformed or repeated parameter, an unknown leaf — falls through to Express,
 * which owns every error answer.
 */
import type http from 'node:http';
import type { Logger } from 'pino';
import { SHARED_LOG_NAME } from '../../../domain/log';
import type { PublishedLog } from '../../../ports/log';
import { correlationIdOf } from '../../../runtime/http/correlation';
import type { Metrics } from '../../../runtime/support/metrics';
import { inclusionProofJson, JSON_TYPE } from './routes';

const PREFIX = '/gov/v1/log/proof?leaf_hash=';
const HASH = /^[0-9a-f]{64}$/;

export interface FastPathOptions {
  log: PublishedLog;
  metrics: Pick<Metrics, 'httpRequests'>;
  logger: Logger;
}

/** Returns true when it answered the request; false leaves it to the next handler untouched. */
export function proofFastPath({ log, metrics, logger }: FastPathOptions) {
  return (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX)) return false;
    const hash = url.slice(PREFIX.length);
    if (!HASH.test(hash)) return false;
    const size = log.latest().sth.tree_size;
    const index = log.leafIndexByHash(hash);
    if (index === null || index >= size) return false;
    const stop = metrics.httpRequests.startTimer();
    const started = performance.now();
    const id = correlationIdOf(req.headers['x-correlation-id']);
    const body = inclusionProofJson(log, SHARED_LOG_NAME, hash, index, size);
    res.writeHead(200, {
      'X-Correlation-Id': id,
      'Access-Control-Allow-Origin': '*',
      'Content-Type': JSON_TYPE,
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
    stop({ method: 'GET', route: '/proof', status: '200' });
    if (logger.isLevelEnabled('info'))
      logger.info(
        {
          correlation_id: id,
          method: 'GET',
          route: '/proof',
          status: 200,
          ms: Math.round((performance.now() - started) * 100) / 100,
        },
        'request',
      );
    return true;
  };
}
