import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { EventStoreBus } from '../adapters/embedded/event-store-bus';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import { AggregateWriter } from '../command-api/aggregate-writer';
import { tenantAggregate } from '../command-api/tenant-state';
import { authorityNodeIdOf } from '../domain/envelope';
import { createLocalValidators } from '../domain/validators';
import { ValidatingEventStore } from '../event-schemas';
import { projections } from '../projectors';
import { ProjectionCatalog } from '../projectors/catalog';
import { TargetGuard } from '../projectors/dispatcher/target-guard';
import { LogSequencer } from '../projectors/log-sequencer';
import { ProjectionSupervisor } from '../projectors/supervisor';
import { ReadModels } from '../read-api/read-models';
import type { Config } from './config';
import { DISPATCHER_COLLECTIONS, type RunningDispatcher, startDispatcher } from './dispatcher';
import { createApp } from './http/app';
import { RequestRateLimiter } from './http/rate-limit';
import { openServerKeyring } from './keyring';
import { createLogger } from './logger';
import { createMetrics } from './metrics';
import { SequencedLog } from './sequenced-log';
import type { Services } from './services';

export interface EmbeddedOptions {
  /** The clock of every decision, expiry and tree head (tests move it). */
  clock?: () => Date;
}

export interface RunningServer {
  url: string;
  services: Services;
  supervisor: ProjectionSupervisor;
  sequencer: LogSequencer;
  dispatcher: RunningDispatcher;
  /** Graceful stop: stop accepting, drain in-flight requests, store checkpoints, close the stores. */
  close(): Promise<void>;
}

/** The embedded all-in-one server: SQLite stores, in-process projectors, one HTTP port. */
export async function startEmbedded(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  options: EmbeddedOptions = {},
): Promise<RunningServer> {
  const clock = options.clock ?? (() => new Date());
  const metrics = createMetrics();
  const keyring = await openServerKeyring(config.dataDir, config.logOrigin);
  const eventStore = new ValidatingEventStore(
    new SqliteEventStore({ file: config.eventStoreFile, maxEventBytes: config.maxEventBytes }),
  );
  const readStore = new SqliteReadStore(config.readStoreFile);
  const supervisor = new ProjectionSupervisor({ projections, eventStore, readStore, metrics, logger });
  await supervisor.start();
  // Serve nothing older than the store: read models first catch up with events written while stopped.
  await supervisor.catchUp();
  const sequencer = new LogSequencer({
    eventStore,
    signer: keyring.logSigner,
    retiredVerifierKeys: keyring.retiredLogVerifierKeys,
    logger,
    metrics,
    clock,
  });
  await sequencer.start();
  const catalog = new ProjectionCatalog(readStore, 1000);
  const readModels = new ReadModels({ readStore, catalog });
  const log = new SequencedLog(sequencer, readModels);
  await log.start();
  // Requests may arrive between listen and the dispatcher's start; webhook commands wait for it.
  let resolveDispatcher!: (started: Promise<RunningDispatcher>) => void;
  const dispatcherStarted = new Promise<RunningDispatcher>((resolve) => {
    resolveDispatcher = (started) => void started.then(resolve, () => undefined);
  });
  const services: Services = {
    config,
    logger,
    metrics,
    eventStore,
    readStore,
    catalog,
    readModels,
    clock,
    awaitProjections: (position, eventTypes) => supervisor.waitForPosition(position, eventTypes),
    tenants: new AggregateWriter(eventStore, tenantAggregate),
    log,
    publishedKeys: keyring.published,
    awaitLeaf: (eventId) => sequencer.waitForEvent(eventId),
    admission: {
      validators: createLocalValidators(keyring.validators),
      validatorKeys: keyring.validators,
      authority: { ...keyring.authority, nodeId: authorityNodeIdOf(keyring.authority.publicKey) },
      logBinding: { log_id: keyring.logSigner.verifierKey, log_url: `${config.publicUrl}/gov/v1/log` },
    },
    requestLimiter: new RequestRateLimiter(clock),
    webhooks: {
      guard: new TargetGuard({ allow: config.webhookAllow }),
      secretKey: keyring.webhookSecretKey,
      collections: DISPATCHER_COLLECTIONS,
      awaitDispatcher: (position) =>
        dispatcherStarted.then((started) => started.consumer.waitForPosition(position)),
    },
    bindings: { event_store: 'sqlite', read_store: 'sqlite', bus: 'in-process' },
  };
  const server = http.createServer(createApp(services));
  // Slow clients must not hold connections forever.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = config.port === 0 ? `http://127.0.0.1:${port}` : config.publicUrl;
  if (config.port === 0) {
    services.config = { ...config, port, publicUrl: url };
    services.admission.logBinding = { ...services.admission.logBinding, log_url: `${url}/gov/v1/log` };
  }

  // After listening: with port 0 the public URL in payload links is only known now.
  const bus = new EventStoreBus({ eventStore, readStore });
  // Deliveries get their own thread, except where a test moves an injected clock.
  const starting = startDispatcher({ services, bus, supervisor, thread: options.clock === undefined });
  resolveDispatcher(starting);
  const dispatcher = await starting;

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      await drained;
      clearTimeout(grace);
      await dispatcher.stop();
      await bus.close();
      await sequencer.stop();
      await supervisor.stop();
      await eventStore.close();
      await readStore.close();
      keyring.release();
    })();
    return closing;
  };
  return { url, services, supervisor, sequencer, dispatcher, close };
}
