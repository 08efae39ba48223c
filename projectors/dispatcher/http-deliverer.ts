/**
 * One delivery attempt: a single HTTP POST of the JSON body, through undici's client (not fetch, whose
 * connection cannot be pinned). The target is checked by the TargetGuard first and the socket connects
 * only to the addresses that check approved, so a DNS answer changed in between (rebinding) cannot
 * reach a private address; connections are kept alive in pools partitioned by the addresses checked
 * (./pinned-pools.ts). Redirects are not followed. Network failures and timeouts are results,
 * not exceptions; the result's status says what the receiver answered, if anything.
 */
import { oneOffClient, type PinnedPools } from './pinned-pools';
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
  pools?: PinnedPools;
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
  const abort = new AbortController();
  let status: number | null = null;
  let retryAfter: string | null = null;
  let done = false;

  const attempt = async (): Promise<void> => {
    const target = await guard.check(url).catch((error: unknown) => {
      throw new Error(`target check failed: ${describe(error)}`);
    });
    if (done) return;
    if (!target.ok) throw new Error(`target refused: ${target.reason}`);
    // Pooled only with connections opened under the same checked addresses (./pinned-pools.ts).
    const pooled = request.pools?.poolFor(target.url, target.addresses);
    const client = pooled ?? oneOffClient(target.url, target.addresses);
    try {
      const answer = await client.request({
        path: `${target.url.pathname}${target.url.search}`,
        method: 'POST',
        headers: { ...callerHeaders(headers), 'content-type': 'application/json', 'user-agent': USER_AGENT },
        body,
        signal: abort.signal,
      });
      status = answer.statusCode;
      const after = answer.headers['retry-after'];
      retryAfter = (Array.isArray(after) ? after[0] : after) ?? null;
      // The answer is read (and discarded) up to the limit; past it the connection is dropped.
      await answer.body.dump({ limit: MAX_RESPONSE_BYTES, signal: abort.signal }).catch(() => undefined);
      // The client marks its connection free a tick after the body ends: an attempt that ends only
      // then lets the next one to this receiver reuse the connection instead of opening another.
      if (pooled) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      if (!pooled) void client.destroy().catch(() => undefined);
    }
  };

  return new Promise<DeliveryResult>((resolve) => {
    // `complete`: the whole answer was read, so the connection may serve the next attempt.
    const finish = (error: string | null, complete = false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // Whatever is still open (a connection waiting for its answer, a body still coming) is dropped.
      if (!complete) abort.abort();
      resolve({ status, retryAfter, latencyMs: clock() - started, error: status === null ? error : null });
    };
    const timer = setTimeout(() => finish(`timeout after ${timeoutMs} ms`), timeoutMs);
    attempt().then(
      () => finish(null, true),
      (error: unknown) => finish(describe(error)),
    );
  });
}

/** The caller's headers without any of the ones we set ourselves, in whatever case they are spelt. */
function callerHeaders(headers: Record<string, string>): Record<string, string> {
  const own = (name: string) => /^(content-type|content-length|user-agent|host)$/i.test(name);
  return Object.keys(headers).some(own)
    ? Object.fromEntries(Object.entries(headers).filter(([name]) => !own(name)))
    : headers;
}

function describe(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ?? message ?? String(error);
}
