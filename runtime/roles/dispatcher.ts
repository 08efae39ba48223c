import type { Logger } from 'pino';
import type { Config } from '../config/config';
import { listen } from '../http/listen';
import { readStoreLocation } from '../stores/stores';
import { createOpsApp } from '../wiring/http-app';
import { startWebhookDelivery } from '../wiring/webhook-delivery';
import { startFollowerServices } from './follower-services';
import { httpBanner, type RunningRole, runRole } from './role-process';

/**
 * The dispatcher process: consumes committed events from the bus (Kafka in the topology), queues the
 * deliveries they owe in the read store, and sends them from its delivery thread. Run one.
 */
export async function startDispatcherRole(config: Config, logger: Logger): Promise<RunningRole> {
  const follower = await startFollowerServices('dispatcher', config, logger);
  const { services } = follower;
  services.bindings.bus = config.kafka ? 'kafka' : 'in-process';
  // The delivery thread opens the bus it consumes (and checks its order); this thread needs none.
  const dispatcher = await startWebhookDelivery({
    services,
    readStore: readStoreLocation(config),
    recordProgress: true,
    thread: true,
  });
  const http = await listen(createOpsApp(services), config);
  return {
    banner: httpBanner(config, http.url, http.port),
    async close() {
      await http.close();
      await dispatcher.stop();
      await follower.close();
    },
  };
}

if (require.main === module) runRole('dispatcher', startDispatcherRole);
