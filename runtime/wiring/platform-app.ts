/** The agent platform's HTTP application: its route table, answering errors in its own shape. */
import type express from 'express';
import type { PlatformServices } from '../../command-api/platform/services';
import { tableApp } from '../http/app';
import { platformErrors } from '../http/platform-errors';
import { platformRoutes } from './platform-routes';

export function createPlatformApp(services: PlatformServices): express.Express {
  return tableApp(platformRoutes, services, 'all', {
    errors: platformErrors,
    requestDurations: services.metrics.platformHttpRequests,
  });
}
