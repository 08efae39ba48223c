import type { Logger } from 'pino';
import { type Config, ConfigError, loadConfig } from '../config/config';
import { createLogger } from '../support/logger';

/** A started process of the service: where it listens, and how it stops gracefully. */
export interface RunningRole {
  /** Lines printed once started (what is served where). */
  banner: string[];
  close(): Promise<void>;
}

/**
 * The entry point of every process (`npm start` and each topology role): reads the configuration
 * from the environment (exit 2 naming every bad variable), starts the role, prints where it listens,
 * and on SIGTERM or SIGINT stops it gracefully (exit 0) — or exits 1 if it cannot start or stop.
 */
export function runRole(name: string, start: (config: Config, logger: Logger) => Promise<RunningRole>): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel).child({ role: name });
  // Which library signs is invisible in the signatures themselves (the same bytes): say it once here.
  logger.info({ ed25519: config.ed25519 }, `Ed25519 signatures by ${config.ed25519}`);
  start(config, logger).then(
    (running) => {
      process.stderr.write(
        ['', `  gov ${name}`, ...running.banner.map((line) => `  ${line}`), '', ''].join('\n'),
      );
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down: draining requests and storing checkpoints');
        running.close().then(
          () => {
            logger.info('stopped');
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    },
    (error: unknown) => {
      logger.fatal({ err: error }, `the ${name} could not start`);
      process.exit(1);
    },
  );
}

/** The banner lines every process prints for its HTTP port (`url`: the public URL used in links). */
export function httpBanner(config: Config, url: string, port: number): string[] {
  const local = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  return [
    `listening on ${config.host}:${port} (public URL ${url})`,
    `health      ${local}/health`,
    `metrics     ${local}/v1/metrics`,
    `data        ${config.dataDir}`,
  ];
}
