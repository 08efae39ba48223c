/** The HTTP applications of the processes: the governance API with its fast paths, and the ops app. */
import type http from 'node:http';
import type express from 'express';
import { evidenceFastPath } from '../../command-api/governance/evidence/evidence-fast-path';
import type { GovernanceServices } from '../../command-api/governance/services';
import { proofFastPath } from '../../read-api/governance/log/proof-fast-path';
import { operationsRoutes } from '../../read-api/governance/service/routes';
import type { CoreServices } from '../core/services';
import { type ServedSide, tableApp } from '../http/app';
import { governanceRoutes } from './governance-routes';

export type { ServedSide } from '../http/app';

/**
 * What a process's HTTP server runs: the fast paths of the hottest write (commands side) and of the
 * public log's hottest read (reads side), then the Express application.
 */
export function createRequestHandler(
  services: GovernanceServices,
  side: ServedSide = 'all',
): http.RequestListener {
  const app = createApp(services, side);
  const fastPaths: ((req: http.IncomingMessage, res: http.ServerResponse) => boolean)[] = [];
  if (side !== 'reads') fastPaths.push(evidenceFastPath(services, app));
  if (side !== 'commands')
    fastPaths.push(proofFastPath({ log: services.log, metrics: services.metrics, logger: services.logger }));
  return (req, res) => {
    for (const fast of fastPaths) if (fast(req, res)) return;
    app(req, res);
  };
}

/** The HTTP application: the governance routes behind shared middleware. */
export function createApp(services: GovernanceServices, side: ServedSide = 'all'): express.Express {
  return tableApp(governanceRoutes, services, side);
}

type OpsServices = Pick<
  CoreServices,
  'logger' | 'metrics' | 'eventStore' | 'readStore' | 'bindings' | 'config' | 'role' | 'leaseStates'
>;

/** A process that serves no API (projectors, dispatcher): /health, /v1/metrics and /v1/version only. */
export function createOpsApp(services: OpsServices): express.Express {
  return tableApp([{ mount: '/', routes: operationsRoutes }], services, 'ops');
}
