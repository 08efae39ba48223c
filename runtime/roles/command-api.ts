import type { Logger } from 'pino';
import type { Config } from '../config';
import { createApp } from '../http/app';
import { listen } from '../http/listen';
import { startFollowerServices } from './follower-services';
import { httpBanner, type RunningRole, runRole } from './role-process';

/**
 * The command API process: validates commands, decides and appends events, and answers once their
 * effect is visible (the leaf signed, the read model updated). Any number may run side by side.
 */
export async function startCommandApi(config: Config, logger: Logger): Promise<RunningRole> {
  const follower = await startFollowerServices(config, logger);
  const http = await listen(createApp(follower.services, 'commands'), config);
  return {
    banner: httpBanner(config, http.url, http.port),
    async close() {
      await http.close();
      await follower.close();
    },
  };
}

if (require.main === module) runRole('command-api', startCommandApi);
