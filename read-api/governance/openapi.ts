/**
 * The OpenAPI 3.1 document of the governance API (`GET /openapi.json`). Its `paths` come from the
 * route table (runtime/http/route-table.ts), which says each route's parameters, body, answers and
 * schema ids; here is what a table cannot say: info, servers, tags, the shared components and the
 * `webhooks` section. The JSON Schemas the service validates with (command bodies, records, response
 * bodies, webhook bodies) land in `components.schemas` under their titles, with every `urn:gov:…`
 * reference, the route table's included, rewritten to `#/components/schemas/<Title>`.
 */
import type { Request, Response } from 'express';
import { GRACE_HOURS } from '../../command-api/governance/tenants/access';
import { WWW_AUTHENTICATE } from '../../command-api/governance/tenants/auth';
import {
  ANSWER_READ_LIMIT,
  PAYLOAD_LIMIT,
  webhookDelivery,
} from '../../command-api/governance/webhooks/delivery-description';
import { deliveryIdSchema, WEBHOOK_ID } from '../../command-api/governance/webhooks/tenant-webhook';
import { TIER_LIMITS } from '../../domain/governance/tier-limits';
import { commandSchemas, responseSchemas, webhookSchemas } from '../../event-schemas/governance';
import { MAX_BODY_DEPTH } from '../../event-schemas/json-shape';
import { recordSchemas as everyRecordSchema } from '../../event-schemas/schemas';
import {
  DELIVERY_ATTEMPT_HEADER,
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  WEBHOOK_ID_HEADER,
} from '../../projectors/webhooks/http-deliverer';
import { MAX_ATTEMPTS, RETRY_AFTER_CAP_MS } from '../../projectors/webhooks/retry-policy';
import { SIGNATURE_HEADER } from '../../projectors/webhooks/signature';
import { WEBHOOK_EVENT_ID } from '../../projectors/webhooks/webhook-events';
import { type CoreServices, SERVICE_VERSION } from '../../runtime/core/services';
import { MAX_HEADER_BYTES } from '../../runtime/http/client-errors';
import { CLIENT_CORRELATION_ID } from '../../runtime/http/correlation';
import { schemaComponents } from '../../runtime/http/openapi-components';
import {
  type DocumentSettings,
  duration,
  errorSchema,
  headerRef,
  type Json,
  json,
  parameterRef,
} from '../../runtime/http/openapi-parts';
import { openApiPaths, PUBLIC, type Route, type RouteTable } from '../../runtime/http/route-table';

export interface OpenApiOptions {
  /** Base URL of the service (`servers[0].url`). */
  serverUrl: string;
  /** The service version (`info.version`). */
  version: string;
  /** What the document says that this server's configuration decides (timeouts, limits). */
  settings: DocumentSettings;
}

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const TRIAL = TIER_LIMITS.L1.trial!;

/** Every schema placed in `components.schemas`, by its `$id`. */
const SCHEMAS: readonly { $id: string; title: string }[] = [
  ...Object.values(commandSchemas),
  // Both services' records: the public log serves the agent platform's leaves too (`GET /gov/v1/log/leaf`).
  ...Object.values(everyRecordSchema),
  ...Object.values(responseSchemas),
  ...Object.values(webhookSchemas),
];

const COMPONENTS = schemaComponents(SCHEMAS);

/** A schema as an OpenAPI component (see runtime/http/openapi-components.ts). */
export const toComponentSchema = COMPONENTS.toComponent;

/** `leaf_admitted` → `leafAdmitted`. */
const camelCase = (name: string): string =>
  name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The top-level `webhooks` section: one POST per webhook event, as the service sends it to a tenant's
 * registered URL. The body is the event's schema (full payload or trimmed summary).
 */
function webhooks(settings: DocumentSettings): Json {
  const out: Json = {};
  for (const [name, schema] of Object.entries(webhookSchemas)) {
    out[name] = {
      post: {
        tags: ['webhooks'],
        operationId: `${camelCase(name)}Webhook`,
        summary: `The ${name} event, POSTed to each of the tenant's webhooks registered for it`,
        description: `${schema.description}\n\n${webhookDelivery(settings)}`,
        parameters: [
          parameterRef('WebhookSignature'),
          parameterRef('WebhookEventId'),
          {
            name: EVENT_TYPE_HEADER,
            in: 'header',
            required: true,
            description: `The event name: always \`${name}\`.`,
            schema: { type: 'string', const: name },
          },
          parameterRef('WebhookId'),
          parameterRef('WebhookDeliveryId'),
          parameterRef('WebhookDeliveryAttempt'),
        ],
        requestBody: {
          required: true,
          description: `The \`${name}\` body: the full payload or, over ${PAYLOAD_LIMIT}, its trimmed summary (\`trimmed: true\`).`,
          content: json({ $ref: schema.$id }),
        },
        responses: {
          '200': {
            description: `Success: the delivery is marked delivered and not attempted again. The answer body is read (up to ${ANSWER_READ_LIMIT}) and ignored.`,
          },
          '429': {
            description: `Failure, retried while attempts remain; a Retry-After is honoured (up to ${duration(RETRY_AFTER_CAP_MS)} after the failure) when later than the backoff.`,
            headers: { 'Retry-After': headerRef('WebhookRetryAfter') },
          },
          '503': {
            description: `Failure, retried while attempts remain; a Retry-After is honoured (up to ${duration(RETRY_AFTER_CAP_MS)} after the failure) when later than the backoff.`,
            headers: { 'Retry-After': headerRef('WebhookRetryAfter') },
          },
          default: {
            description: `Any other status (2xx other than 200 included), a redirect, a connection error or no answer within ${duration(settings.webhookTimeoutMs)}: the attempt failed and the next one is scheduled, up to ${MAX_ATTEMPTS} attempts.`,
          },
        },
      },
    };
  }
  return out;
}

// ---- Components --------------------------------------------------------------------------------------

function components(settings: DocumentSettings): Json {
  return {
    schemas: COMPONENTS.schemas(),
    responses: {
      Unauthorized: {
        description: `UNAUTHORIZED: the Authorization header is missing or malformed, or the key is unknown or expired (${GRACE_HOURS} h after a rotation). All answer the same.`,
        headers: { 'WWW-Authenticate': headerRef('WwwAuthenticate') },
        content: json(errorSchema(['UNAUTHORIZED'])),
      },
      RateLimited: {
        description: `RATE_LIMITED: more requests this minute than the tenant's tier allows (${TIER_LIMITS.L1.requestsPerMinute}, ${TIER_LIMITS.L2.requestsPerMinute}, ${TIER_LIMITS['L2+'].requestsPerMinute} or custom).`,
        headers: { 'Retry-After': headerRef('RetryAfter') },
        content: json(errorSchema(['RATE_LIMITED'])),
      },
      PayloadTooLarge: {
        description: `PAYLOAD_TOO_LARGE: the body is over the configured limit (GOV_MAX_BODY_BYTES, ${settings.maxBodyBytes % 1024 === 0 ? `${settings.maxBodyBytes / 1024} KiB` : `${settings.maxBodyBytes} bytes`} on this server).`,
        content: json(errorSchema(['PAYLOAD_TOO_LARGE'])),
      },
      UnsupportedMediaType: {
        description:
          'UNSUPPORTED_MEDIA_TYPE: the JSON body declares a charset other than UTF-8, or an unsupported Content-Encoding. (A body sent with a non-JSON Content-Type is not parsed at all and answers 400.)',
        content: json(errorSchema(['UNSUPPORTED_MEDIA_TYPE'])),
      },
      InternalError: {
        description: 'INTERNAL_ERROR: retry with exponential backoff; check the signed tree head.',
        content: json(errorSchema(['INTERNAL_ERROR'])),
      },
    },
    parameters: {
      CorrelationId: {
        name: 'X-Correlation-Id',
        in: 'header',
        required: false,
        description:
          'Correlates logs and the answer; echoed in the X-Correlation-Id header and in error bodies. Only a value of 1 to 128 characters `A-Z a-z 0-9 . _ : -` is kept; any other is replaced by a generated UUID (the request is not refused).',
        schema: { type: 'string' },
      },
      WebhookSignature: {
        name: SIGNATURE_HEADER,
        in: 'header',
        required: true,
        description:
          '`sha256=` + the lowercase hex HMAC-SHA256 of the raw body bytes, keyed with the webhook’s secret. Recompute it over the bytes received (before any parsing) and compare in constant time.',
        schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
      },
      WebhookEventId: {
        name: EVENT_ID_HEADER,
        in: 'header',
        required: true,
        description:
          'The event id (also `event_id` in the body): the same on every delivery of the event, to each webhook, on each retry and redelivery. Deduplicate on it.',
        schema: { type: 'string', pattern: WEBHOOK_EVENT_ID.source },
      },
      WebhookId: {
        name: WEBHOOK_ID_HEADER,
        in: 'header',
        required: true,
        description:
          'The webhook the delivery is for (`webhook_id` of POST /webhooks): tells apart the deliveries of webhooks that share a URL, and which secret signed the body.',
        schema: { type: 'string', pattern: WEBHOOK_ID.source },
      },
      WebhookDeliveryId: {
        name: DELIVERY_ID_HEADER,
        in: 'header',
        required: true,
        description:
          'This delivery: `dlv_<position>_<k>` (older releases: `<webhook_id>.<event_id>`), or `<original delivery_id>:r<n>` for a redelivery. The same on every attempt of the delivery.',
        schema: deliveryIdSchema,
      },
      WebhookDeliveryAttempt: {
        name: DELIVERY_ATTEMPT_HEADER,
        in: 'header',
        required: true,
        description: `Which attempt of the delivery this is, from 1 to ${MAX_ATTEMPTS}.`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_ATTEMPTS },
      },
    },
    headers: {
      CorrelationId: {
        description: 'The request’s correlation id (the caller’s when well formed, else a generated UUID).',
        schema: { type: 'string', pattern: CLIENT_CORRELATION_ID.source },
      },
      RetryAfter: {
        description: 'Seconds to wait before retrying.',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
      WwwAuthenticate: {
        description: `Always \`${WWW_AUTHENTICATE}\`.`,
        required: true,
        schema: { type: 'string', const: WWW_AUTHENTICATE },
      },
      AccessControlAllowOrigin: {
        description: 'Always `*`: browsers may read public answers directly.',
        required: true,
        schema: { type: 'string', const: '*' },
      },
      CacheControl: {
        description: 'How long the answer may be cached.',
        schema: { type: 'string' },
      },
      WebhookRetryAfter: {
        description:
          'From a webhook receiver: delta-seconds or an HTTP-date before which the next attempt should not be made.',
        schema: { type: 'string' },
      },
      ContentDisposition: {
        description:
          'On exports only (format given): `attachment; filename="gov-report-<artifact_hash>.<json|md>"`.',
        schema: { type: 'string' },
      },
    },
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'gov_live_… (production) or gov_test_… (test mode) API key',
        description:
          'An API key from POST /auto-register or POST /api-key/rotate, sent as `Authorization: Bearer gov_live_<key id>_<secret>`.',
      },
    },
  };
}

/** Every operation takes the optional X-Correlation-Id header, and every answer carries it. */
function withCorrelation(pathItems: Json): Json {
  for (const item of Object.values(pathItems) as Json[]) {
    for (const operation of Object.values(item) as Json[]) {
      operation.parameters = [
        ...((operation.parameters as Json[] | undefined) ?? []),
        parameterRef('CorrelationId'),
      ];
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const answer = response as Json;
        if (answer.$ref) continue;
        answer.headers = {
          'X-Correlation-Id': headerRef('CorrelationId'),
          ...((answer.headers as Json) ?? {}),
        };
        (operation.responses as Json)[status] = answer;
      }
    }
  }
  return pathItems;
}

export function buildOpenApiDocument(table: RouteTable<never>, options: OpenApiOptions): object {
  const { settings } = options;
  const built = components(settings);
  for (const response of Object.values(built.responses as Json) as Json[]) {
    response.headers = {
      'X-Correlation-Id': headerRef('CorrelationId'),
      ...((response.headers as Json) ?? {}),
    };
  }
  // Every schema id (`urn:gov:…`: the route table's, the shared error body's) becomes a reference to
  // its component.
  return COMPONENTS.rewrite({
    openapi: '3.1.0',
    jsonSchemaDialect: DIALECT,
    info: {
      title: 'Governance Clearinghouse API',
      version: options.version,
      summary: 'Governance evidence, closed-loop records and a public Merkle transparency log.',
      description: [
        'Enrollment, evidence submission through gates G1–G5, compliance reports, closed-loop execution and variance records (L2 and above), webhooks, and the public transparency log (`/gov/v1/log/*`, no credentials).',
        '',
        `Every error answers the ErrorResponse body (the 422 gate failure has its own). Shared behaviour not repeated per operation: a query parameter an operation does not list answers 400 INVALID_REQUEST naming it (pointer \`query/<name>\`), never ignored; an unknown path answers 404 NOT_FOUND, and a known path called with a method it does not take 405 METHOD_NOT_ALLOWED with an Allow header listing the methods it takes; any request carrying a JSON body is parsed first, so even operations that take no body answer 400 for malformed JSON, 413 PAYLOAD_TOO_LARGE and 415 UNSUPPORTED_MEDIA_TYPE (JSON bodies are UTF-8: invalid UTF-8 answers 400, another charset 415); a body nested deeper than ${MAX_BODY_DEPTH} levels, with a member named \`__proto__\`, or with a string or member name holding a lone UTF-16 surrogate (a \`\\ud800\` escape not part of a pair, which RFC 8785 refuses) answers 400 INVALID_REQUEST naming it; a client slower than the headers or request timeout gets 408 REQUEST_TIMEOUT and a closed connection; a request line and headers over ${MAX_HEADER_BYTES / 1024} KB together answer 431 HEADERS_TOO_LARGE, and a request that is not valid HTTP/1.1 (an unknown method, a malformed request line or header) 400 INVALID_REQUEST, each closing the connection; the log endpoints answer CORS preflight (OPTIONS) with 204; GET operations also answer HEAD.`,
        '',
        `Tiers: Trial (L1, ${TRIAL.leafCap} leaves within ${TRIAL.windowHours} hours, ${TIER_LIMITS.L1.requestsPerMinute} requests/min), Pay-as-you-govern (L2, ${TIER_LIMITS.L2.requestsPerMinute}/min), Certified (L2+, ${TIER_LIMITS['L2+'].requestsPerMinute}/min), Networked (L4, custom).`,
        '',
        `Webhooks: a tenant registers URLs (POST /webhooks) and the service POSTs its events there, signed with ${SIGNATURE_HEADER} and tried up to ${MAX_ATTEMPTS} times; POST /webhooks describes delivery, and the \`webhooks\` section each event's body.`,
      ].join('\n'),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: options.serverUrl }],
    tags: [
      { name: 'account', description: 'Enrollment, the account and API keys.' },
      {
        name: 'governance',
        description: 'Evidence, reports, the chain of proof bundles and subject status.',
      },
      { name: 'closed-loop', description: 'Execution traces and variance records (tier L2 and above).' },
      {
        name: 'log',
        description:
          'The public transparency log: JSON signed tree heads and proofs, plus C2SP tlog-tiles resources. No credentials; every answer carries Access-Control-Allow-Origin: *; only leaves under the latest signed tree head are visible.',
      },
      {
        name: 'webhooks',
        description:
          "Webhooks: the tenant's events POSTed to the URLs it registers, signed, retried, and logged per delivery.",
      },
      { name: 'operations', description: 'Health, metrics, version and this document.' },
    ],
    paths: withCorrelation(openApiPaths(table, settings)),
    webhooks: webhooks(settings),
    components: built,
  }) as object;
}

/**
 * `GET /openapi.json`: the document of `table` (which holds this route: hence a function), built on
 * first request, once the public URL is known.
 */
export function openApiRoute(table: () => RouteTable<never>): Route<Pick<CoreServices, 'config'>> {
  return {
    method: 'get',
    path: '/openapi.json',
    access: PUBLIC,
    tags: ['operations'],
    operationId: 'getOpenApi',
    summary: 'This document',
    responses: {
      '200': {
        description: 'The OpenAPI 3.1 document.',
        headers: { 'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin') },
        content: json({ type: 'object' }),
      },
    },
    handler: (services) => {
      let body: string | undefined;
      return (_req: Request, res: Response) => {
        // Read now, not at registration: the embedded server learns its URL once listening.
        const { config } = services;
        body ??= JSON.stringify(
          buildOpenApiDocument(table(), {
            serverUrl: config.publicUrl,
            version: SERVICE_VERSION,
            settings: config,
          }),
        );
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.type('application/json').send(body);
      };
    },
  };
}
