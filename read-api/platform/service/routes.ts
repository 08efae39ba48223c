/**
 * The platform's public service endpoints (no credentials): health, version, the capability map, the
 * named services, the feature catalog, tiers, channels, the cost model and estimates, and the
 * platform's own metrics.
 */
import type { Request, Response } from 'express';
import type { PlatformServices } from '../../../command-api/platform/services';
import { capabilityCatalog, TIERS } from '../../../domain/platform/capabilities';
import { costModel, estimateCost } from '../../../domain/platform/cost-model';
import type { CostEstimateBody } from '../../../event-schemas';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { platformErrorResponse } from '../../../runtime/http/platform-errors';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';
import { PLATFORM_METRIC_PREFIX } from '../../../runtime/support/metrics';
import { architecture, serviceMap } from './architecture';
import { channels, tiers } from './catalog';
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
    path: '/v1/capabilities',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformCapabilities',
    summary: 'Feature catalog with status, tiers and per-tier limits',
    description:
      "Every feature of the platform, generated from the table the feature gate reads: a route of a feature the caller's tier lacks answers 403 feature_requires_upgrade with `required_tier`. `available: false` marks a feature listed for planning that this release does not serve yet.",
    responses: {
      '200': {
        description: 'The tiers, lowest first, and every feature.',
        content: json(schema('urn:gov:response:platform-capabilities')),
      },
    },
    handler: () => {
      // The catalog is constant: built once.
      const body = JSON.stringify({ tiers: TIERS, features: capabilityCatalog() });
      return (_req: Request, res: Response) => {
        res.type('application/json').send(body);
      };
    },
  },
  {
    method: 'get',
    path: '/v1/tiers',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformTiers',
    summary: 'Pricing tiers and their limits',
    responses: {
      '200': {
        description:
          "Each tier, lowest first: its price, the platform's limits, the clearinghouse's limits, its features and those it adds.",
        content: json(schema('urn:gov:response:platform-tiers')),
      },
    },
    handler: () => {
      const body = JSON.stringify(tiers());
      return (_req: Request, res: Response) => {
        res.type('application/json').send(body);
      };
    },
  },
  {
    method: 'get',
    path: '/v1/channels',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformChannels',
    summary: 'Supported input channels (chat, REST, email, messaging app)',
    description:
      'Every channel feeds the one governed-action pipeline. Each names the feature of GET /v1/capabilities that gates it, with its status and tiers.',
    responses: {
      '200': {
        description: 'The channels.',
        content: json(schema('urn:gov:response:platform-channels')),
      },
    },
    handler: () => {
      const body = JSON.stringify(channels());
      return (_req: Request, res: Response) => {
        res.type('application/json').send(body);
      };
    },
  },
  {
    method: 'get',
    path: '/v1/cost-model',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformCostModel',
    summary: 'Risk-tier pricing model',
    description:
      "credits per action = the risk tier's credits × (1 + each started 16 KiB block of content beyond the first); credits = credits per action × quantity; price = credits × the tier's USD per 1,000 credits ÷ 1,000. A tool class decides the risk tier of the actions that run tools; the action type decides otherwise.",
    responses: {
      '200': {
        description: 'The model POST /v1/cost-estimate applies.',
        content: json(schema('urn:gov:response:platform-cost-model')),
      },
    },
    handler: () => {
      const body = JSON.stringify(costModel());
      return (_req: Request, res: Response) => {
        res.type('application/json').send(body);
      };
    },
  },
  {
    method: 'post',
    path: '/v1/cost-estimate',
    access: PUBLIC,
    body: { command: 'cost-estimate', description: 'The proposed action, and how many alike.' },
    tags: ['platform'],
    operationId: 'estimatePlatformCost',
    summary: 'Estimate the cost of a proposed action',
    description:
      'Prices the action by the model of GET /v1/cost-model and shows the arithmetic in `formula`. Nothing is recorded: an estimate is not an action.',
    responses: {
      '200': {
        description: 'The estimate.',
        content: json(schema('urn:gov:response:platform-cost-estimate')),
      },
      '400': platformErrorResponse(
        'invalid_request: the body is not JSON or does not match the schema (`detail` names the member and why).',
        ['invalid_request'],
      ),
    },
    handler: () => (req: Request, res: Response) => {
      res.json(estimateCost(req.body as CostEstimateBody));
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
