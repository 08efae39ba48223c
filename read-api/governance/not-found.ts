import type { Response } from 'express';
import { sendError } from '../../runtime/http/errors';

/** 404 for what the caller's tenant does not have: another tenant's reads exactly like a missing one. */
export function sendNotFound(res: Response, what: string, id: string): void {
  sendError(res, 404, 'NOT_FOUND', `no ${what} ${id} for this tenant`);
}
