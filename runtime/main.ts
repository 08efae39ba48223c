import { ConfigError, loadConfig } from './config';
import { startEmbedded } from './embedded';
import { createLogger } from './logger';

/** `npm start`: the embedded all-in-one server. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const server = await startEmbedded(config, logger);
  const base = server.url;
  process.stderr.write(
    [
      '',
      `  gov clearinghouse (embedded) is listening on ${config.host}:${server.services.config.port}`,
      `  API         ${base}`,
      `  health      ${base}/health`,
      `  metrics     ${base}/v1/metrics`,
      `  data        ${config.dataDir}`,
      '',
      '',
    ].join('\n'),
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining requests and storing checkpoints');
    server
      .close()
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
