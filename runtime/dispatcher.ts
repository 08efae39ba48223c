/**
 * Composes the dispatcher: the bus consumer that projects owed deliveries, and the delivery worker
 * that sends them. In the embedded mode both run in the server process, off the admission path
 * (the consumer follows the bus after commits; the worker runs on its own wake-ups).
 */
import type { Bus } from '../ports/bus';
import { DeliveryWorker } from '../projectors/dispatcher/delivery-worker';
import { DispatcherConsumer } from '../projectors/dispatcher/dispatcher-consumer';
import {
  type DeliveryView,
  dispatcherProjection,
  WEBHOOK_DELIVERIES,
  WEBHOOKS,
} from '../projectors/dispatcher/dispatcher-projection';
import { FrameFanout } from '../projectors/dispatcher/frame-fanout';
import { webhookLinks } from '../projectors/dispatcher/webhook-events';
import { renderComplianceReportReady } from '../projectors/dispatcher/webhook-payloads';
import { BUNDLES, type BundleView, governanceProjection } from '../projectors/governance';
import { physicalCollection } from '../projectors/projection';
import type { ProjectionSupervisor } from '../projectors/supervisor';
import { buildReport } from '../read-api/governance-routes';
import type { Services } from './services';

/** The dispatcher's collections are not rebuilt blue/green (its queue must not be re-sent): one generation. */
export const DISPATCHER_GENERATION = 1;
export const DISPATCHER_COLLECTIONS = {
  webhooks: physicalCollection(WEBHOOKS, DISPATCHER_GENERATION),
  deliveries: physicalCollection(WEBHOOK_DELIVERIES, DISPATCHER_GENERATION),
};

export interface RunningDispatcher {
  consumer: DispatcherConsumer;
  worker: DeliveryWorker;
  fanout: FrameFanout;
  stop(): Promise<void>;
}

export interface DispatcherOptions {
  services: Services;
  bus: Bus;
  supervisor: ProjectionSupervisor;
  /** Tests drive the worker themselves (runOnce) instead of its timers. */
  manualWorker?: boolean;
}

export async function startDispatcher({
  services,
  bus,
  supervisor,
  manualWorker = false,
}: DispatcherOptions): Promise<RunningDispatcher> {
  const { metrics } = services;
  const fanout = new FrameFanout();
  const worker = new DeliveryWorker({
    readStore: services.readStore,
    collections: DISPATCHER_COLLECTIONS,
    guard: services.webhooks.guard,
    secretKey: services.webhooks.secretKey,
    clock: services.clock,
    logger: services.logger,
    timeoutMs: services.config.webhookTimeoutMs,
    render: (delivery) => renderComplianceReport(services, supervisor, delivery),
    onAttempt: (entry, attempt) => {
      metrics.webhookAttempts.inc({ outcome: entry.status === 'pending' ? 'retry' : entry.status });
      metrics.webhookAttemptSeconds.observe(attempt.latency_ms / 1000);
      if (attempt.attempt === 1)
        metrics.webhookFirstAttemptDelaySeconds.observe(
          Math.max(0, Date.parse(attempt.at) - Date.parse(entry.queued_at)) / 1000,
        );
    },
  });
  const consumer = new DispatcherConsumer({
    bus,
    readStore: services.readStore,
    projection: dispatcherProjection({ publicUrl: services.config.publicUrl }),
    generation: DISPATCHER_GENERATION,
    deliveries: WEBHOOK_DELIVERIES,
    onQueued: () => {
      if (!manualWorker) worker.wake();
    },
    fanout,
  });
  await consumer.start();
  if (!manualWorker) await worker.start();
  return {
    consumer,
    worker,
    fanout,
    async stop() {
      await consumer.stop();
      await worker.stop();
    },
  };
}

/**
 * compliance_report_ready carries the whole GOV_COMPLIANCE_REPORT_V1, whose inclusion proof only the
 * log can give: rendered once, when the delivery is taken in, against the tree head that covered it.
 */
async function renderComplianceReport(
  services: Services,
  supervisor: ProjectionSupervisor,
  delivery: DeliveryView,
): Promise<string> {
  const render = delivery.render;
  if (!render) throw new Error(`delivery ${delivery.delivery_id} has neither a body nor a renderer`);
  let bundle = await services.readModels.get<BundleView>(governanceProjection, BUNDLES, render.artifact_hash);
  if (!bundle) {
    // The governance read model may trail the dispatcher: let it catch up with what is committed.
    await supervisor.waitForPosition(await services.eventStore.headPosition(), ['EvidenceAdmitted']);
    bundle = await services.readModels.get<BundleView>(governanceProjection, BUNDLES, render.artifact_hash);
  }
  if (!bundle)
    throw new Error(`no admitted bundle ${render.artifact_hash} for delivery ${delivery.delivery_id}`);
  const head = (await services.log.treeHeadAt(render.tree_size)) ?? services.log.latest();
  return renderComplianceReportReady(
    render.notice,
    buildReport(services, bundle.data, head),
    webhookLinks(services.config.publicUrl),
  );
}
