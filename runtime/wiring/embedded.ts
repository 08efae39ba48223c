import type { Logger } from 'pino';
import type { GovernanceServices } from '../../command-api/governance/services';
import type { PlatformServices } from '../../command-api/platform/services';
import { SHARED_LOG_NAME } from '../../domain/log';
import type { EventStore } from '../../ports/event-store';
import type { ReadStore } from '../../ports/read-store';
import { projections } from '../../projectors';
import { BusForwarder } from '../../projectors/engine/bus-forwarder';
import { ProjectionSupervisor, type RunningProjections } from '../../projectors/engine/supervisor';
import { LogAnchorer } from '../../projectors/log/log-anchorer';
import { ensureTestLog } from '../../projectors/log/log-directory';
import { GOVERNANCE_ADMISSION_EVENT_TYPES, LogSequencer } from '../../projectors/log/log-sequencer';
import { type Follower, ReadBarrier } from '../../read-api/engine/read-barrier';
import type { Config } from '../config/config';
import { listen } from '../http/listen';
import { openServerKeyring } from '../keys/keyring';
import {
  assertDispatchOrder,
  openBus,
  openEventStore,
  openReadStore,
  readStoreLocation,
} from '../stores/stores';
import { createLogger } from '../support/logger';
import { createMetrics, type Metrics } from '../support/metrics';
import { ProjectionThread } from '../threads/threaded-projections';
import { composePlatformServices } from './compose-platform';
import { composeServices } from './compose-services';
import { createRequestHandler } from './http-app';
import { observeAppends } from './observed-appends';
import { createPlatformRequestHandler } from './platform-app';
import { clearinghouseListening, sequencerWritingHere } from './platform-upstream';
import { remoteWaitsOn } from './remote-waits';
import {
  type DeliveryQueueProgress,
  type RunningWebhookDelivery,
  startWebhookDelivery,
} from './webhook-delivery';

/**
 * Webhook delivery's queue as a follower of acknowledged admissions, where it reads this process's
 * event store. It never holds one up while it has handled everything acknowledged more than
 * DELIVERY_QUEUE_MAX_LAG_MS ago; past that, admissions wait for it, so that under a load the cores cannot
 * carry, deliveries stay within about a second of their admissions instead of falling further behind
 * for as long as the load lasts. A delivery thread that fails stops counting (webhook-delivery.ts).
 *
 * The bound is in time, not positions: the delivery thread groups its commits (50 ms apart, one for a
 * batch's deliveries and one for the bus offset), so even an idle delivery queue reports its progress
 * in steps of ~100 ms. A bound in positions smaller than what one step brings would hold admissions up
 * at every step though the queue keeps up (250 positions at ~1,800 admissions/s: ~15% of admissions
 * would wait ~110 ms, with the delivery thread at 6% of a core).
 */
const DELIVERY_QUEUE_MAX_LAG_MS = 500;
const DELIVERY_QUEUE_FOLLOWER: Follower = {
  name: 'delivery-queue',
  // The queue reads the clearinghouse's admissions only, never the platform's leaf events.
  eventTypes: GOVERNANCE_ADMISSION_EVENT_TYPES,
  maxLagMs: DELIVERY_QUEUE_MAX_LAG_MS,
};

export interface EmbeddedOptions {
  /** The clock of every decision, expiry and tree head (tests move it). */
  clock?: () => Date;
}

export interface RunningServer {
  /** The clearinghouse's base URL. */
  url: string;
  services: GovernanceServices;
  /** The agent platform's base URL (its own port, GOV_PLATFORM_PORT); empty with GOV_PLATFORM_PORT=off. */
  platformUrl: string;
  platform: PlatformServices;
  /** The read-model projectors (on their own thread unless GOV_PROJECTION_THREAD=0). */
  supervisor: RunningProjections;
  sequencer: LogSequencer;
  /** Anchors the other logs' checkpoints in the shared log every GOV_ANCHOR_INTERVAL_MS. */
  anchorer: LogAnchorer;
  webhookDelivery: RunningWebhookDelivery;
  /** Graceful stop: stop accepting, drain in-flight requests, store checkpoints, close the stores. */
  close(): Promise<void>;
}

/**
 * The all-in-one server: every role in one process on one HTTP port. By default on the embedded
 * SQLite stores and the in-process bus; the same composition runs on EventStoreDB, MongoDB or Kafka
 * when they are configured (runtime/stores/stores.ts).
 */
export async function startEmbedded(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  options: EmbeddedOptions = {},
): Promise<RunningServer> {
  const clock = options.clock ?? (() => new Date());
  const metrics = createMetrics();
  const keyring = await openServerKeyring(config.dataDir, config.logOrigin);
  const events = await openEventStore(config, { writerThread: config.eventWriterThread });
  let projectionThread: ProjectionThread | null = null;
  const eventStore = config.projectionThread
    ? observeAppends(events.store, () => projectionThread?.noteAppended())
    : events.store;
  const location = readStoreLocation(config);
  const read = await openReadStore(location, logger);
  const readStore = read.store;
  // The delivery thread's progress is read from the store: one shared poll for every webhook command.
  const deliveryQueueWaits = remoteWaitsOn(readStore);
  projectionThread = config.projectionThread
    ? await ProjectionThread.start({ config, metrics, logger })
    : null;
  const supervisor: RunningProjections =
    projectionThread ?? (await startInline({ eventStore, readStore, metrics, logger }));
  // Serve nothing older than the store: read models first catch up with events written while stopped.
  await supervisor.catchUp();
  // The test log exists from the first start, before any test-mode tenant can admit.
  await ensureTestLog(eventStore, keyring);
  // Alone, it writes every log, from one subscription.
  const sequencer = new LogSequencer({
    eventStore,
    signer: keyring.logSigner,
    retiredVerifierKeys: keyring.retiredLogVerifierKeys,
    signerOf: (name) => keyring.logSignerOf(name),
    writes: 'all',
    logger,
    metrics,
    clock,
  });
  await sequencer.start();
  const anchorer = new LogAnchorer({
    eventStore,
    logs: sequencer,
    writesShared: () => sequencer.writing().includes(SHARED_LOG_NAME),
    intervalMs: config.anchorIntervalMs,
    logger,
    metrics,
    clock,
  });
  anchorer.start();
  const bus = await openBus(config, eventStore, readStore, { logger, metrics });
  assertDispatchOrder(bus);
  // With Kafka as the bus, committed events reach it through the forwarder.
  const forwarder = bus.needsForwarder
    ? new BusForwarder({ eventStore, readStore, bus: bus.bus, logger, metrics })
    : null;
  await forwarder?.start();
  // Requests may arrive between listen and webhook delivery's start; webhook commands wait for it.
  let deliveryQueueProgress: DeliveryQueueProgress | null = null;
  let resolveWebhookDelivery!: (started: Promise<RunningWebhookDelivery>) => void;
  const webhookDeliveryStarted = new Promise<RunningWebhookDelivery>((resolve) => {
    resolveWebhookDelivery = (started) => void started.then(resolve, () => undefined);
  });
  const {
    core,
    services,
    log,
    stop: stopServiceThreads,
  } = composeServices({
    config,
    logger,
    metrics,
    clock,
    keyring,
    eventStore,
    readStore,
    logSource: sequencer,
    logs: sequencer,
    awaitProjections: (position, eventTypes) => supervisor.waitForPosition(position, eventTypes),
    // This process serves the reads of its own projections: admissions need not wait for them.
    // Through Kafka, the delivery queue's lag includes the broker's: admissions do not wait on a broker.
    readBarrier: new ReadBarrier(
      bus.needsForwarder ? projections : [...projections, DELIVERY_QUEUE_FOLLOWER],
      {
        appliedPosition: (name) =>
          name === DELIVERY_QUEUE_FOLLOWER.name
            ? (deliveryQueueProgress?.handledPosition() ?? null)
            : supervisor.appliedPosition(name),
        waitForProjection: (name, position) =>
          name === DELIVERY_QUEUE_FOLLOWER.name
            ? webhookDeliveryStarted.then((started) => started.progress.waitForPosition(position))
            : supervisor.waitForProjection(name, position),
      },
      config.integrationTimeoutMs,
    ),
    // A consumer on this thread is waited for in memory; the delivery thread's (the default) through
    // the tenant's progress it stores.
    awaitDeliveryQueue: (position, tenantId) =>
      webhookDeliveryStarted.then((started) =>
        started.consumer
          ? started.consumer.waitForPosition(position)
          : deliveryQueueWaits.awaitDeliveryQueue(position, tenantId),
      ),
    bindings: { event_store: events.binding, read_store: read.binding, bus: bus.binding },
    role: 'all',
  });
  await log.start();
  const http = await listen(createRequestHandler(services), config);
  if (config.port === 0) {
    // With port 0 the public URL in links and payloads is only known now.
    // Envelopes' log URLs follow it (compose-services.ts reads it when binding).
    services.config = { ...config, port: http.port, publicUrl: http.url };
  }
  // The agent platform: its own port, on the same stores, logs and sequencer.
  // With GOV_PLATFORM_PORT=off its services are composed (nothing runs in them) but nothing listens.
  const platform = composePlatformServices({ ...core, config: services.config }, keyring, {
    bus: bus.ping,
    log_sequencer: sequencerWritingHere(sequencer),
    clearinghouse: clearinghouseListening(http.server),
  });
  const platformHttp =
    config.platformPort === null
      ? null
      : await listen(createPlatformRequestHandler(platform), {
          ...services.config,
          port: config.platformPort,
          publicUrl: config.platformPublicUrl,
        });
  if (platformHttp && config.platformPort === 0) {
    platform.config = {
      ...platform.config,
      platformPort: platformHttp.port,
      platformPublicUrl: platformHttp.url,
    };
    services.config = {
      ...services.config,
      platformPort: platformHttp.port,
      platformPublicUrl: platformHttp.url,
    };
  }

  // Deliveries get their own thread, except where a test moves an injected clock.
  const starting = startWebhookDelivery({
    services,
    bus: bus.bus,
    readStore: location,
    thread: options.clock === undefined,
  });
  resolveWebhookDelivery(starting);
  const webhookDelivery = await starting;
  deliveryQueueProgress = webhookDelivery.progress;

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      await Promise.all([http.close(), platformHttp?.close()]);
      platform.mailer.close();
      await platform.closeThreads();
      await deliveryQueueWaits.close();
      await stopServiceThreads();
      await webhookDelivery.stop();
      await forwarder?.stop();
      await bus.bus.close();
      await anchorer.stop();
      await sequencer.stop();
      await supervisor.stop();
      await eventStore.close();
      await readStore.close();
      keyring.release();
    })();
    return closing;
  };
  return {
    url: http.url,
    services,
    platformUrl: platformHttp?.url ?? '',
    platform,
    supervisor,
    sequencer,
    anchorer,
    webhookDelivery,
    close,
  };
}

async function startInline(stores: {
  eventStore: EventStore;
  readStore: ReadStore;
  metrics: Metrics;
  logger: Logger;
}): Promise<ProjectionSupervisor> {
  const supervisor = new ProjectionSupervisor({ projections, ...stores });
  await supervisor.start();
  return supervisor;
}
