import type { Logger } from 'pino';
import type { PlatformServices } from '../../command-api/platform/services';
import { UPSTREAM_TIMEOUT_MS } from '../../read-api/platform/service/health';
import type { Config } from '../config/config';
import { listen } from '../http/listen';
import { composePlatformServices } from '../wiring/compose-platform';
import { createPlatformRequestHandler } from '../wiring/platform-app';
import { clearinghouseAt, sequencerLeaseHeld } from '../wiring/platform-upstream';
import { startFollowerServices } from './follower-services';
import { httpBanner, type RunningRole, runRole } from './role-process';

/**
 * The agent platform's process in the production topology: the platform's routes alone on
 * GOV_PLATFORM_PORT, on the configured stores. Like a command API it appends and awaits the leaves
 * the projectors role sequences (it follows the log from the event store); like a read API its reads
 * wait for the read models to apply what was acknowledged. Any number may run side by side.
 */
export async function startPlatformRole(
  config: Config,
  logger: Logger,
): Promise<RunningRole & { url: string; services: PlatformServices }> {
  if (config.platformPort === null)
    throw new Error(
      'GOV_PLATFORM_PORT is off: the platform process has nothing else to serve; give it a port',
    );
  const { platformPort } = config;
  // Evidence is admitted by the command API: no validator thread here.
  const follower = await startFollowerServices('platform', { ...config, validatorThread: false }, logger);
  const platform = composePlatformServices(follower.core, follower.keyring, {
    log_sequencer: sequencerLeaseHeld(follower.read.leases),
    clearinghouse: clearinghouseAt(config.clearinghouseUrl, UPSTREAM_TIMEOUT_MS),
  });
  const http = await listen(createPlatformRequestHandler(platform), {
    ...config,
    port: platformPort,
    publicUrl: config.platformPublicUrl,
  });
  if (platformPort === 0)
    platform.config = { ...platform.config, platformPort: http.port, platformPublicUrl: http.url };
  return {
    url: http.url,
    services: platform,
    banner: httpBanner(config, http.url, http.port),
    async close() {
      await http.close();
      await platform.closeThreads();
      await follower.close();
    },
  };
}

if (require.main === module) runRole('platform', startPlatformRole);
