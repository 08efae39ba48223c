/**
 * The platform's `GET /health`: the spec's shape (status, service, version, runtime, engine, bindings,
 * upstream), each upstream asked for something real within a bound: the stores (the same checks as the
 * clearinghouse's /health), the bus where this process has one, the shared log's sequencer and the
 * clearinghouse, as the deployment reaches them (runtime/wiring/platform-upstream.ts).
 */
import type { PlatformServices } from '../../../command-api/platform/services';
import {
  probeAll,
  storeChecks,
  type UpstreamCheck,
  type UpstreamStatus,
} from '../../../runtime/core/health-checks';
import type { ProcessRole } from '../../../runtime/core/services';
import { PLATFORM_SERVICE_NAME, platformEngine } from './engine';

/** The longest /health waits for any one upstream; a load balancer's health check waits longer. */
export const UPSTREAM_TIMEOUT_MS = 2000;

/**
 * The ports a platform process may bind, each reported by /health as bound or not (a feature that
 * binds one adds its adapter to the services' `bindings`: runtime/wiring/compose-platform.ts).
 */
const PLATFORM_PORTS = ['event_store', 'read_store', 'bus', 'smtp', 'vault', 'model_providers'] as const;

export interface PlatformHealth {
  status: 'ok' | 'degraded';
  service: typeof PLATFORM_SERVICE_NAME;
  version: string;
  runtime: string;
  engine: ReturnType<typeof platformEngine>;
  bindings: Record<string, boolean>;
  upstream: Record<string, UpstreamStatus>;
  adapters: Record<string, string>;
  role: ProcessRole;
  /** When degraded: which upstreams failed, and how. */
  detail?: string;
}

export async function checkPlatformHealth(
  services: Pick<PlatformServices, 'eventStore' | 'readStore' | 'bindings' | 'role' | 'upstream'>,
): Promise<PlatformHealth> {
  const checks: Record<string, UpstreamCheck> = { ...storeChecks(services) };
  for (const [name, check] of Object.entries(services.upstream)) if (check) checks[name] = check;
  const upstream = await probeAll(checks, UPSTREAM_TIMEOUT_MS);
  const failing = Object.entries(upstream).filter(([, status]) => status !== 'healthy');
  const bindings: Record<string, boolean> = {};
  for (const port of PLATFORM_PORTS) bindings[port] = port in services.bindings;
  for (const port of Object.keys(services.bindings)) bindings[port] = true;
  const engine = platformEngine();
  return {
    status: failing.length === 0 ? 'ok' : 'degraded',
    service: PLATFORM_SERVICE_NAME,
    version: engine.version,
    runtime: `node ${process.version}`,
    engine,
    bindings,
    upstream,
    adapters: services.bindings,
    role: services.role,
    ...(failing.length > 0
      ? {
          detail: `${failing
            .map(([name, status]) =>
              status === 'timeout'
                ? `${name} did not answer within ${UPSTREAM_TIMEOUT_MS} ms`
                : `${name} is unhealthy`,
            )
            .join('; ')}; see the server log of this process and of the named upstream`,
        }
      : {}),
  };
}
