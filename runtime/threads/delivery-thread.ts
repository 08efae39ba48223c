/**
 * The delivery worker on its own thread (the embedded server's default): HTTP attempts, signatures
 * and delivery-log writes use the second core instead of the admission path's. It opens its own
 * connection to the read store; the main thread wakes it, renders what needs the Merkle log, and
 * turns its attempt reports into metrics.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ReadStore } from '../../ports/read-store';
import { DeliveryQueueConsumer } from '../../projectors/webhooks/delivery-queue-consumer';
import {
  DELIVERY_QUEUE_GENERATION,
  type DeliveryView,
  deliveryQueueProjection,
  WEBHOOK_DELIVERIES,
} from '../../projectors/webhooks/delivery-queue-projection';
import { DeliveryWorker } from '../../projectors/webhooks/delivery-worker';
import type { FramePublisher } from '../../projectors/webhooks/frame-fanout';
import { TargetGuard } from '../../projectors/webhooks/target-guard';
import type { Config } from '../config/config';
import { assertDispatchOrder, openBus, openEventStore, openReadStore } from '../stores/stores';
import { createLogger } from '../support/logger';
import type { AttemptReport, ThreadReport, ThreadRequest, ThreadSettings } from './delivery-thread-protocol';

const settings = workerData as ThreadSettings;
const port = parentPort!;
const renders = new Map<number, { resolve(body: string): void; reject(error: Error): void }>();
let nextRender = 0;
const send = (report: ThreadReport) => port.postMessage(report);

let stopConsuming: (() => Promise<void>) | null = null;

/*
 * This thread runs at the process's priority, not below it: admissions can use every core, and at a
 * lower priority the deliveries (~1.5 per admission with 100 webhooks) fall behind while a load lasts.
 * The main thread holds admissions back once the delivery queue lags 500 ms (runtime/wiring/embedded.ts),
 * but at nice 5 the attempts themselves trail: webhooks bench, two runs (5 pairs each) at 0.31-0.40x
 * machine: first delivery p99 2,143 and 1,211 ms (at the process's priority ~500 ms), and admissions
 * with 100 webhooks at 80% and 81% of the rate without, no better than at the process's priority.
 */

/**
 * This thread's writes to webhook delivery's file (queued deliveries, the bus offset, delivery-log
 * pages) commit together at most this often, not as ~150 small commits a second under load that each
 * write the same hot pages again: with 100 webhooks that costs the thread about a fifth less CPU per
 * admission (and the receiver too: it gets its deliveries in bursts); a longer interval saves no more.
 * The cost: a webhook command's answer waits up to a few intervals more. A delivery's first attempt
 * does not wait: the consumer hands new deliveries to the worker as soon as their write is in the open
 * group (delivery-queue-consumer.ts).
 */
const DISPATCH_COMMIT_INTERVAL_MS = 50;

/** Attempts go to the main thread's metrics every ATTEMPT_REPORT_MS, not one message each. */
const ATTEMPT_REPORT_MS = 50;
let attemptReports: AttemptReport[] = [];
let attemptTimer: NodeJS.Timeout | null = null;
function reportAttempt(report: AttemptReport): void {
  attemptReports.push(report);
  attemptTimer ??= setTimeout(sendAttemptReports, ATTEMPT_REPORT_MS);
}
function sendAttemptReports(): void {
  if (attemptTimer) clearTimeout(attemptTimer);
  attemptTimer = null;
  if (attemptReports.length > 0) send({ kind: 'attempts', attempts: attemptReports });
  attemptReports = [];
}

/** The delivery-queue projection's progress, for the main thread's bound on its lag: once per turn. */
let handled = 0;
let handledScheduled = false;
function reportHandled(position: number): void {
  handled = position;
  if (handledScheduled) return;
  handledScheduled = true;
  setImmediate(() => {
    handledScheduled = false;
    send({ kind: 'handled', position: handled });
  });
}

/** Tenants with sockets on the main thread: only their frames cross over, straight to the sockets. */
const frameTenants = new Set<string>();
const frames: FramePublisher = {
  hasSubscribers: (tenantId) => frameTenants.has(tenantId),
  publish: (tenantId, frame) => send({ kind: 'frame', tenantId, frame }),
};

/** The delivery-queue projection on this thread: bus → owed deliveries in the read store → wake the worker. */
async function startConsuming(config: Config, readStore: ReadStore, worker: DeliveryWorker) {
  const logger = createLogger(settings.logLevel);
  const events = await openEventStore(config, { follower: true });
  const bus = await openBus(config, events.store, readStore, { logger });
  assertDispatchOrder(bus);
  const consumer = new DeliveryQueueConsumer({
    bus: bus.bus,
    readStore,
    projection: deliveryQueueProjection({ publicUrl: config.publicUrl }),
    generation: DELIVERY_QUEUE_GENERATION,
    deliveries: WEBHOOK_DELIVERIES,
    onQueuing: (deliveries) => worker.remember(deliveries),
    onQueued: (deliveries, stored) => worker.offer(deliveries, stored),
    fanout: frames,
    // Webhook commands on the main thread wait for the tenant's progress in the read store.
    recordProgress: true,
    onHandled: reportHandled,
    onWebhooksChanged: (ids) => worker.forgetWebhooks(ids),
    onAssigned: (whole) => worker.followWebhookChanges(whole),
  });
  await consumer.start();
  return {
    async stop() {
      await consumer.stop();
      await bus.bus.close();
      await events.store.close();
    },
  };
}

async function main(): Promise<void> {
  const logger = createLogger(settings.logLevel);
  const { store: readStore } = await openReadStore(settings.readStore, logger, {
    dispatchCommitIntervalMs: DISPATCH_COMMIT_INTERVAL_MS,
  });

  const worker = new DeliveryWorker({
    readStore,
    collections: settings.collections,
    guard: new TargetGuard({ allow: settings.allow }),
    secretKey: Buffer.from(settings.secretKey),
    clock: () => new Date(),
    logger,
    timeoutMs: settings.timeoutMs,
    render: (delivery: DeliveryView) =>
      new Promise<string>((resolve, reject) => {
        const id = nextRender++;
        renders.set(id, { resolve, reject });
        send({ kind: 'render', id, delivery });
      }),
    onAttempt: (entry, attempt) =>
      reportAttempt({ status: entry.status, queued_at: entry.queued_at, attempt }),
  });

  port.on('message', (request: ThreadRequest) => {
    switch (request.kind) {
      case 'wake':
        worker.wake();
        return;
      case 'frame-subscribers':
        if (request.subscribed) frameTenants.add(request.tenantId);
        else frameTenants.delete(request.tenantId);
        return;
      case 'run-once':
        void worker.runOnce().then(() => send({ kind: 'ran', id: request.id }));
        return;
      case 'rendered': {
        const waiting = renders.get(request.id);
        renders.delete(request.id);
        if (request.error !== undefined) waiting?.reject(new Error(request.error));
        else waiting?.resolve(request.body!);
        return;
      }
      case 'stop':
        void (stopConsuming ?? (async () => undefined))()
          .then(() => worker.stop())
          .then(() => readStore.close())
          .then(() => {
            sendAttemptReports();
            send({ kind: 'stopped' });
          });
        return;
    }
  });

  await worker.start();
  const consuming = settings.consume
    ? await startConsuming(settings.consume.config, readStore, worker)
    : null;
  stopConsuming = consuming?.stop ?? null;
  send({ kind: 'started' });
}

// A failure (the read store cannot be opened) is an unhandled rejection: it ends the thread with an
// 'error' event, which the main thread reports and which fails webhook delivery's start.
void main();
