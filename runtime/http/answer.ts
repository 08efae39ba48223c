import type http from 'node:http';
import type { Response } from 'express';

/**
 * A route's answer as data: what the Express route and the evidence fast path (which answers before
 * Express) both write, so that the two cannot drift apart.
 */
export interface HttpAnswer {
  status: number;
  body: object;
  /** Headers beyond the content type and the correlation id (`Retry-After`, …). */
  headers?: Readonly<Record<string, string>>;
}

/** Express's `res.json` sends this type; the fast path sends the same. */
const JSON_UTF8 = 'application/json; charset=utf-8';

/** Writes an answer through Express (after the correlation middleware set `X-Correlation-Id`). */
export function sendAnswer(res: Response, answer: HttpAnswer): void {
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.status(answer.status).json(answer.body);
}

/** Writes an answer on a bare Node response, with the headers Express would have set. */
export function writeAnswer(res: http.ServerResponse, answer: HttpAnswer, correlationId: string): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'X-Correlation-Id': correlationId,
    ...answer.headers,
    'Content-Type': JSON_UTF8,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
