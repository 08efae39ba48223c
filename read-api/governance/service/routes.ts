import type { Request, Response } from 'express';
import { type CoreServices, SERVICE_NAME, SERVICE_VERSION } from '../../../runtime/core/services';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';
import { checkHealth } from './health';

/** What the operations routes read: every process has it, those that serve no API too. */
type OperationsServices = Pick<
  CoreServices,
  'metrics' | 'eventStore' | 'readStore' | 'bindings' | 'role' | 'leaseStates'
>;

/** Health, metrics and version: served by every process of every topology. */
export const operationsRoutes: readonly Route<OperationsServices>[] = [
  {
    method: 'get',
    path: '/health',
    access: PUBLIC,
    side: 'both',
    tags: ['operations'],
    operationId: 'getHealth',
    summary: 'Service health; every store is asked for something',
    responses: {
      '200': { description: 'status ok.', content: json(schema('urn:gov:response:health')) },
      '503': {
        description: 'status degraded: a store did not answer.',
        content: json(schema('urn:gov:response:health')),
      },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      const health = await checkHealth(services);
      res.status(health.status === 'ok' ? 200 : 503).json(health);
    },
  },
  {
    method: 'get',
    path: '/v1/metrics',
    access: PUBLIC,
    side: 'both',
    tags: ['operations'],
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    responses: {
      '200': {
        description: 'The Prometheus text exposition format (version 0.0.4).',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      res.setHeader('Content-Type', services.metrics.registry.contentType);
      res.send(await services.metrics.registry.metrics());
    },
  },
  {
    method: 'get',
    path: '/v1/version',
    access: PUBLIC,
    side: 'both',
    tags: ['operations'],
    operationId: 'getVersion',
    summary: 'Service name, version and runtime',
    responses: {
      '200': { description: 'The version.', content: json(schema('urn:gov:response:version')) },
    },
    handler: () => (_req: Request, res: Response) => {
      res.json({ service: SERVICE_NAME, version: SERVICE_VERSION, runtime: `node ${process.version}` });
    },
  },
];
