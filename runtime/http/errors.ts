import type { Response } from 'express';
import type { Logger } from 'pino';
import type { FieldProblem } from '../../event-schemas';
import { LogNotSignedError } from '../../ports/log';
import { ReadModelsBehindError } from '../../read-api/engine/read-barrier';
import { type HttpAnswer, sendAnswer } from './answer';

/** Error codes of the API: the spec's, plus the few HTTP-level ones it leaves open. */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'UNAUTHORIZED'
  | 'TIER_INSUFFICIENT'
  | 'FORBIDDEN'
  | 'TRIAL_EXHAUSTED'
  | 'GATE_FAILURE'
  | 'PARENT_AUTH_NOT_FOUND'
  | 'EVIDENCE_CLASS_INVALID'
  | 'SUBJECT_LOCKED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'HEADERS_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

/** Every error answer has this shape: a machine code, a sentence for a person, and details if any. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  /** For INVALID_REQUEST: each offending field as a JSON pointer and the reason. */
  fields?: FieldProblem[];
  correlation_id?: string;
}

export function sendError(
  res: Response,
  status: number,
  error: ErrorCode,
  message: string,
  extra: Partial<Pick<ErrorBody, 'fields'>> = {},
): void {
  sendErrorAnswer(
    res,
    errorAnswer(status, error, message, res.locals.correlationId as string | undefined, extra),
  );
}

/**
 * How a service writes its errors, when not in the clearinghouse's `ErrorBody`: the agent platform
 * answers `{error, detail}`. An application sets it for every request it serves (`tableApp`), so the
 * checks both services share (body, query, 404, 405, 413, 500) answer in the service's own shape.
 */
export type ErrorDialect = (status: number, error: ErrorCode, message: string) => object;

/** Sends an error answer made in the `ErrorBody` shape, in the dialect of the application serving it. */
export function sendErrorAnswer(res: Response, answer: HttpAnswer): void {
  const dialect = res.locals.errorDialect as ErrorDialect | undefined;
  const { error, message } = answer.body as ErrorBody;
  sendAnswer(res, dialect ? { ...answer, body: dialect(answer.status, error, message) } : answer);
}

/** An error answer as data (see `HttpAnswer`); `headers` such as `Retry-After` go with it. */
export function errorAnswer(
  status: number,
  error: ErrorCode,
  message: string,
  correlationId: string | undefined,
  extra: Partial<Pick<ErrorBody, 'fields'>> = {},
  headers?: Record<string, string>,
): HttpAnswer {
  const body: ErrorBody = { error, message, ...extra, correlation_id: correlationId };
  return headers ? { status, body, headers } : { status, body };
}

export function sendInvalid(res: Response, fields: FieldProblem[]): void {
  const summary = fields
    .slice(0, 5)
    .map((f) => `${f.pointer || '(body)'} ${f.reason}`)
    .join('; ');
  const more = fields.length > 5 ? `; and ${fields.length - 5} more` : '';
  sendError(res, 400, 'INVALID_REQUEST', `the request is invalid: ${summary}${more}`, { fields });
}

/** An error no route answered itself: a system or SQLite error, or a bug. */
export interface HttpError extends Error {
  /** A system or SQLite error code (`ENOSPC`, `SQLITE_FULL`, …). */
  code?: string;
}

/**
 * The spec's 500 for an error no route answered, logged (never its details in the answer). It says
 * what happened where the caller can act on it: a full disk is not a bug the caller could report.
 */
export function serverErrorAnswer(
  error: HttpError,
  logger: Logger,
  correlationId: string | undefined,
): HttpAnswer {
  // Not a fault: the read waited its limit for the read models to apply a write already acknowledged.
  if (error instanceof ReadModelsBehindError) {
    logger.warn({ err: error }, 'read answered 503: the read models are behind');
    return errorAnswer(503, 'SERVICE_UNAVAILABLE', error.message, correlationId, {}, { 'Retry-After': '1' });
  }
  // Not a fault: a leaf's log was created a moment ago and this process has not read its first head.
  if (error instanceof LogNotSignedError) {
    logger.warn({ err: error }, 'read answered 503: a log has no signed tree head here yet');
    return errorAnswer(503, 'SERVICE_UNAVAILABLE', error.message, correlationId, {}, { 'Retry-After': '1' });
  }
  if (isStorageFull(error)) {
    logger.error({ err: error }, 'request failed: the disk is full');
    return errorAnswer(
      500,
      'INTERNAL_ERROR',
      "the service's disk is full, so it cannot store requests now; retry with exponential backoff",
      correlationId,
      {},
      { 'Retry-After': '30' },
    );
  }
  logger.error({ err: error }, 'request failed');
  return errorAnswer(
    500,
    'INTERNAL_ERROR',
    'an internal error occurred; retry with exponential backoff',
    correlationId,
  );
}

/** SQLite's "database or disk is full", or the system's "no space left on device". */
function isStorageFull(error: HttpError): boolean {
  return error.code === 'SQLITE_FULL' || error.code === 'ENOSPC';
}
