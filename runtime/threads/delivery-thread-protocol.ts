/** The messages between the server's main thread and its delivery thread (delivery-thread.ts). */
import type { Worker } from 'node:worker_threads';
import type { AttemptRecord, DeliveryStatus } from '../../projectors/webhooks/delivery-log';
import type { DeliveryView } from '../../projectors/webhooks/delivery-queue-projection';
import type { Config } from '../config/config';
import type { ReadStoreLocation } from '../stores/stores';
import { startWorker } from '../support/worker-entry';

export interface ThreadSettings {
  readStore: ReadStoreLocation;
  /**
   * When set, the thread also consumes the bus and projects the owed deliveries (the delivery-queue
   * projection), with its own connections to the stores the configuration names: none of that work
   * runs on the admission path's thread.
   */
  consume: { config: Config } | null;
  collections: { webhooks: string; deliveries: string };
  allow: string[];
  secretKey: Uint8Array;
  timeoutMs: number;
  logLevel: string;
}

/** Starts the delivery thread (delivery-thread.ts, beside this file). */
export function spawnDeliveryThread(settings: ThreadSettings): Worker {
  return startWorker(__dirname, __filename, 'delivery-thread', settings);
}

/** One finished attempt, as the main thread's metrics need it. */
export interface AttemptReport {
  status: DeliveryStatus;
  queued_at: string;
  attempt: AttemptRecord;
}

/** Main thread → delivery thread. */
export type ThreadRequest =
  | { kind: 'wake' }
  | { kind: 'run-once'; id: number }
  | { kind: 'rendered'; id: number; body?: string; error?: string }
  /** A tenant got its first connected socket on the main thread, or lost its last. */
  | { kind: 'frame-subscribers'; tenantId: string; subscribed: boolean }
  | { kind: 'stop' };

/** Delivery thread → main thread. */
export type ThreadReport =
  | { kind: 'started' }
  | { kind: 'ran'; id: number }
  | { kind: 'render'; id: number; delivery: DeliveryView }
  /** Finished attempts (for the metrics), a few at a time rather than a message each. */
  | { kind: 'attempts'; attempts: AttemptReport[] }
  /** A frame for the tenant's sockets on the main thread. */
  | { kind: 'frame'; tenantId: string; frame: string }
  /** The delivery-queue projection has handled every event up to `position` (once per turn at most). */
  | { kind: 'handled'; position: number }
  | { kind: 'stopped' };
