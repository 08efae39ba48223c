/**
 * The agent platform's errors: `{error, detail?}` (its spec's shape, not the clearinghouse's), with
 * lower-case error strings. `platformErrors` is the dialect its application sets, so the checks both
 * services share (body, query, 404, 405, 413, 500; runtime/http/errors.ts) answer in this shape too.
 */
import type { Response } from 'express';
import type { Logger } from 'pino';
import { type HttpAnswer, sendAnswer } from './answer';
import {
  type ErrorBody,
  type ErrorCode,
  type ErrorDialect,
  type HttpError,
  serverErrorAnswer,
} from './errors';
import { type Json, json } from './openapi-parts';

export type PlatformErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'session_required'
  | 'csrf_rejected'
  | 'feature_requires_upgrade'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'agent_not_running'
  | 'agent_running'
  | 'payload_too_large'
  | 'headers_too_large'
  | 'request_timeout'
  | 'unsupported_media_type'
  | 'quota_exceeded'
  | 'rate_limited'
  | 'indexing_in_progress'
  | 'service_unavailable'
  | 'internal_error';

/** Every platform error body; `required_tier` only with `feature_requires_upgrade`. */
export interface PlatformErrorBody {
  error: PlatformErrorCode;
  detail?: string;
  required_tier?: string;
}

export function sendPlatformError(
  res: Response,
  status: number,
  error: PlatformErrorCode,
  detail: string,
  extra: { required_tier?: string; headers?: Record<string, string> } = {},
): void {
  sendAnswer(res, platformErrorAnswer(status, error, detail, extra));
}

/** A platform error as data (see `HttpAnswer`), for answers written without Express. */
export function platformErrorAnswer(
  status: number,
  error: PlatformErrorCode,
  detail: string,
  extra: { required_tier?: string; headers?: Record<string, string> } = {},
): HttpAnswer {
  const { headers, ...members } = extra;
  const body: PlatformErrorBody = { error, detail, ...members };
  return headers ? { status, body, headers } : { status, body };
}

/** The shared checks' codes, in the platform's words. */
const PLATFORM_CODE: Readonly<Partial<Record<ErrorCode, PlatformErrorCode>>> = {
  INVALID_REQUEST: 'invalid_request',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  METHOD_NOT_ALLOWED: 'method_not_allowed',
  CONFLICT: 'conflict',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  HEADERS_TOO_LARGE: 'headers_too_large',
  REQUEST_TIMEOUT: 'request_timeout',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  RATE_LIMITED: 'rate_limited',
  SERVICE_UNAVAILABLE: 'service_unavailable',
  INTERNAL_ERROR: 'internal_error',
};

export const platformErrors: ErrorDialect = (_status, error, message) =>
  ({
    error: PLATFORM_CODE[error] ?? 'internal_error',
    detail: message,
  }) satisfies PlatformErrorBody;

/** `serverErrorAnswer` (the 500 or 503 of an error no route answered, logged) in the platform's shape. */
export function platformServerErrorAnswer(
  error: HttpError,
  logger: Logger,
  correlationId: string | undefined,
): HttpAnswer {
  const answer = serverErrorAnswer(error, logger, correlationId);
  const { error: code, message } = answer.body as ErrorBody;
  return { ...answer, body: platformErrors(answer.status, code, message) };
}

/** OpenAPI: the platform's error body narrowed to the strings one status answers with. */
export function platformErrorResponse(description: string, codes: readonly PlatformErrorCode[]): Json {
  return {
    description,
    content: json({
      allOf: [{ $ref: 'urn:gov:response:platform-error' }],
      type: 'object',
      properties: { error: { enum: [...codes] } },
    }),
  };
}
