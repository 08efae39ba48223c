/**
 * One delivery attempt: a single HTTP POST of the JSON body, over node:http/https (not fetch, whose
 * connection cannot be pinned). The target is checked by the TargetGuard first and the socket connects
 * only to the addresses that check approved, so a DNS answer changed in between (rebinding) cannot
 * reach a private address; connections are kept alive in pools partitioned by the addresses checked
 * (./pinned-agents.ts). Redirects are not followed. Network failures and timeouts are results,
 * not exceptions; the result's status says what the receiver answered, if anything.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { PinnedAgents } from './pinned-agents';
import type { TargetGuard } from './target-guard';

/** Largest body ever sent (128 KB); bigger payloads are trimmed before they get here. */
export const MAX_PAYLOAD_BYTES = 131_072;
/** Per-attempt time limit, target check included: no answer by then is a failure (a timeout). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Response bytes read (and discarded) at most before the connection is dropped. */
export const MAX_RESPONSE_BYTES = 65_536;
export const USER_AGENT = 'gov-webhooks/1';

/** Header names the caller sets besides the signature (`SIGNATURE_HEADER` in ./signature). */
export const EVENT_ID_HEADER = 'X-GOV-Event-Id';
export const EVENT_TYPE_HEADER = 'X-GOV-Event-Type';
export const DELIVERY_ATTEMPT_HEADER = 'X-GOV-Delivery-Attempt';

export interface DeliveryRequest {
  url: string;
  body: Buffer;
  /** Signature, event id and type, attempt number; content-type, content-length and user-agent are ours. */
  headers: Record<string, string>;
  timeoutMs?: number;
  guard: TargetGuard;
  /** Keep-alive pools; without them, a fresh connection per attempt. */
  agents?: PinnedAgents;
  /** Milliseconds for latency; defaults to performance.now. */
  clock?: () => number;
}

export interface DeliveryResult {
  /** The receiver's HTTP status, or null when none arrived (refused target, network error, timeout). */
  status: number | null;
  /** The answer's raw Retry-After header, if any (see `parseRetryAfter`). */
  retryAfter: string | null;
  /** From the start of the attempt (target check included) until it ended. */
  latencyMs: number;
  /** Why no status arrived: `timeout after 10000 ms`, `ECONNREFUSED`, `target refused: …`. */
  error: string | null;
}

/** Rejects only for a body over MAX_PAYLOAD_BYTES, before anything is checked or connected. */
export function deliver(request: DeliveryRequest): Promise<DeliveryResult> {
  const { url, body, headers, guard, timeoutMs = ATTEMPT_TIMEOUT_MS } = request;
  if (body.length > MAX_PAYLOAD_BYTES) {
    return Promise.reject(
      new RangeError(`webhook body is ${body.length} bytes; the limit is ${MAX_PAYLOAD_BYTES}`),
    );
  }
  const clock = request.clock ?? (() => performance.now());
  const started = clock();
  return new Promise((resolve) => {
    let outgoing: http.ClientRequest | null = null;
    let answer: IncomingMessage | null = null;
    let done = false;
    // `complete`: the whole answer was read, so the connection may serve the next attempt.
    const finish = (error: string | null, complete = false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (!complete) outgoing?.destroy();
      resolve({
        status: answer?.statusCode ?? null,
        retryAfter: answer?.headers['retry-after'] ?? null,
        latencyMs: clock() - started,
        error: answer ? null : error,
      });
    };
    const timer = setTimeout(() => finish(`timeout after ${timeoutMs} ms`), timeoutMs);

    guard.check(url).then(
      (target) => {
        if (done) return;
        if (!target.ok) return finish(`target refused: ${target.reason}`);
        const send = target.url.protocol === 'https:' ? https.request : http.request;
        outgoing = send(target.url, {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(body.length),
            'user-agent': USER_AGENT,
          },
          // Pooled only with sockets opened under the same checked addresses (./pinned-agents.ts).
          agent: request.agents?.agentFor(target.url, target.addresses) ?? false,
          lookup: pinnedLookup(target.addresses),
        });
        outgoing.on('response', (response) => {
          answer = response;
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read >= MAX_RESPONSE_BYTES) finish(null);
          });
          response.on('end', () => finish(null, true));
          response.on('error', () => finish(null));
          response.on('close', () => finish(null));
        });
        outgoing.on('error', (error) => finish(describe(error)));
        outgoing.end(body);
      },
      (error) => finish(`target check failed: ${describe(error)}`),
    );
  });
}

/** A `lookup` that answers with the checked addresses only, whatever DNS says now. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const records = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = records.filter((record) => !family || record.family === family);
    const first = usable[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error('no checked address of the requested family');
      error.code = 'ENOTFOUND';
      callback(error, '');
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

function describe(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ?? message ?? String(error);
}
