/**
 * The delivery log (`webhook_delivery_log`): one small document per delivery, its status and every
 * attempt, read by the tenant (GET /webhooks/{id}/deliveries). The body itself is kept once, where it
 * was made: in the delivery-queue projection's delivery document, or for a rendered compliance report in
 * `webhook_rendered_bodies` (see delivery-bodies.ts). Copying ~2 KB into every log write cost the
 * delivery thread most of its time.
 */
import type { DeliveryView } from './delivery-queue-projection';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_SECONDS } from './retry-policy';

export const DELIVERY_LOG = 'webhook_delivery_log';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface AttemptRecord {
  attempt: number;
  /** When the attempt started (ISO 8601 UTC). */
  at: string;
  /** The receiver's HTTP status, or null (timeout, refused connection, refused target). */
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export interface DeliveryLogEntry {
  delivery_id: string;
  webhook_id: string;
  tenant_id: string;
  event_id: string;
  event_type: string;
  seq: number;
  queued_at: string;
  redelivery_of: string | null;
  /** Size in bytes of the body sent (and signed) on every attempt; see `bodyBytesOf`. */
  body_bytes?: number;
  /**
   * Only in entries written by releases that copied the body into the log (they have no
   * `body_bytes`): still sent from here, so an older data folder needs no migration.
   */
  body?: string;
  status: DeliveryStatus;
  attempts: AttemptRecord[];
  next_attempt_at: string | null;
}

/** A delivery just taken in: pending, no attempt yet, due now. */
export function newLogEntry(delivery: DeliveryView, body: string, now: string): DeliveryLogEntry {
  return {
    delivery_id: delivery.delivery_id,
    webhook_id: delivery.webhook_id,
    tenant_id: delivery.tenant_id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    seq: delivery.seq,
    queued_at: delivery.queued_at,
    redelivery_of: delivery.redelivery_of,
    body_bytes: Buffer.byteLength(body, 'utf8'),
    status: 'pending',
    attempts: [],
    next_attempt_at: now,
  };
}

/** `body_bytes`, also for an entry of an older release that carries the body instead. */
export function bodyBytesOf(entry: DeliveryLogEntry): number {
  return entry.body_bytes ?? Buffer.byteLength(entry.body ?? '', 'utf8');
}

export interface DeliverySchedule {
  /** Attempts the delivery gets, the first included. */
  max_attempts: number;
  /** The wait before each retry, in seconds. */
  retry_schedule_seconds: readonly number[];
}

const SCHEDULE: DeliverySchedule = Object.freeze({
  max_attempts: MAX_ATTEMPTS,
  retry_schedule_seconds: RETRY_SCHEDULE_SECONDS,
});

/**
 * The schedule a delivery runs (or ran) on: the current one, except for a delivery an older release
 * gave up after fewer attempts (5): it stays failed, and its schedule is the one it ended on.
 */
export function scheduleOf(entry: DeliveryLogEntry): DeliverySchedule {
  const made = entry.attempts.length;
  if (entry.status !== 'failed' || made >= MAX_ATTEMPTS) return SCHEDULE;
  return { max_attempts: made, retry_schedule_seconds: RETRY_SCHEDULE_SECONDS.slice(0, made - 1) };
}
