/**
 * One delivery attempt: a single HTTP POST of the JSON body, through undici's client (not fetch, whose
 * connection cannot be pinned). The target is checked by the TargetGuard first and the socket connects
 * only to the addresses that check approved, so a DNS answer changed in between (rebinding) cannot
 * reach a private address; connections are kept alive in pools partitioned by the addresses checked
 * (./pinned-pools.ts). Redirects are not followed. Network failures and timeouts are results,
 * not exceptions; the result's status says what the receiver answered, if anything.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
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
/** Which of the tenant's webhooks the delivery is for (several may share a URL). */
export const WEBHOOK_ID_HEADER = 'X-GOV-Webhook-Id';
export const DELIVERY_ID_HEADER = 'X-GOV-Delivery-Id';
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
  /**
   * Why no status arrived: `timeout after 10000 ms`, `ECONNREFUSED`, `target refused: …`,
   * `host … does not resolve (ENOTFOUND)`.
   */
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
  const exchange = new Exchange();
  let done = false;

  const attempt = async (): Promise<void> => {
    const target = await guard.check(url).catch((error: unknown) => {
      throw new Error(`target check failed: ${describe(error)}`);
    });
    if (done) return;
    if (!target.ok) throw new Error(target.unresolved ? target.reason : `target refused: ${target.reason}`);
    // Pooled only with connections opened under the same checked addresses (./pinned-pools.ts).
    const pooled = request.pools?.poolFor(target.url, target.addresses);
    const client = pooled ?? oneOffClient(target.url, target.addresses);
    try {
      client.dispatch(
        {
          path: `${target.url.pathname}${target.url.search}`,
          method: 'POST',
          headers: {
            ...callerHeaders(headers),
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
          },
          body,
        },
        exchange,
      );
      await exchange.ended;
      // The client marks its connection free a tick after the answer ends: an attempt that ends only
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
      if (!complete) exchange.cancel(new Error(error ?? 'attempt ended'));
      const { status, retryAfter } = exchange;
      resolve({ status, retryAfter, latencyMs: clock() - started, error: status === null ? error : null });
    };
    const timer = setTimeout(() => finish(`timeout after ${timeoutMs} ms`), timeoutMs);
    attempt().then(
      () => finish(null, true),
      (error: unknown) => finish(describe(error)),
    );
  });
}

/**
 * One request's answer, taken straight from undici's dispatcher: the status and Retry-After are kept,
 * the body is counted and dropped. (Its `request()` API would wrap each answer in a stream and an
 * abort signal: ~15 µs more CPU per attempt.)
 */
class Exchange implements Dispatcher.DispatchHandler {
  status: number | null = null;
  retryAfter: string | null = null;
  /** Settles once the answer has ended (resolved) or failed or was cut short (rejected). */
  readonly ended: Promise<void>;
  private settle!: (error?: Error) => void;
  private controller: Dispatcher.DispatchController | null = null;
  private cancelled: Error | null = null;
  private bytes = 0;

  constructor() {
    this.ended = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
    // Nothing may await it once the attempt is over (a timeout): a late failure is not unhandled.
    this.ended.catch(() => undefined);
  }

  /** Drops the request, now or, while it waits for a connection, as soon as it gets one. */
  cancel(reason: Error): void {
    if (this.controller) this.controller.abort(reason);
    else this.cancelled = reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cancelled) controller.abort(this.cancelled);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return; // informational: the answer is still to come
    this.status = statusCode;
    const after = headers['retry-after'];
    this.retryAfter = (Array.isArray(after) ? after[0] : after) ?? null;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bytes += chunk.length;
    // Past the limit the connection is dropped rather than read to the end.
    if (this.bytes > MAX_RESPONSE_BYTES)
      controller.abort(new Error(`answer over ${MAX_RESPONSE_BYTES} bytes; not read further`));
  }

  onResponseEnd(): void {
    this.settle();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.settle(error);
  }
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
