/**
 * Composes webhook delivery (what the dispatcher role runs, and the embedded server in-process): the
 * bus consumer that projects owed deliveries (the delivery-queue projection), and the delivery worker
 * that sends them. The consumer follows the bus after commits, so it never holds up an admission; the
 * worker runs on a thread of its own (runtime/threads/delivery-thread.ts) so attempts use another core.
 */

import type { GovernanceServices } from '../../command-api/governance/services';
import type { Bus } from '../../ports/bus';
import type { RecordedEvent } from '../../ports/event-store';
import { FollowedPosition } from '../../projectors/engine/position-waiters';
import {
  BUNDLES,
  type BundleView,
  governanceProjection,
} from '../../projectors/governance/governance-projection';
import { renderFromRecipe } from '../../projectors/webhooks/body-recipe';
import type { AttemptRecord, DeliveryStatus } from '../../projectors/webhooks/delivery-log';
import { DeliveryQueueConsumer } from '../../projectors/webhooks/delivery-queue-consumer';
import {
  DELIVERY_QUEUE_COLLECTIONS,
  DELIVERY_QUEUE_GENERATION,
  type DeliveryView,
  deliveryQueueProjection,
  WEBHOOK_DELIVERIES,
} from '../../projectors/webhooks/delivery-queue-projection';
import { DeliveryWorker } from '../../projectors/webhooks/delivery-worker';
import { FrameFanout } from '../../projectors/webhooks/frame-fanout';
import { webhookLinks } from '../../projectors/webhooks/webhook-events';
import { renderComplianceReportReady } from '../../projectors/webhooks/webhook-payloads';
import { buildReport } from '../../read-api/governance/reports/routes';
import type { ReadStoreLocation } from '../stores/stores';
import {
  spawnDeliveryThread,
  type ThreadReport,
  type ThreadRequest,
  type ThreadSettings,
} from '../threads/delivery-thread-protocol';

/** The delivery worker, wherever it runs. */
interface DeliveryRunner {
  /** Something was queued: look now. */
  wake(): void;
  /** One full pass, awaited: everything queued taken in, every due attempt made and recorded. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/** How far the delivery-queue projection has got, wherever it runs (admissions bound its lag). */
export interface DeliveryQueueProgress {
  /** The newest event position it has handled (0 before any). */
  handledPosition(): number;
  /** Resolves once it has handled every event up to `position`. */
  waitForPosition(position: number): Promise<void>;
}

/** The delivery thread's progress, as its reports tell it. */
export class ReportedProgress implements DeliveryQueueProgress {
  private readonly handled = new FollowedPosition();

  handledPosition(): number {
    return this.handled.position ?? 0;
  }

  waitForPosition(position: number): Promise<void> {
    return this.handled.wait(position);
  }

  advance(position: number): void {
    this.handled.advance(position);
  }

  /** The thread is gone: nothing waits for it any more (it counts as past every position). */
  abandon(): void {
    this.advance(Number.POSITIVE_INFINITY);
  }
}

export interface RunningWebhookDelivery {
  /**
   * The bus consumer, when it runs on this thread (in-process deliveries, tests with an injected
   * clock); null when the delivery thread consumes. Webhook commands then wait for the tenant's
   * progress in the read store.
   */
  consumer: DeliveryQueueConsumer | null;
  progress: DeliveryQueueProgress;
  worker: DeliveryRunner;
  fanout: FrameFanout;
  stop(): Promise<void>;
}

export interface WebhookDeliveryOptions {
  services: GovernanceServices;
  /** The bus the consumer reads when it runs on this thread; the delivery thread opens its own. */
  bus?: Bus;
  /** Where the delivery thread opens its own connection to the read store. */
  readStore: ReadStoreLocation;
  /** Record per-tenant progress for webhook commands answered by other processes (topology). */
  recordProgress?: boolean;
  /**
   * Run deliveries on their own thread (the default for a real server). Tests that move an injected
   * clock keep them in-process, where that clock is.
   */
  thread: boolean;
}

export async function startWebhookDelivery({
  services,
  bus,
  readStore,
  recordProgress,
  thread,
}: WebhookDeliveryOptions): Promise<RunningWebhookDelivery> {
  const render = (delivery: DeliveryView) =>
    delivery.recipe ? renderRecipe(services, delivery) : renderComplianceReport(services, delivery);
  const fanout = new FrameFanout();
  if (thread) {
    // Consuming, projecting and delivering all run on the delivery thread, off the admission path.
    const progress = new ReportedProgress();
    const worker = await startDeliveryThread(services, readStore, render, fanout, progress, {
      config: services.config,
    });
    return { consumer: null, progress, worker, fanout, stop: () => worker.stop() };
  }
  if (!bus) throw new Error('webhook delivery consuming on this thread needs the bus');
  const worker = await startInProcess(services, render);
  const consumer = new DeliveryQueueConsumer({
    bus,
    readStore: services.readStore,
    projection: deliveryQueueProjection({ publicUrl: services.config.publicUrl }),
    generation: DELIVERY_QUEUE_GENERATION,
    deliveries: WEBHOOK_DELIVERIES,
    onQueuing: (deliveries) => worker.remember(deliveries),
    onQueued: (deliveries, stored) => worker.offer(deliveries, stored),
    fanout,
    recordProgress,
    onWebhooksChanged: (ids) => worker.forgetWebhooks(ids),
    onAssigned: (whole) => worker.followWebhookChanges(whole),
  });
  await consumer.start();
  return {
    consumer,
    progress: {
      handledPosition: () => consumer.handledPosition,
      waitForPosition: (position) => consumer.waitForPosition(position),
    },
    worker,
    fanout,
    async stop() {
      await consumer.stop();
      await worker.stop();
    },
  };
}

type Render = (delivery: DeliveryView) => Promise<string>;

function recordAttempt(
  services: GovernanceServices,
  status: DeliveryStatus,
  queuedAt: string,
  attempt: AttemptRecord,
): void {
  const { metrics } = services;
  metrics.webhookAttempts.inc({ outcome: status === 'pending' ? 'retry' : status });
  metrics.webhookAttemptSeconds.observe(attempt.latency_ms / 1000);
  if (attempt.attempt === 1)
    metrics.webhookFirstAttemptDelaySeconds.observe(
      Math.max(0, Date.parse(attempt.at) - Date.parse(queuedAt)) / 1000,
    );
}

async function startInProcess(services: GovernanceServices, render: Render): Promise<DeliveryWorker> {
  const worker = new DeliveryWorker({
    readStore: services.readStore,
    collections: DELIVERY_QUEUE_COLLECTIONS,
    guard: services.webhooks.guard,
    secretKey: services.webhooks.secretKey,
    clock: services.clock,
    logger: services.logger,
    timeoutMs: services.config.webhookTimeoutMs,
    render,
    onAttempt: (entry, attempt) => recordAttempt(services, entry.status, entry.queued_at, attempt),
  });
  await worker.start();
  return worker;
}

async function startDeliveryThread(
  services: GovernanceServices,
  readStore: ReadStoreLocation,
  render: Render,
  fanout: FrameFanout,
  progress: ReportedProgress,
  consume: ThreadSettings['consume'],
): Promise<DeliveryRunner> {
  const { config } = services;
  const settings: ThreadSettings = {
    readStore,
    consume,
    collections: DELIVERY_QUEUE_COLLECTIONS,
    allow: config.webhookAllow,
    secretKey: new Uint8Array(services.webhooks.secretKey as Uint8Array),
    timeoutMs: config.webhookTimeoutMs,
    logLevel: config.logLevel,
  };
  const thread = spawnDeliveryThread(settings);
  const ran = new Map<number, () => void>();
  let nextRun = 0;
  let started!: () => void;
  let stopped!: () => void;
  let failed!: (error: Error) => void;
  const whenStarted = new Promise<void>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  const whenStopped = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const post = (request: ThreadRequest) => thread.postMessage(request);
  thread.on('message', (report: ThreadReport) => {
    switch (report.kind) {
      case 'started':
        return started();
      case 'stopped':
        return stopped();
      case 'ran':
        ran.get(report.id)?.();
        ran.delete(report.id);
        return;
      case 'attempts':
        for (const { status, queued_at, attempt } of report.attempts)
          recordAttempt(services, status, queued_at, attempt);
        return;
      case 'frame':
        return fanout.publish(report.tenantId, report.frame);
      case 'handled':
        return progress.advance(report.position);
      case 'render':
        render(report.delivery).then(
          (body) => post({ kind: 'rendered', id: report.id, body }),
          (error: unknown) => post({ kind: 'rendered', id: report.id, error: String(error) }),
        );
        return;
    }
  });
  thread.on('error', (error) => {
    services.logger.error({ err: error }, 'the delivery thread failed');
    // Its deliveries wait for a restart; admissions must not wait for it meanwhile.
    progress.abandon();
    failed(error);
  });
  // Stopped, or ended by a failure: either way admissions stop waiting for its delivery queue.
  thread.on('exit', () => progress.abandon());
  await whenStarted;
  fanout.watchSubscribers((tenantId, subscribed) =>
    post({ kind: 'frame-subscribers', tenantId, subscribed }),
  );
  return {
    wake: () => post({ kind: 'wake' }),
    runOnce: () =>
      new Promise<void>((resolve) => {
        const id = nextRun++;
        ran.set(id, resolve);
        post({ kind: 'run-once', id });
      }),
    async stop() {
      post({ kind: 'stop' });
      await whenStopped;
      await thread.terminate();
    },
  };
}

/** A stored delivery's body, rendered again from its recipe and the event store (a retry, a restart). */
async function renderRecipe(services: GovernanceServices, delivery: DeliveryView): Promise<string> {
  const position = delivery.recipe!.position;
  let source: RecordedEvent | null = null;
  for await (const event of services.eventStore.readAll({ from: position, maxCount: 1 })) source = event;
  return renderFromRecipe(delivery, source, webhookLinks(services.config.publicUrl));
}

/**
 * compliance_report_ready carries the whole GOV_COMPLIANCE_REPORT_V1, whose inclusion proof only the
 * log can give: rendered once, when the delivery is taken in, against the tree head that covered it.
 */
async function renderComplianceReport(services: GovernanceServices, delivery: DeliveryView): Promise<string> {
  const render = delivery.render;
  if (!render) throw new Error(`delivery ${delivery.delivery_id} has neither a body nor a renderer`);
  let bundle = await services.readModels.get<BundleView>(governanceProjection, BUNDLES, render.artifact_hash);
  if (!bundle) {
    // The governance read model may trail the delivery queue: let it catch up with the newest admission.
    // (Not with the head: a projector reaches only positions of the events it reads, so a head of
    // another type — a webhook registered, a tier changed — was reached only by the next admission,
    // and the intake, and with it every delivery, waited for one.)
    const newestAdmission = await services.eventStore.headPosition({ eventTypes: ['EvidenceAdmitted'] });
    await services.awaitProjections(newestAdmission, ['EvidenceAdmitted']);
    bundle = await services.readModels.get<BundleView>(governanceProjection, BUNDLES, render.artifact_hash);
  }
  if (!bundle)
    throw new Error(`no admitted bundle ${render.artifact_hash} for delivery ${delivery.delivery_id}`);
  return renderComplianceReportReady(
    render.notice,
    await buildReport(services, bundle.data, render.tree_size),
    webhookLinks(services.config.publicUrl),
  );
}
