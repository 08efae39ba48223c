import type { Logger } from 'pino';
import type { Config } from '../config/config';
import { listen } from '../http/listen';
import { createRequestHandler, type ServedSide } from '../wiring/http-app';
import { startFollowerServices } from './follower-services';
import { httpBanner, type RunningRole } from './role-process';

/**
 * An API process: the command API validates commands, decides and appends events, and answers once
 * their effect is visible (the leaf signed, the read model updated); the read API serves every GET
 * route, the public log's proofs and tiles from its follower's in-memory tree. Any number of each may
 * run side by side.
 */
export async function startApiRole(
  side: Exclude<ServedSide, 'all'>,
  config: Config,
  logger: Logger,
): Promise<RunningRole> {
  const follower = await startFollowerServices(
    side === 'commands' ? 'command-api' : 'read-api',
    config,
    logger,
  );
  const http = await listen(createRequestHandler(follower.services, side), config);
  return {
    banner: httpBanner(config, http.url, http.port),
    async close() {
      await http.close();
      await follower.close();
    },
  };
}
