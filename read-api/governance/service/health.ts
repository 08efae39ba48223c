import { type CoreServices, SERVICE_NAME, SERVICE_VERSION } from '../../../runtime/core/services';

type UpstreamStatus = 'healthy' | 'unhealthy';

export interface HealthReport {
  status: 'ok' | 'degraded';
  service: string;
  version: string;
  runtime: string;
  engine: { package: string; version: string; mcp_sdk: string | null };
  /** Which adapter serves each port. */
  bindings: Record<string, boolean>;
  upstream: Record<string, UpstreamStatus>;
  adapters: Record<string, string>;
}

/** GET /health: the shape of the platform spec, with each store actually asked for something. */
export async function checkHealth(
  services: Pick<CoreServices, 'eventStore' | 'readStore' | 'bindings'>,
): Promise<HealthReport> {
  const upstream: Record<string, UpstreamStatus> = {
    event_store: await probe(() => services.eventStore.headPosition()),
    read_store: await probe(() => services.readStore.getCheckpoint('_health')),
  };
  const healthy = Object.values(upstream).every((s) => s === 'healthy');
  return {
    status: healthy ? 'ok' : 'degraded',
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    runtime: `node ${process.version}`,
    engine: { package: SERVICE_NAME, version: SERVICE_VERSION, mcp_sdk: null },
    bindings: Object.fromEntries(Object.keys(services.bindings).map((port) => [port, true])),
    upstream,
    adapters: services.bindings,
  };
}

async function probe(check: () => Promise<unknown>): Promise<UpstreamStatus> {
  try {
    await check();
    return 'healthy';
  } catch {
    return 'unhealthy';
  }
}
