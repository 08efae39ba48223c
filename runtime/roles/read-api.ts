import type { Logger } from 'pino';
import type { Config } from '../config';
import { createApp } from '../http/app';
import { listen } from '../http/listen';
import { startFollowerServices } from './follower-services';
import { httpBanner, type RunningRole, runRole } from './role-process';

/**
 * The read API process: every GET route — the public log (proofs and tiles from its follower's
 * in-memory tree), reports, chain, status, webhooks' delivery logs. Any number may run side by side.
 */
export async function startReadApi(config: Config, logger: Logger): Promise<RunningRole> {
  const follower = await startFollowerServices(config, logger);
  const http = await listen(createApp(follower.services, 'reads'), config);
  return {
    banner: httpBanner(config, http.url, http.port),
    async close() {
      await http.close();
      await follower.close();
    },
  };
}

if (require.main === module) runRole('read-api', startReadApi);
