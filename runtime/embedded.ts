import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import { ValidatingEventStore } from '../event-schemas';
import { projections } from '../projectors';
import { ProjectionCatalog } from '../projectors/catalog';
import { ProjectionSupervisor } from '../projectors/supervisor';
import type { Config } from './config';
import { createApp } from './http/app';
import { createLogger } from './logger';
import { createMetrics } from './metrics';
import type { Services } from './services';

export interface RunningServer {
  url: string;
  services: Services;
  supervisor: ProjectionSupervisor;
  /** Graceful stop: stop accepting, drain in-flight requests, store checkpoints, close the stores. */
  close(): Promise<void>;
}

/** The embedded all-in-one server: SQLite stores, in-process projectors, one HTTP port. */
export async function startEmbedded(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
): Promise<RunningServer> {
  const metrics = createMetrics();
  const eventStore = new ValidatingEventStore(
    new SqliteEventStore({ file: config.eventStoreFile, maxEventBytes: config.maxEventBytes }),
  );
  const readStore = new SqliteReadStore(config.readStoreFile);
  const supervisor = new ProjectionSupervisor({ projections, eventStore, readStore, metrics, logger });
  await supervisor.start();
  const services: Services = {
    config,
    logger,
    metrics,
    eventStore,
    readStore,
    catalog: new ProjectionCatalog(readStore),
    awaitProjections: (position) => supervisor.waitForPosition(position),
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
  if (config.port === 0) services.config = { ...config, port, publicUrl: url };

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      await drained;
      clearTimeout(grace);
      await supervisor.stop();
      await eventStore.close();
      await readStore.close();
    })();
    return closing;
  };
  return { url, services, supervisor, close };
}
