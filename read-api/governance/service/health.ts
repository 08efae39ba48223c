import { probeAll, storeChecks } from '../../../runtime/core/health-checks';
import {
  type CoreServices,
  type LeaseState,
  type ProcessRole,
  SERVICE_NAME,
  SERVICE_VERSION,
} from '../../../runtime/core/services';

/** Without a bound, a store answers or fails: never `timeout`. */
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
  /** Which process answers: `all` (the embedded server) or a role of the production topology. */
  role: ProcessRole;
  /** The single-writer leases the process contends for, by lease name (only `projectors` has any). */
  leases: Record<string, LeaseState>;
}

/** GET /health: the shape of the platform spec, with each store actually asked for something. */
export async function checkHealth(
  services: Pick<CoreServices, 'eventStore' | 'readStore' | 'bindings' | 'role' | 'leaseStates'>,
): Promise<HealthReport> {
  const upstream = (await probeAll(storeChecks(services))) as Record<string, UpstreamStatus>;
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
    role: services.role,
    leases: services.leaseStates(),
  };
}
