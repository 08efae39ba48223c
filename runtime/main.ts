import { httpBanner, runRole } from './roles/role-process';
import { startEmbedded } from './wiring/embedded';

/** `npm start`: the embedded all-in-one server (every role in one process). */
runRole('clearinghouse (embedded)', async (config, logger) => {
  const server = await startEmbedded(config, logger);
  const { port } = server.services.config;
  return {
    banner: [
      `API         ${server.url}`,
      `Platform    ${server.platformUrl || 'off (GOV_PLATFORM_PORT=off)'}`,
      ...httpBanner(config, server.url, port),
    ],
    close: server.close,
  };
});
