/**
 * What the witness asks of a log over HTTP, relative to the log's base URL (the `log_url` admissions
 * name, e.g. `https://gov.example/gov/v1/log`):
 *   GET  checkpoint                     the latest signed checkpoint note (C2SP tlog-tiles)
 *   GET  consistency?from=M&to=N        an RFC 9162 consistency proof (hex hashes)
 *   POST witness-signatures             hands in a cosignature line for a tree size
 * Nothing the log answers is trusted here: the caller verifies signatures and proofs.
 */
import { isLogName, logUrlOf, SHARED_LOG_NAME } from '../domain/log';
import { fromHex } from '../merkle-core';

/** How long one request may take before the round fails. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Larger answers are not a checkpoint or a proof of this log: refuse to read them whole. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export class LogClientError extends Error {
  override readonly name = 'LogClientError';
  constructor(
    message: string,
    /** The HTTP status when the log answered, else undefined (network error, timeout). */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The log's answer to an accepted cosignature (its `sth` is kept as sent). */
export interface SubmittedCosignature {
  tree_size: number;
  witness_key: string;
  timestamp: number;
  cosignature: string;
  sth: { tree_size: number; witness_signatures: { name: string; signature: string }[] };
}

/** The three calls a witness round makes; `HttpLogClient` is the real one. */
export interface LogClient {
  readonly url: string;
  checkpoint(): Promise<string>;
  consistencyProof(from: number, to: number): Promise<Uint8Array[]>;
  submitCosignature(treeSize: number, cosignature: string): Promise<SubmittedCosignature>;
}

/**
 * The log's base URL from what an operator types: http(s) only, no query or fragment, no trailing
 * slash; a bare server URL (`https://gov.example`) means its log `logName` (default: the shared log,
 * at `/gov/v1/log`; another at `/gov/v1/logs/<name>`). A URL with a path is the log's own URL; with
 * `logName`, it must be that log's.
 */
export function logBaseUrl(text: string, logName?: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(
      `--log ${JSON.stringify(text)} is not a URL; give the log's URL, e.g. https://gov.example/gov/v1/log`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`--log must be an http or https URL (got ${url.protocol})`);
  if (url.search !== '' || url.hash !== '') throw new TypeError('--log must not have a query or fragment');
  const pathname = url.pathname.replace(/\/+$/, '');
  if (logName !== undefined && !isLogName(logName))
    throw new TypeError(`--log-name '${logName}' is not a log name (shared, test or dedicated-<24 hex>)`);
  const mount = logUrlOf('', logName ?? SHARED_LOG_NAME);
  if (pathname === '') return `${url.origin}${mount}`;
  const named = pathname.endsWith(logUrlOf('', SHARED_LOG_NAME))
    ? SHARED_LOG_NAME
    : /\/gov\/v1\/logs\/([^/]+)$/.exec(pathname)?.[1];
  if (logName !== undefined && named !== logName)
    throw new TypeError(
      `--log ${text} is not the URL of log ${logName}: give the server's URL with --log-name, or the log's URL (${mount}) alone`,
    );
  return `${url.origin}${pathname}`;
}

export class HttpLogClient implements LogClient {
  constructor(
    readonly url: string,
    private readonly timeoutMs: number = REQUEST_TIMEOUT_MS,
  ) {}

  async checkpoint(): Promise<string> {
    return (await this.request('GET', 'checkpoint')).text;
  }

  async consistencyProof(from: number, to: number): Promise<Uint8Array[]> {
    const { text } = await this.request('GET', `consistency?from=${from}&to=${to}`);
    const answer = parseJson(text, 'consistency') as { from?: unknown; to?: unknown; proof?: unknown };
    const proof = answer?.proof;
    const wellFormed =
      answer?.from === from &&
      answer?.to === to &&
      Array.isArray(proof) &&
      proof.every((node) => typeof node === 'string' && /^[0-9a-f]{64}$/.test(node));
    if (!wellFormed) {
      throw new LogClientError(
        `${this.url}/consistency?from=${from}&to=${to} did not answer {from, to, proof: [64-hex hashes]}: ${excerpt(text)}`,
      );
    }
    return (proof as string[]).map(fromHex);
  }

  async submitCosignature(treeSize: number, cosignature: string): Promise<SubmittedCosignature> {
    const { text } = await this.request('POST', 'witness-signatures', {
      tree_size: treeSize,
      cosignature,
    });
    const answer = parseJson(text, 'witness-signatures') as SubmittedCosignature;
    if (answer?.tree_size !== treeSize || typeof answer.cosignature !== 'string') {
      throw new LogClientError(
        `${this.url}/witness-signatures answered 200 without the cosignature: ${excerpt(text)}`,
      );
    }
    return answer;
  }

  private async request(method: 'GET' | 'POST', resource: string, body?: object): Promise<{ text: string }> {
    const target = `${this.url}/${resource}`;
    let response: Response;
    try {
      response = await fetch(target, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new LogClientError(
        `${method} ${target} failed: ${(error as Error).message}${cause ? ` (${cause})` : ''}`,
      );
    }
    const text = await readBounded(response, target);
    if (response.status !== 200) {
      throw new LogClientError(
        `${method} ${target} answered ${response.status}: ${errorMessage(text)}`,
        response.status,
      );
    }
    return { text };
  }
}

/** The body as text, refusing to hold more than MAX_ANSWER_BYTES of it. */
async function readBounded(response: Response, target: string): Promise<string> {
  const tooLarge = () =>
    new LogClientError(`${target} answered more than ${MAX_ANSWER_BYTES} bytes: not a log answer`);
  if (Number(response.headers.get('content-length') ?? '0') > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.length;
      if (length > MAX_ANSWER_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string, resource: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new LogClientError(`the log's ${resource} answer is not JSON: ${excerpt(text)}`);
  }
}

/** The API's error sentence when the body has one, else the start of the body. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: show it as it is
  }
  return excerpt(text);
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat || '(empty body)';
}
