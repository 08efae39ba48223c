/**
 * A platform command's refusal: what its decision answers instead of events (it appends nothing), and
 * how a route answers it, in the platform's error shape. Every feature's deciders build theirs here.
 */
import type { Response } from 'express';
import { type PlatformErrorCode, sendPlatformError } from '../../runtime/http/platform-errors';
import type { RefusalResult } from '../engine/decider-specification';

/** A refusal whose `error` is one of `E` (a decider names the ones it can answer). */
export interface Refusal<E extends PlatformErrorCode = PlatformErrorCode> extends RefusalResult {
  error: E;
  /** Seconds, for a 429 (sent as Retry-After). */
  retryAfter?: number;
}

export function refused<E extends PlatformErrorCode>(
  status: number,
  error: E,
  message: string,
  retryAfter?: number,
): Refusal<E> {
  return { kind: 'refused', status, error, message, ...(retryAfter === undefined ? {} : { retryAfter }) };
}

/** A refusal in the platform's error shape (with Retry-After when it says how long to wait). */
export function sendRefusal(res: Response, refusal: Refusal): void {
  sendPlatformError(
    res,
    refusal.status,
    refusal.error,
    refusal.message,
    refusal.retryAfter === undefined ? {} : { headers: { 'Retry-After': String(refusal.retryAfter) } },
  );
}
