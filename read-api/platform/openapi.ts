/**
 * The OpenAPI 3.1 document of the agent platform (`GET /openapi.json` on the platform's port). Its
 * `paths` come from the platform's route table; here is what a table cannot say: info, servers, tags
 * and the shared components. The platform's JSON Schemas land in `components.schemas` under their titles.
 */
import type { Request, Response } from 'express';
import { responseSchemas } from '../../event-schemas/governance';
import {
  platformCommandSchemas,
  platformRecordSchemas,
  platformResponseSchemas,
} from '../../event-schemas/platform';
import { SERVICE_VERSION } from '../../runtime/core/services';
import { schemaComponents } from '../../runtime/http/openapi-components';
import { type DocumentSettings, type Json, json } from '../../runtime/http/openapi-parts';
import { platformErrorResponse } from '../../runtime/http/platform-errors';
import { openApiPaths, PUBLIC, type Route, type RouteTable } from '../../runtime/http/route-table';

type Schema = { $id: string; title: string };
const COMPONENTS = schemaComponents([
  ...Object.values<Schema>(platformCommandSchemas),
  ...Object.values<Schema>(platformRecordSchemas),
  ...Object.values<Schema>(platformResponseSchemas),
  // The public log's signed tree head, which the platform's answers carry (a governed action, a proof).
  responseSchemas.sth,
]);

/** Tags of the platform's operations, in the document's order. */
const TAGS: readonly Json[] = [
  {
    name: 'platform',
    description: 'Health, version, capabilities, tiers, cost model and metrics. No credentials.',
  },
  { name: 'auth', description: 'Passwordless sign-in, sessions, the caller, WebSocket tickets.' },
  { name: 'agents', description: 'Agents and their lifecycle: config versions, start, stop, checkpoints.' },
  { name: 'governance', description: 'Governed actions, their decisions and proofs.' },
  { name: 'keys', description: 'Scoped `svc_` API keys of an agent, and the BYOK vault.' },
  { name: 'billing', description: 'Quota and billing.' },
];

export function buildPlatformOpenApiDocument(
  table: RouteTable<never>,
  options: { serverUrl: string; settings: DocumentSettings },
): object {
  const { settings } = options;
  return COMPONENTS.rewrite({
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Agent Platform API',
      version: SERVICE_VERSION,
      summary: 'Hosted agents whose every action passes five governance gates and leaves a signed leaf.',
      description: [
        "Agents, their lifecycle and the governed-action pipeline. Every agent action passes gates G1–G5 and becomes a leaf in the same public transparency log as the clearinghouse's evidence (served by the clearinghouse at `/gov/v1/log/*`); a leaf holds commitments, never what a user wrote.",
        '',
        'Every error answers `{error, detail}` (PlatformError). Shared behaviour not repeated per operation: a query parameter an operation does not list answers 400 invalid_request; an unknown path 404 not_found, a known path with another method 405 method_not_allowed with an Allow header; a JSON body that does not parse 400, one over the size limit 413 payload_too_large, another charset 415.',
      ].join('\n'),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: options.serverUrl }],
    tags: [...TAGS],
    paths: openApiPaths(table, settings),
    components: {
      schemas: COMPONENTS.schemas(),
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'gov_session',
          description:
            'The session cookie a sign-in link sets (POST /v1/auth/login). A state-changing request with it must carry an Origin (or Referer) of the platform, else 403 csrf_rejected.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A `svc_sk_…` API key of one agent, for the routes of that agent only.',
        },
      },
      responses: {
        PayloadTooLarge: platformErrorResponse(
          `payload_too_large: the body is over the configured limit (GOV_MAX_BODY_BYTES, ${settings.maxBodyBytes} bytes on this server).`,
          ['payload_too_large'],
        ),
        UnsupportedMediaType: platformErrorResponse(
          'unsupported_media_type: the JSON body declares a charset other than UTF-8.',
          ['unsupported_media_type'],
        ),
        InternalError: platformErrorResponse('internal_error: retry with exponential backoff.', [
          'internal_error',
        ]),
      },
    },
  }) as object;
}

/** `GET /openapi.json` of the platform: the document of `table` (which holds this route). */
export function platformOpenApiRoute(
  table: () => RouteTable<never>,
): Route<{ config: DocumentSettings & { platformPublicUrl: string } }> {
  return {
    method: 'get',
    path: '/openapi.json',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformOpenApi',
    summary: 'This document',
    responses: { '200': { description: 'The OpenAPI 3.1 document.', content: json({ type: 'object' }) } },
    handler: (services) => {
      let body: string | undefined;
      return (_req: Request, res: Response) => {
        // Read now, not at registration: the embedded server learns its URL once listening.
        body ??= JSON.stringify(
          buildPlatformOpenApiDocument(table(), {
            serverUrl: services.config.platformPublicUrl,
            settings: services.config,
          }),
        );
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.type('application/json').send(body);
      };
    },
  };
}
