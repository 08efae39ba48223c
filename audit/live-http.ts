/**
 * GET requests to a server's public log, for the live audit: a timeout on every attempt, a few
 * retries with exponential backoff for failures that may pass (network errors, timeouts, 408, 425,
 * 429, 5xx), and an error naming the URL and the last status when they do not.
 *
 * Any other answer (200, 404, 400, …) is returned as is: whether a 404 is a fault depends on what was
 * asked, which only the caller knows.
 */
import { sleep } from '../runtime/support/sleep';

/** A definitive answer of the server (not retried). */
export interface LogAnswer {
  readonly url: string;
  readonly status: number;
  readonly body: Uint8Array;
}

export interface LogHttpOptions {
  /** Milliseconds one attempt may take, answer body included. Default 10 s. */
  timeoutMs?: number;
  /** Attempts after the first for a failure that may pass. Default 3. */
  retries?: number;
  /** Wait before the first retry; doubled for each further one. Default 250 ms. */
  backoffMs?: number;
  /** Longest wait between attempts, also capping a server's Retry-After. Default 10 s. */
  maxBackoffMs?: number;
}

/** A request that failed for good: the server could not be reached, or kept failing. */
export class LiveRequestError extends Error {
  override readonly name = 'LiveRequestError';
  constructor(
    readonly url: string,
    /** The last HTTP status, or null when no answer arrived at all. */
    readonly status: number | null,
    readonly attempts: number,
    reason: string,
  ) {
    super(`GET ${url} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`);
  }
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Whether a status may be answered differently if asked again shortly. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status);
}

/**
 * The wait before retry number `retry` (0-based): `backoff · 2^retry`, or longer when the server
 * asked for it with Retry-After (in seconds), never above `max`.
 */
export function retryDelayMs(
  retry: number,
  backoffMs: number,
  maxBackoffMs: number,
  retryAfter?: string | null,
) {
  let delay = backoffMs * 2 ** retry;
  const asked = retryAfter != null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) * 1000 : 0;
  if (asked > delay) delay = asked;
  return Math.min(delay, maxBackoffMs);
}

/** GETs paths under one base URL (the log's mount point, e.g. `https://gov.example/gov/v1/log`). */
export class LogHttpClient {
  readonly #base: string;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;

  constructor(baseUrl: string, options: LogHttpOptions = {}) {
    this.#base = baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#retries = options.retries ?? 3;
    this.#backoffMs = options.backoffMs ?? 250;
    this.#maxBackoffMs = options.maxBackoffMs ?? 10_000;
  }

  /** The absolute URL of `path` (relative to the base, without a leading slash). */
  url(path: string): string {
    return `${this.#base}/${path}`;
  }

  /** GETs `path`; throws LiveRequestError once the retries for passing failures are spent. */
  async get(path: string): Promise<LogAnswer> {
    const url = this.url(path);
    let reason = '';
    let status: number | null = null;
    let retryAfter: string | null = null;
    const attempts = this.#retries + 1;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) {
        await sleep(retryDelayMs(attempt - 1, this.#backoffMs, this.#maxBackoffMs, retryAfter));
      }
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(this.#timeoutMs) });
        const body = new Uint8Array(await response.arrayBuffer());
        if (!isRetryableStatus(response.status)) return { url, status: response.status, body };
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        reason = `HTTP ${response.status}${serverMessage(body)}`;
      } catch (error) {
        status = null;
        retryAfter = null;
        reason = this.#describe(error);
      }
    }
    throw new LiveRequestError(url, status, attempts, reason);
  }

  #describe(error: unknown): string {
    const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${this.#timeoutMs} ms`;
    // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED, DNS, TLS, …) in `cause`.
    const cause = e.cause?.message ?? e.cause?.code;
    return cause ? `${e.message ?? 'request failed'} (${cause})` : (e.message ?? String(error));
  }
}

/** The `message` of the API's JSON error body, or the start of any other text, as a suffix. */
export function serverMessage(body: Uint8Array): string {
  if (body.length === 0) return '';
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return `: ${parsed.message}`;
  } catch {
    // Not JSON: show the text itself.
  }
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length === 0 ? '' : `: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`;
}
