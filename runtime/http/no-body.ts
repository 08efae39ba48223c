import type { NextFunction, Request, Response } from 'express';
import { sendInvalid } from './errors';

/**
 * For routes that take no body: none, or an empty JSON object, is accepted; anything else answers
 * 400 INVALID_REQUEST rather than being silently ignored (a client sending one has misread the API).
 * A body the JSON parser skipped (another Content-Type) is still a body.
 */
export function requireNoBody(req: Request, res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  const announced =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  const empty =
    body === undefined
      ? !announced
      : body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0;
  if (empty) {
    next();
    return;
  }
  sendInvalid(res, [{ pointer: '', reason: 'must be absent (or {}): this route takes no body' }]);
}
