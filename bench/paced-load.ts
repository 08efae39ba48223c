/**
 * Open-model load: requests are due at a fixed rate whatever the server's speed (request i at
 * i / rate seconds), and each latency runs from when its request was due, so a stall is charged to
 * every request it delayed (no coordinated omission, unlike a closed loop that waits before sending).
 */
import http from 'node:http';

export interface PacedLoadOptions {
  /** Requests per second. */
  rate: number;
  seconds: number;
  /** Sends request `i`; resolves true for a wanted answer, false for any other (never rejects). */
  send: (i: number) => Promise<boolean>;
  /** Called for every answer: due `dueMs` after the start, answered `latencyMs` after it was due. */
  onAnswer: (dueMs: number, latencyMs: number, ok: boolean) => void;
  /** How often the pacer wakes up to send what has fallen due. Default 2 ms. */
  tickMs?: number;
  now?: () => number;
}

export interface PacedLoadResult {
  sent: number;
  /** Wall-clock seconds from the first request due to the last answer. */
  elapsedSeconds: number;
  /** The longest a request waited past its due time before it was sent (the generator falling behind). */
  maxSendLagMs: number;
}

export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const now = options.now ?? (() => performance.now());
  const total = Math.round(options.rate * options.seconds);
  const intervalMs = 1000 / options.rate;
  const started = now();
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  let maxSendLagMs = 0;
  while (sent < total) {
    const elapsed = now() - started;
    for (; sent < total && sent * intervalMs <= elapsed; sent++) {
      const dueMs = sent * intervalMs;
      maxSendLagMs = Math.max(maxSendLagMs, elapsed - dueMs);
      const request = options.send(sent).then((ok) => {
        options.onAnswer(dueMs, now() - started - dueMs, ok);
        inFlight.delete(request);
      });
      inFlight.add(request);
    }
    if (sent < total) await new Promise((resolve) => setTimeout(resolve, options.tickMs ?? 2));
  }
  await Promise.all(inFlight);
  return { sent, elapsedSeconds: (now() - started) / 1000, maxSendLagMs };
}

/**
 * POSTs one JSON body over a keep-alive agent and resolves with the status, or 0 when no answer came
 * (connection error or `timeoutMs` without a response). The body is drained so the socket is reused.
 */
export function postJson(
  agent: http.Agent,
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs = 30_000,
): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', () => resolve(0));
    req.end(body);
  });
}
