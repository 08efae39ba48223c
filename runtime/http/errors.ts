import type { Response } from 'express';
import type { FieldProblem } from '../../event-schemas';

/** Error codes of the API: the spec's, plus the few HTTP-level ones it leaves open. */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'UNAUTHORIZED'
  | 'TIER_INSUFFICIENT'
  | 'TRIAL_EXHAUSTED'
  | 'GATE_FAILURE'
  | 'PARENT_AUTH_NOT_FOUND'
  | 'EVIDENCE_CLASS_INVALID'
  | 'SUBJECT_LOCKED'
  | 'NOT_FOUND'
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
  const body: ErrorBody = {
    error,
    message,
    ...extra,
    correlation_id: res.locals.correlationId as string | undefined,
  };
  res.status(status).json(body);
}

export function sendInvalid(res: Response, fields: FieldProblem[]): void {
  const summary = fields
    .slice(0, 5)
    .map((f) => `${f.pointer || '(body)'} ${f.reason}`)
    .join('; ');
  const more = fields.length > 5 ? `; and ${fields.length - 5} more` : '';
  sendError(res, 400, 'INVALID_REQUEST', `the request is invalid: ${summary}${more}`, { fields });
}
