/** The agent platform's HTTP application: its route table, answering errors in its own shape. */
import type http from 'node:http';
import type express from 'express';
import { actionFastPath } from '../../command-api/platform/actions/action-fast-path';
import type { PlatformServices } from '../../command-api/platform/services';
import { tableApp } from '../http/app';
import { platformErrors } from '../http/platform-errors';
import { platformRoutes } from './platform-routes';

/** What the platform's HTTP server runs: the fast path of its hottest write, then the application. */
export function createPlatformRequestHandler(services: PlatformServices): http.RequestListener {
  const app = createPlatformApp(services);
  const fast = actionFastPath(services, app);
  return (req, res) => {
    if (!fast(req, res)) app(req, res);
  };
}

export function createPlatformApp(services: PlatformServices): express.Express {
  return tableApp(platformRoutes, services, 'all', {
    errors: platformErrors,
    requestDurations: services.metrics.platformHttpRequests,
  });
}
