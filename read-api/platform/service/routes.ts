/**
 * The platform's public service endpoints (no credentials): health, version, the capability map, the
 * named services and the platform's own metrics.
 */
import type { Request, Response } from 'express';
import type { PlatformServices } from '../../../command-api/platform/services';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';
import { PLATFORM_METRIC_PREFIX } from '../../../runtime/support/metrics';
import { architecture, serviceMap } from './architecture';
import { PLATFORM_SERVICE_NAME, platformEngine } from './engine';
import { checkPlatformHealth, UPSTREAM_TIMEOUT_MS } from './health';

/** The series of GET /v1/metrics: the platform's own, and the process's (CPU, memory, event loop). */
const PLATFORM_SERIES = [PLATFORM_METRIC_PREFIX, 'gov_process_', 'gov_nodejs_'];

/** The platform's public service routes. */
export const platformServiceRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'get',
    path: '/health',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformHealth',
    summary: 'Liveness, version, runtime and the health of every upstream',
    description: `Asks each upstream for something, all at once, each within ${UPSTREAM_TIMEOUT_MS / 1000} s: the event store, the read store, the bus (where this process has one), the shared log's sequencer and the clearinghouse.`,
    responses: {
      '200': {
        description: 'status ok: every upstream answered healthy.',
        content: json(schema('urn:gov:response:platform-health')),
      },
      '503': {
        description:
          'status degraded: an upstream is unhealthy or did not answer in time; `upstream` marks it and `detail` names it.',
        content: json(schema('urn:gov:response:platform-health')),
      },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      const health = await checkPlatformHealth(services);
      res.status(health.status === 'ok' ? 200 : 503).json(health);
    },
  },
  {
    method: 'get',
    path: '/v1/version',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformVersion',
    summary: 'Build and SDK versions',
    responses: {
      '200': {
        description: 'The service, its version, the runtime and the engine with its SDK versions.',
        content: json(schema('urn:gov:response:platform-version')),
      },
    },
    handler: () => (_req: Request, res: Response) => {
      const engine = platformEngine();
      res.json({
        service: PLATFORM_SERVICE_NAME,
        version: engine.version,
        runtime: `node ${process.version}`,
        engine,
      });
    },
  },
  {
    method: 'get',
    path: '/v1/architecture',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformArchitecture',
    summary: 'Capability map: the services, the event-sourced core, the log, what each process runs',
    responses: {
      '200': {
        description: 'The capability map, with the adapters of the process that answered.',
        content: json(schema('urn:gov:response:platform-architecture')),
      },
    },
    handler: (services) => (_req: Request, res: Response) => {
      res.json(architecture(services.config, services.bindings, services.role));
    },
  },
  {
    method: 'get',
    path: '/v1/services',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformServices',
    summary: 'Map of named services and their URLs',
    responses: {
      '200': {
        description: 'The platform, the clearinghouse and the public log, each with its public URL.',
        content: json(schema('urn:gov:response:platform-services')),
      },
    },
    handler: (services) => (_req: Request, res: Response) => {
      res.json(serviceMap(services.config));
    },
  },
  {
    method: 'get',
    path: '/v1/metrics',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformMetrics',
    summary: "The platform's metrics in the Prometheus text format",
    description: `The platform's own series (\`${PLATFORM_METRIC_PREFIX}*\`: request durations by route and status, governed actions by verdict) and the process's (\`gov_process_*\`, \`gov_nodejs_*\`; in the embedded server, of the one process both services share). The clearinghouse's series are at its own /v1/metrics.`,
    responses: {
      '200': {
        description: 'The Prometheus text exposition format (version 0.0.4).',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      const { registry } = services.metrics;
      const names = registry
        .getMetricsAsArray()
        .map((metric) => metric.name)
        .filter((name) => PLATFORM_SERIES.some((prefix) => name.startsWith(prefix)));
      const texts = await Promise.all(names.map((name) => registry.getSingleMetricAsString(name)));
      res.setHeader('Content-Type', registry.contentType);
      res.send(`${texts.join('\n')}\n`);
    },
  },
];
