/**
 * The OpenAPI 3.1 description of the HTTP API (`GET /openapi.json`), built from the JSON Schemas the
 * service validates with: command bodies, records and response bodies all land in
 * `components.schemas` under their titles, with every `urn:gov:…` reference rewritten to
 * `#/components/schemas/<Title>`. Paths, parameters and statuses are written out here, next to each
 * other, so a route answering something new shows up as a difference in one place. The webhook bodies
 * the service POSTs to tenants are components too, described by the top-level `webhooks` section.
 */
import { type Request, type Response, Router } from 'express';
import { MAX_WEBHOOKS_PER_TENANT } from '../../command-api/governance/webhooks/webhook-commands';
import {
  commandSchemas,
  recordSchemas,
  responseSchemas,
  webhookSchemas,
} from '../../event-schemas/governance';
import { MAX_BODY_DEPTH } from '../../event-schemas/json-shape';
import { ATTEMPT_TIMEOUT_MS, MAX_PAYLOAD_BYTES, USER_AGENT } from '../../projectors/webhooks/http-deliverer';
import { BACKOFF_MS, MAX_ATTEMPTS, RETRY_AFTER_CAP_MS } from '../../projectors/webhooks/retry-policy';
import { SIGNATURE_HEADER } from '../../projectors/webhooks/signature';
import type { ErrorCode } from '../../runtime/http/errors';
import { takesNoQuery } from '../../runtime/http/query';
import { type CoreServices, SERVICE_VERSION } from '../../runtime/wiring/services';
import { MAX_UNAPPLIED_POSITIONS } from '../engine/read-barrier';
import { CHAIN_DEFAULT_LIMIT, CHAIN_MAX_LIMIT } from './chain/chain-query';
import { DELIVERY_LOG_DEFAULT_LIMIT, DELIVERY_LOG_MAX_LIMIT } from './webhooks/webhook-routes';

export interface OpenApiOptions {
  /** Base URL of the service (`servers[0].url`). */
  serverUrl: string;
  /** The service version (`info.version`). */
  version: string;
}

type Json = Record<string, unknown>;

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const SHA256 = '^[0-9a-f]{64}$';
/** What the chain query accepts for from and to (read-api/chain-query.ts). */
const ISO_UTC_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$';
/** The chain query's `page` bound (read-api/chain-query.ts does not export it). */
const CHAIN_MAX_PAGE = 1_000_000;
/** How long an admission waits for a signed tree head before answering 503 (command-api/governance-routes.ts). */
const INTEGRATION_TIMEOUT_SECONDS = 20;

/** Every schema placed in `components.schemas`, by its `$id`. */
const SCHEMAS: readonly { $id: string; title: string }[] = [
  ...Object.values(commandSchemas),
  ...Object.values(recordSchemas),
  ...Object.values(responseSchemas),
  ...Object.values(webhookSchemas),
];

/** Component name (the schema's title) of each `$id`. */
const COMPONENT_OF = new Map<string, string>(SCHEMAS.map((schema) => [schema.$id, schema.title]));

/**
 * A schema as an OpenAPI component: `$schema` and `$id` dropped (an `$id` would change the base URI the
 * rewritten references resolve against) and every `$ref` pointing into the document instead. References
 * local to the schema (`#/$defs/x`) are re-rooted at the component.
 */
export function toComponentSchema(schema: { $id: string; title: string }): Json {
  const own = COMPONENT_OF.get(schema.$id);
  if (!own) throw new Error(`no component for ${schema.$id}`);
  const { $schema: _dialect, $id: _id, ...rest } = schema as Json;
  return rewriteRefs(rest, own) as Json;
}

function rewriteRefs(node: unknown, own: string): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, own));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string' ? componentRef(value, own) : rewriteRefs(value, own);
  }
  return out;
}

function componentRef(ref: string, own: string): string {
  const hash = ref.indexOf('#');
  const base = hash < 0 ? ref : ref.slice(0, hash);
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  const target = base === '' ? own : COMPONENT_OF.get(base);
  if (!target) throw new Error(`$ref ${ref} names no known schema`);
  return `#/components/schemas/${target}${fragment}`;
}

// ---- Building blocks ---------------------------------------------------------------------------------

const schemaRef = (title: string): Json => ({ $ref: `#/components/schemas/${title}` });
const responseRef = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });
const parameterRef = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });
const json = (schema: Json): Json => ({ 'application/json': { schema } });

/** The shared error body narrowed to the codes one status answers with. */
function errorSchema(codes: readonly ErrorCode[], withFields = false): Json {
  return {
    allOf: [schemaRef('ErrorResponse')],
    type: 'object',
    properties: { error: { enum: [...codes] } },
    ...(withFields ? { required: ['fields'] } : {}),
  };
}

function errorResponse(description: string, codes: readonly ErrorCode[], headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: json(errorSchema(codes, codes.includes('INVALID_REQUEST'))),
  };
}

const invalid = (description: string): Json => errorResponse(description, ['INVALID_REQUEST']);
const notFound = (description: string): Json => errorResponse(description, ['NOT_FOUND']);
const tierInsufficient = (description: string): Json => errorResponse(description, ['TIER_INSUFFICIENT']);
/** Account management (keys, webhooks, policy) is for the tenant's current key only. */
const currentKeyOnly = (): Json =>
  errorResponse(
    'FORBIDDEN (beyond the spec): the key was replaced by a key rotation. In its 24 hours of grace it still reads and submits evidence, but only the current key manages the account (key rotation, webhooks, the tenant policy). Nothing was changed.',
    ['FORBIDDEN'],
  );
const serviceUnavailable = (what: string): Json =>
  errorResponse(
    `SERVICE_UNAVAILABLE (beyond the spec): ${what} stored but not under a signed tree head within ${INTEGRATION_TIMEOUT_SECONDS} s (or, while the read models lag more than ${MAX_UNAPPLIED_POSITIONS} events behind, not yet applied by them). It is not lost: check GET /gov/v1/log/proof?leaf_hash=… before retrying, or the retry is admitted again.`,
    ['SERVICE_UNAVAILABLE'],
  );

/** A read that waited its limit at the read barrier (read-api/read-barrier.ts). */
const readModelsBehind = (): Json =>
  errorResponse(
    `SERVICE_UNAVAILABLE (beyond the spec): a read model had not applied, within ${INTEGRATION_TIMEOUT_SECONDS} s, a write this service already acknowledged (an admission is answered 201 once signed, and the read models apply it moments later; reads wait for that). Nothing is lost; retry after Retry-After.`,
    ['SERVICE_UNAVAILABLE'],
    { 'Retry-After': headerRef('RetryAfter') },
  );

/**
 * A log read that waited its limit for a tree head the service signed: the read model of heads had
 * not applied it, or (production topology) this process had not read it from the event store.
 */
const logHeadsBehind = (): Json =>
  errorResponse(
    `SERVICE_UNAVAILABLE (beyond the spec): the tree head asked for (or one past this process's latest) was signed, but within ${INTEGRATION_TIMEOUT_SECONDS} s the read model of tree heads had not applied it, or this read API had not read it from the event store. Every head the service has handed out is served; nothing is lost; retry after Retry-After.`,
    ['SERVICE_UNAVAILABLE'],
    { 'Retry-After': headerRef('RetryAfter') },
  );

/** 401, 429 and the read barrier's 503: every authenticated route may answer them. */
const authenticated = (): Json => ({
  '401': responseRef('Unauthorized'),
  '429': responseRef('RateLimited'),
  // The key's tenant is read at the read barrier too (its leaf counts are a read model).
  '503': readModelsBehind(),
});
/** 413 and 415: the shared JSON body parser. */
const bodyParser = (): Json => ({
  '413': responseRef('PayloadTooLarge'),
  '415': responseRef('UnsupportedMediaType'),
});

const hashPathParameter = (name: string, description: string): Json => ({
  name,
  in: 'path',
  required: true,
  description: `${description} A malformed value answers 400 INVALID_REQUEST (pointer \`path/${name}\`).`,
  schema: { type: 'string', pattern: SHA256 },
});

function queryParameter(name: string, description: string, schema: Json, required = false): Json {
  return { name, in: 'query', required, description, schema };
}

const logIntegerSchema = (minimum: number): Json => ({
  type: 'integer',
  minimum,
  maximum: Number.MAX_SAFE_INTEGER,
});

const LOG_QUERY_RULES =
  'Query parameters are read strictly: an unknown, repeated or malformed parameter answers 400 INVALID_REQUEST listing every problem (integers are decimal, without sign, exponent or leading zeros).';

function requestBody(title: string, description: string): Json {
  return { required: true, description, content: json(schemaRef(title)) };
}

const BEARER: Json[] = [{ bearer: [] }];
const PUBLIC: Json[] = [];

// ---- Paths -------------------------------------------------------------------------------------------

function paths(): Json {
  return {
    '/auto-register': {
      post: {
        tags: ['account'],
        operationId: 'autoRegister',
        summary: 'Provision a Trial (L1) tenant and its API key',
        security: PUBLIC,
        requestBody: requestBody(
          'RegisterTenantBody',
          'Who the tenant is; mode test issues a gov_test_ key.',
        ),
        responses: {
          '201': {
            description: 'The tenant and its key (shown once).',
            content: json(schemaRef('RegistrationResponse')),
          },
          '400': invalid('The body is not JSON, not sent as application/json, or does not match the schema.'),
          ...bodyParser(),
          '429': {
            description:
              'RATE_LIMITED: more registrations from this client address in the current clock hour than GOV_REGISTRATIONS_PER_IP_HOUR allows (default 10). Retry-After says when to retry.',
            headers: { 'Retry-After': headerRef('RetryAfter') },
            content: json(errorSchema(['RATE_LIMITED'])),
          },
          '500': responseRef('InternalError'),
        },
      },
    },
    '/account': {
      get: {
        tags: ['account'],
        operationId: 'getAccount',
        summary: 'The tenant, tier, trial status, leaf counts and allowances',
        security: BEARER,
        responses: {
          '200': { description: 'The account.', content: json(schemaRef('AccountResponse')) },
          ...authenticated(),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/api-key/rotate': {
      post: {
        tags: ['account'],
        operationId: 'rotateApiKey',
        summary: 'Issue a new API key; the current one stops working 24 hours later',
        description:
          'Takes no body. Only the current key rotates: the previous key, in its 24 hours of grace, answers 403.',
        security: BEARER,
        responses: {
          '200': {
            description: 'The new key (shown once) and when the previous one expires.',
            content: json(schemaRef('KeyRotationResponse')),
          },
          '400': invalid('A body was sent that is not empty (none, or {}).'),
          ...authenticated(),
          '403': currentKeyOnly(),
          ...bodyParser(),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/governance/policy': {
      get: {
        tags: ['account'],
        operationId: 'getTenantPolicy',
        summary: "The tenant's gate policy in force, its version and hash",
        description:
          'Every gate threshold is tenant policy. Until the tenant changes it this is the default, version 1, with updated_at null. Any valid key reads it, one in its grace period after a rotation too. Takes no query parameters.',
        security: BEARER,
        responses: {
          '200': { description: 'The policy in force.', content: json(schemaRef('TenantPolicyResponse')) },
          '400': invalid('The query has parameters (each one in `fields`, pointer `query/<name>`).'),
          ...authenticated(),
          '500': responseRef('InternalError'),
        },
      },
      put: {
        tags: ['account'],
        operationId: 'changeTenantPolicy',
        summary: "Replace the tenant's gate policy (a new version)",
        description:
          'The body is the whole policy. It applies to the submissions decided after it; admitted evidence, its reports and proofs are never evaluated again. Sending the policy in force again changes nothing and answers its version. Only the current key changes the policy.',
        security: BEARER,
        requestBody: requestBody('ChangePolicyBody', 'The new policy, every member given.'),
        responses: {
          '200': {
            description: 'The policy now in force, with its version.',
            content: json(schemaRef('TenantPolicyResponse')),
          },
          '400': invalid(
            'The body is not JSON or does not match the schema: a member missing, unknown or out of bounds (each one in `fields`).',
          ),
          ...authenticated(),
          '403': currentKeyOnly(),
          ...bodyParser(),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/governance/evidence': {
      post: {
        tags: ['governance'],
        operationId: 'submitEvidence',
        summary: 'Submit gate evidence for a decision about a subject',
        description:
          'Checks the tier allowances, the subject, then gates G1–G5 under the tenant policy in force (GET /governance/policy). G3 holds each protected metric to the lower of the policy’s maximum and the one the submission declares in G3 metric_maximums; a metric with either must be submitted. When every gate passes, a proof bundle is built, certified by a validator round, wrapped in a signed envelope and admitted to the log; the answer waits until the leaf is under a signed tree head.',
        security: BEARER,
        requestBody: requestBody('SubmitEvidenceBody', 'The evidence submission (spec section 2).'),
        responses: {
          '201': {
            description: 'Admitted: the leaf, the proof bundle and a signed tree head covering the leaf.',
            content: json(schemaRef('EvidenceAdmittedResponse')),
          },
          '400': invalid('The body is not JSON or does not match the schema (each field in `fields`).'),
          ...authenticated(),
          '409': errorResponse(
            'TRIAL_EXHAUSTED: the Trial tenant has used its 5 leaves or its 72-hour window has closed. SUBJECT_LOCKED (beyond the spec): the subject is LOCKBOX (10 consecutive gate failures) or REJECTED (a tenant policy violation) and accepts no more evidence.',
            ['TRIAL_EXHAUSTED', 'SUBJECT_LOCKED'],
          ),
          ...bodyParser(),
          '422': {
            description:
              'GATE_FAILURE: one or more gates rejected the evidence; EVIDENCE_CLASS_INVALID: G4 evidence_class is not HOOKED, ATTESTED or INSTRUMENTED. The action is blocked and nothing is admitted.',
            content: json(schemaRef('GateFailureResponse')),
          },
          '429': {
            description:
              "RATE_LIMITED: the tier's requests per minute, or its leaves per UTC day (resetting at 00:00 UTC), are used up. Retry-After says when to retry.",
            headers: { 'Retry-After': headerRef('RetryAfter') },
            content: json(errorSchema(['RATE_LIMITED'])),
          },
          '500': errorResponse(
            'INTERNAL_ERROR: the validator round failed (nothing was admitted; retry with exponential backoff), or another internal error.',
            ['INTERNAL_ERROR'],
          ),
          '503': serviceUnavailable('the leaf is'),
        },
      },
    },
    '/governance/execution': {
      post: {
        tags: ['closed-loop'],
        operationId: 'submitExecution',
        summary: 'Submit the execution trace of an authorized action (L2 and above)',
        description:
          'Records what happened when the action authorized by parent_auth_leaf_hash ran, computes the variance between the observables at authorization and at execution, and admits both records as leaves.',
        security: BEARER,
        requestBody: requestBody('SubmitExecutionBody', 'The execution trace.'),
        responses: {
          '201': {
            description:
              'The execution and variance leaves, the variance record and a signed tree head covering both.',
            content: json(schemaRef('ExecutionAdmittedResponse')),
          },
          '400': invalid(
            "The body is not JSON or does not match the schema, or subject_id is not the authorization's subject (pointer `/subject_id`).",
          ),
          ...authenticated(),
          '403': tierInsufficient('TIER_INSUFFICIENT: closed-loop records need tier L2 or above.'),
          '409': errorResponse(
            'CONFLICT (beyond the spec): the authorization already has its execution; each authorization is executed once.',
            ['CONFLICT'],
          ),
          ...bodyParser(),
          '422': errorResponse(
            "PARENT_AUTH_NOT_FOUND: parent_auth_leaf_hash is not an authorization leaf of this tenant (another tenant's leaf answers the same).",
            ['PARENT_AUTH_NOT_FOUND'],
          ),
          '500': responseRef('InternalError'),
          '503': serviceUnavailable('the leaves are'),
        },
      },
    },
    '/governance/report/{artifact_hash}': {
      get: {
        tags: ['governance'],
        operationId: 'getComplianceReport',
        summary: 'The GOV_COMPLIANCE_REPORT_V1 of one of the tenant’s proof bundles',
        description:
          'Without `format` the report is the view (every tier). `format=json` or `format=markdown` exports it as a download (Content-Disposition: attachment), which needs tier L2 or above. Any other query parameter answers 400 (pointer `query/<name>`).',
        security: BEARER,
        parameters: [
          hashPathParameter('artifact_hash', 'The proof bundle (artifact_hash of the evidence response).'),
          queryParameter(
            'format',
            'Export format; needs tier L2 or above. Any other value answers 400 (pointer `query/format`).',
            { type: 'string', enum: ['json', 'markdown'] },
          ),
        ],
        responses: {
          '200': {
            description:
              'The report: JSON, or Markdown for format=markdown. In the Markdown every value is escaped (HTML-significant characters and line breaks as character references, Markdown syntax with backslashes), so text from the evidence reads as itself and opens no HTML, link, image, heading, table cell or code span.',
            headers: { 'Content-Disposition': headerRef('ContentDisposition') },
            content: {
              'application/json': { schema: schemaRef('ComplianceReport') },
              'text/markdown': { schema: { type: 'string' } },
            },
          },
          '400': invalid('artifact_hash is not a SHA-256 hex digest, or format is not json or markdown.'),
          ...authenticated(),
          '403': tierInsufficient('TIER_INSUFFICIENT: exporting (format given) needs tier L2 or above.'),
          '404': notFound("No such proof bundle for this tenant (another tenant's bundle answers the same)."),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/governance/chain': {
      get: {
        tags: ['governance'],
        operationId: 'getChain',
        summary: 'The tenant’s admitted proof bundles, paginated, oldest first',
        description: 'Only page, limit, from and to are accepted; any other query parameter answers 400.',
        security: BEARER,
        parameters: [
          queryParameter('page', 'Page number, from 1.', {
            type: 'integer',
            minimum: 1,
            maximum: CHAIN_MAX_PAGE,
            default: 1,
          }),
          queryParameter('limit', 'Items per page.', {
            type: 'integer',
            minimum: 1,
            maximum: CHAIN_MAX_LIMIT,
            default: CHAIN_DEFAULT_LIMIT,
          }),
          queryParameter(
            'from',
            'Only bundles admitted at or after this instant (ISO 8601 UTC, e.g. 2026-11-21T00:00:00Z).',
            { type: 'string', format: 'date-time', pattern: ISO_UTC_PATTERN },
          ),
          queryParameter(
            'to',
            'Only bundles admitted before this instant (ISO 8601 UTC); must be later than from.',
            { type: 'string', format: 'date-time', pattern: ISO_UTC_PATTERN },
          ),
        ],
        responses: {
          '200': { description: 'One page.', content: json(schemaRef('ChainPageResponse')) },
          '400': invalid(
            'A query parameter is unknown, repeated or out of range, or to is not later than from.',
          ),
          ...authenticated(),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/governance/status': {
      get: {
        tags: ['governance'],
        operationId: 'getStatus',
        summary: 'Lifecycle, HCE observables, consecutive_fails and trial_leaves_remaining',
        security: BEARER,
        parameters: [
          queryParameter(
            'subject_id',
            'The subject to report on; without it, the most recently updated subject of the tenant.',
            { type: 'string', minLength: 1, maxLength: 256 },
          ),
        ],
        responses: {
          '200': { description: 'The status.', content: json(schemaRef('StatusResponse')) },
          '400': invalid('subject_id is empty, longer than 256 characters or given more than once.'),
          ...authenticated(),
          '404': notFound('subject_id names no subject of this tenant.'),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/governance/variance/{auth_leaf_hash}': {
      get: {
        tags: ['closed-loop'],
        operationId: 'getVariance',
        summary: 'The GOV_VARIANCE_RECORD_V1 of an authorization (L2 and above)',
        security: BEARER,
        parameters: [hashPathParameter('auth_leaf_hash', 'The authorization leaf.')],
        responses: {
          '200': { description: 'The variance record.', content: json(schemaRef('VarianceRecord')) },
          '400': invalid('auth_leaf_hash is not a SHA-256 hex digest.'),
          ...authenticated(),
          '403': tierInsufficient('TIER_INSUFFICIENT: closed-loop records need tier L2 or above.'),
          '404': notFound('The authorization has no execution (or is not this tenant’s).'),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/governance/triple-leaf/{auth_leaf_hash}': {
      get: {
        tags: ['closed-loop'],
        operationId: 'getTripleLeaf',
        summary: 'The authorization, execution and variance leaves of an action (L2 and above)',
        security: BEARER,
        parameters: [hashPathParameter('auth_leaf_hash', 'The authorization leaf.')],
        responses: {
          '200': {
            description: 'The three leaves with inclusion proofs against the latest signed tree head.',
            content: json(schemaRef('TripleLeafResponse')),
          },
          '400': invalid('auth_leaf_hash is not a SHA-256 hex digest.'),
          ...authenticated(),
          '403': tierInsufficient('TIER_INSUFFICIENT: closed-loop records need tier L2 or above.'),
          '404': notFound('The authorization has no execution (or is not this tenant’s).'),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/governance/replay/{artifact_hash}': {
      get: {
        tags: ['governance'],
        operationId: 'getProofBundle',
        summary: 'The proof bundle, public and content-addressed (the replay_url)',
        description:
          'Anyone holding the hash can fetch the bundle: its body is the RFC 8785 canonical JSON whose SHA-256 is artifact_hash. Immutable, cacheable and CORS-enabled.',
        security: PUBLIC,
        parameters: [hashPathParameter('artifact_hash', 'The proof bundle.')],
        responses: {
          '200': {
            description: 'The GOV_PROOF_BUNDLE_V1, as canonical JSON.',
            headers: {
              'Cache-Control': headerRef('CacheControl'),
              'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin'),
            },
            content: json(schemaRef('ProofBundle')),
          },
          '400': invalid('artifact_hash is not a SHA-256 hex digest.'),
          '404': notFound('No proof bundle has this hash.'),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/health': {
      get: {
        tags: ['operations'],
        operationId: 'getHealth',
        summary: 'Service health; every store is asked for something',
        security: PUBLIC,
        responses: {
          '200': { description: 'status ok.', content: json(schemaRef('HealthResponse')) },
          '500': responseRef('InternalError'),
          '503': {
            description: 'status degraded: a store did not answer.',
            content: json(schemaRef('HealthResponse')),
          },
        },
      },
    },
    '/v1/metrics': {
      get: {
        tags: ['operations'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        security: PUBLIC,
        responses: {
          '200': {
            description: 'The Prometheus text exposition format (version 0.0.4).',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          '500': responseRef('InternalError'),
        },
      },
    },
    '/v1/version': {
      get: {
        tags: ['operations'],
        operationId: 'getVersion',
        summary: 'Service name, version and runtime',
        security: PUBLIC,
        responses: {
          '200': { description: 'The version.', content: json(schemaRef('VersionResponse')) },
          '500': responseRef('InternalError'),
        },
      },
    },
    '/openapi.json': {
      get: {
        tags: ['operations'],
        operationId: 'getOpenApi',
        summary: 'This document',
        security: PUBLIC,
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document.',
            headers: { 'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin') },
            content: json({ type: 'object' }),
          },
          '500': responseRef('InternalError'),
        },
      },
    },
    ...logPaths(),
    ...webhookPaths(),
  };
}

function logOperation(operation: Json): Json {
  return { tags: ['log'], security: PUBLIC, ...operation };
}

/** 200 of a log endpoint: CORS-enabled like every log answer. */
function logOk(description: string, content: Json, headers: Json = {}): Json {
  return {
    description,
    headers: { 'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin'), ...headers },
    content,
  };
}

function logPaths(): Json {
  const invalidQuery = (what: string) => invalid(`${what} ${LOG_QUERY_RULES}`);
  const logInternal = responseRef('InternalError');
  return {
    '/gov/v1/log/sth': {
      get: logOperation({
        operationId: 'getSignedTreeHead',
        summary: 'The latest signed tree head, or the one signed at tree_size',
        description: LOG_QUERY_RULES,
        parameters: [
          queryParameter(
            'tree_size',
            'The tree head signed at exactly this size (404 when none was); omit for the latest. Every head the service has handed out (in a 201, as the latest STH or checkpoint) is served from then on.',
            logIntegerSchema(0),
          ),
        ],
        responses: {
          '200': logOk(
            'The signed tree head (the latest one with Cache-Control: no-cache).',
            json(schemaRef('SignedTreeHead')),
          ),
          '400': invalidQuery('tree_size is malformed or the query has other parameters.'),
          '404': notFound('No tree head was signed at tree_size.'),
          '500': logInternal,
          '503': logHeadsBehind(),
        },
      }),
    },
    '/gov/v1/log/checkpoint': {
      get: logOperation({
        operationId: 'getCheckpoint',
        summary: 'The latest signed tree head as a C2SP tlog-tiles checkpoint (signed note)',
        description:
          'The same statement as GET /gov/v1/log/sth. It takes no query parameter (any answers 400).',
        responses: {
          '200': logOk(
            'The signed checkpoint note: origin, tree size, base64 root hash, `timestamp <ISO 8601>`, a blank line, and the signature lines (the log first, then witnesses).',
            { 'text/plain': { schema: { type: 'string' } } },
            { 'Cache-Control': headerRef('CacheControl') },
          ),
          '500': logInternal,
        },
      }),
    },
    '/gov/v1/log/witness-signatures': {
      post: logOperation({
        operationId: 'submitWitnessSignature',
        summary: 'Hand in a witness cosignature of a signed tree head',
        description: [
          'A witness (e.g. `gov witness`) that checked the checkpoint signed at tree_size against the last one it cosigned (C2SP tlog-witness: log signature and consistency proof) sends its cosignature/v1 signature line (C2SP tlog-cosignature). No API key: only cosignatures by the witness keys the operator trusts (GOV_WITNESS_KEYS, comma-separated note verifier keys) are accepted, and only when they verify over the checkpoint the log signed at that size.',
          '',
          'An accepted cosignature is recorded (event WitnessCosigned) and served from then on: in `witness_signatures` of GET /gov/v1/log/sth for that size, and as a signature line after the log’s in the checkpoint note (GET /gov/v1/log/checkpoint while that size is the latest). A witness key keeps one cosignature per tree size: sending another for the same size (a retry, or a new timestamp) answers 200 with the one recorded first.',
        ].join('\n'),
        requestBody: requestBody('SubmitWitnessSignatureBody', 'The tree size and the cosignature line.'),
        responses: {
          '200': {
            description: 'The cosignature is recorded and served.',
            content: json(schemaRef('WitnessSignatureResponse')),
          },
          '400': invalid(
            'The body is not JSON or does not match the schema, or the cosignature (pointer `/cosignature`) is not a signature line, is by a witness key not in GOV_WITNESS_KEYS, or does not verify over the checkpoint the log signed at tree_size.',
          ),
          '404': notFound('No tree head was signed at tree_size.'),
          ...bodyParser(),
          '500': responseRef('InternalError'),
          '503': logHeadsBehind(),
        },
      }),
    },
    '/gov/v1/log/leaf': {
      get: logOperation({
        operationId: 'getLeaf',
        summary: 'The leaf at index N: its hash, type, envelope reference and record',
        description: LOG_QUERY_RULES,
        parameters: [queryParameter('index', 'The leaf index N, from 0.', logIntegerSchema(0), true)],
        responses: {
          '200': logOk('The leaf.', json(schemaRef('LogLeafResponse'))),
          '400': invalidQuery('index is missing or malformed, or the query has other parameters.'),
          '404': notFound('index is not in the latest signed tree.'),
          '500': logInternal,
          '503': readModelsBehind(), // also when this process had not read the newest heads in time
        },
      }),
    },
    '/gov/v1/log/proof': {
      get: logOperation({
        operationId: 'getInclusionProof',
        summary: 'The Merkle inclusion proof of leaf H',
        description: LOG_QUERY_RULES,
        parameters: [
          queryParameter(
            'leaf_hash',
            'The leaf hash H (64 lowercase hex characters).',
            { type: 'string', pattern: SHA256 },
            true,
          ),
          queryParameter(
            'tree_size',
            "The tree to prove against, from the leaf's index + 1 to the latest signed size; omit for the latest.",
            logIntegerSchema(1),
          ),
        ],
        responses: {
          '200': logOk('The inclusion proof.', json(schemaRef('LogProofResponse'))),
          '400': invalidQuery(
            'leaf_hash is missing or malformed, tree_size is malformed or outside [leaf index + 1, latest signed size], or the query has other parameters.',
          ),
          '404': notFound(
            'No leaf with this hash is in the latest signed tree (a leaf just admitted appears once a tree head covering it is signed).',
          ),
          '500': logInternal,
          '503': logHeadsBehind(),
        },
      }),
    },
    '/gov/v1/log/consistency': {
      get: logOperation({
        operationId: 'getConsistencyProof',
        summary: 'The consistency proof between tree sizes M and N',
        description: LOG_QUERY_RULES,
        parameters: [
          queryParameter('from', 'The older tree size M, at least 1.', logIntegerSchema(1), true),
          queryParameter(
            'to',
            'The newer tree size N, from M to the latest signed size; omit for the latest.',
            logIntegerSchema(1),
          ),
        ],
        responses: {
          '200': logOk('The consistency proof.', json(schemaRef('LogConsistencyResponse'))),
          '400': invalidQuery(
            'from or to is missing, malformed or outside 1 ≤ from ≤ to ≤ latest signed size.',
          ),
          '500': logInternal,
          '503': logHeadsBehind(),
        },
      }),
    },
    '/gov/v1/log/keys': {
      get: logOperation({
        operationId: 'getLogKeys',
        summary: 'The public keys that verify the log, the envelopes and the certificates',
        description:
          'Takes no query parameters. The current keys, and under `retired` the keys retired by rotations (`gov keys rotate`): a signed tree head, envelope or vote made before a rotation verifies under a retired key. Keys are read when the server starts.',
        responses: {
          '200': logOk('The keys.', json(schemaRef('LogKeysResponse'))),
          '400': invalidQuery('The query has parameters.'),
          '500': logInternal,
        },
      }),
    },
    '/gov/v1/log/tile/{path}': {
      get: logOperation({
        operationId: 'getTile',
        summary: 'C2SP tlog-tiles static resources: hash tiles and entry bundles',
        description:
          'The path continues over several segments (it cannot be expressed as one OpenAPI path parameter): `tile/<L>/<N>[.p/<W>]` for a hash tile of level L, `tile/entries/<N>[.p/<W>]` for an entry bundle (each record’s RFC 8785 canonical JSON, the bytes its leaf hash covers). N is written in zero-padded 3-digit groups, all but the last prefixed with x (`tile/0/x001/234`); `.p/<W>` is a partial tile of width W < 256. Every tile and bundle is immutable, partial ones too (their width is in the path), and is served with `Cache-Control: public, max-age=31536000, immutable`. Entry bundles of 1 KiB or more are gzipped when the request sends Accept-Encoding with gzip. It takes no query parameter (any answers 400).',
        parameters: [
          {
            name: 'path',
            in: 'path',
            required: true,
            description:
              'The tile path after `tile/`, slashes included, e.g. `0/x001/234`, `1/000.p/3`, `entries/000`.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': logOk(
            'The tile (width × 32-byte hashes) or the entry bundle.',
            {
              'application/octet-stream': {
                schema: { type: 'string', contentMediaType: 'application/octet-stream' },
              },
            },
            { 'Cache-Control': headerRef('CacheControl') },
          ),
          '404': notFound('Not a canonical tile path, or not covered by the latest signed tree.'),
          '500': errorResponse(
            'INTERNAL_ERROR: a stored record does not hash to its leaf (a broken store is never served), or another internal error.',
            ['INTERNAL_ERROR'],
          ),
          '503': logHeadsBehind(),
        },
      }),
    },
  };
}

// ---- Webhooks ----------------------------------------------------------------------------------------

const WEBHOOK_ID_PATTERN = '^wh_[0-9a-f]{24}$';
const EVENT_ID_PATTERN = '^evt_[0-9a-f]{32}$';
/** The delivery log's delivery id (`<webhook_id>.<event_id>`, `…:r<n>` for a redelivery). */
const deliveryIdSchema = (): Json => schemaRef('DeliveryLogResponse/$defs/delivery_id');

/** 5000 → `5 s`, 120000 → `2 min`. */
function duration(ms: number): string {
  return ms < 60_000 ? `${ms / 1000} s` : `${ms / 60_000} min`;
}

const WEBHOOK_SIGNATURE = `Every delivery is an HTTP POST of the event's JSON body (Content-Type: application/json, User-Agent: ${USER_AGENT}) signed with the webhook's secret: \`${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the raw body>\`, the lowercase hex HMAC-SHA256 keyed with the secret over the exact bytes received (GitHub's scheme; compare in constant time before parsing). The other delivery headers: X-GOV-Event-Id (the event id, the same on every delivery of the event — each webhook, retry and redelivery: deduplicate on it), X-GOV-Event-Type (the event name), X-GOV-Webhook-Id (the webhook the delivery is for), X-GOV-Delivery-Id (this delivery, as listed by GET /webhooks/{id}/deliveries) and X-GOV-Delivery-Attempt (1 to ${MAX_ATTEMPTS}).`;

const WEBHOOK_RETRIES = `Only an HTTP 200 answer is success; any other status, a redirect (never followed), a connection error or no answer within ${duration(ATTEMPT_TIMEOUT_MS)} (GOV_WEBHOOK_TIMEOUT_MS) fails the attempt. ${MAX_ATTEMPTS} attempts in all, the first and ${BACKOFF_MS.length} retries: immediately, then ${BACKOFF_MS.map((ms) => `+${duration(ms)}`).join(', ')} after each failure; after the ${MAX_ATTEMPTS}th failure the delivery is marked failed (the delivery log shows the schedule as \`max_attempts\` and \`retry_schedule_seconds\`). A 429 or 503 answer with Retry-After (delta-seconds or an HTTP-date) is honoured: the next attempt waits for the later of the backoff and Retry-After, at most ${duration(RETRY_AFTER_CAP_MS)} after the failure. Delivery is at least once: an event can arrive more than once.`;

const WEBHOOK_PAYLOAD_LIMIT = `A body is at most 128 KB (${MAX_PAYLOAD_BYTES} bytes): a payload that would be larger is trimmed to a summary of its identifying fields with \`trimmed: true\`, \`original_bytes\` and a \`url\` where the full record can be read.`;

const WEBHOOK_SECRET = `The secret keys the signature. Without \`secret\` in the body the service generates one (\`whsec_…\`) and returns it once, as \`secret\` in the 201 answer: only its sealed form is stored, so it cannot be shown again (delete the webhook and register a new one to change it).`;

const webhookIdParameter = (): Json => ({
  name: 'id',
  in: 'path',
  required: true,
  description:
    "The webhook_id from POST /webhooks. Any other value, a removed webhook and another tenant's webhook all answer 404 NOT_FOUND.",
  schema: { type: 'string', pattern: WEBHOOK_ID_PATTERN },
});

const unknownWebhook = (): Json =>
  notFound("No such webhook for this tenant: unknown, removed, or another tenant's (all answer the same).");

function webhookOperation(operation: Json): Json {
  return { tags: ['webhooks'], security: BEARER, ...operation };
}

function webhookPaths(): Json {
  return {
    '/webhooks': {
      post: webhookOperation({
        operationId: 'registerWebhook',
        summary: "Register a webhook for some of the tenant's events",
        description: [
          `The URL must be absolute http or https without userinfo, and every address its host resolves to must be public: the special-purpose ranges of the IANA IPv4 and IPv6 registries (loopback, private, link-local, metadata, documentation, benchmarking, …) are refused unless the operator allows them with GOV_WEBHOOK_ALLOW, and an IPv6 address carrying an IPv4 address (IPv4-mapped or -compatible, NAT64, 6to4, Teredo) is judged by that IPv4. A host name that does not resolve yet is accepted. The same check is made again before each delivery, on the address connected to: an attempt whose host does not resolve, or resolves to a refused address, fails with the reason in the delivery log. A tenant may have at most ${MAX_WEBHOOKS_PER_TENANT} webhooks.`,
          '',
          WEBHOOK_SECRET,
          '',
          WEBHOOK_SIGNATURE,
          '',
          WEBHOOK_RETRIES,
          '',
          WEBHOOK_PAYLOAD_LIMIT,
          '',
          'The bodies of each event are described in the `webhooks` section of this document.',
        ].join('\n'),
        requestBody: requestBody(
          'RegisterWebhookBody',
          'Where to deliver, which events, and optionally the signing secret.',
        ),
        responses: {
          '201': {
            description: 'The webhook; with the generated secret (shown once) when the body had none.',
            content: json(schemaRef('WebhookCreatedResponse')),
          },
          '400': invalid(
            'The body is not JSON or does not match the schema, or the target URL is refused (pointer `/url`, naming the address and its range): credentials in it, or an address that is not public (loopback, private, link-local, metadata, documentation, benchmarking, NAT64 or 6to4 of one of those, …) and not in GOV_WEBHOOK_ALLOW.',
          ),
          ...authenticated(),
          '403': currentKeyOnly(),
          '409': errorResponse(
            `CONFLICT: the tenant already has ${MAX_WEBHOOKS_PER_TENANT} webhooks; delete one first.`,
            ['CONFLICT'],
          ),
          ...bodyParser(),
          '500': responseRef('InternalError'),
        },
      }),
      get: webhookOperation({
        operationId: 'listWebhooks',
        summary: "The tenant's webhooks, oldest first",
        description: 'Removed webhooks are not listed; secrets are never shown.',
        responses: {
          '200': { description: 'The webhooks.', content: json(schemaRef('WebhookListResponse')) },
          ...authenticated(),
          '500': responseRef('InternalError'),
        },
      }),
    },
    '/webhooks/{id}': {
      get: webhookOperation({
        operationId: 'getWebhook',
        summary: 'One webhook',
        parameters: [webhookIdParameter()],
        responses: {
          '200': { description: 'The webhook.', content: json(schemaRef('WebhookResponse')) },
          ...authenticated(),
          '404': unknownWebhook(),
          '500': responseRef('InternalError'),
        },
      }),
      delete: webhookOperation({
        operationId: 'deleteWebhook',
        summary: 'Remove a webhook',
        description:
          'No new deliveries are queued for it; deliveries still pending are cancelled instead of attempted. Afterwards the webhook answers 404 everywhere, its delivery log included.',
        parameters: [webhookIdParameter()],
        responses: {
          '200': { description: 'Removed.', content: json(schemaRef('WebhookDeletedResponse')) },
          ...authenticated(),
          '403': currentKeyOnly(),
          '404': unknownWebhook(),
          '500': responseRef('InternalError'),
        },
      }),
    },
    '/webhooks/{id}/deliveries': {
      get: webhookOperation({
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of a webhook, newest first (beyond the spec)',
        description: `Each delivery queued for the webhook, with its status and every attempt (when, the receiver's status or the error, the latency). Only status, limit and cursor are accepted; an unknown or repeated parameter answers 400. The webhook is looked up first: an unknown one answers 404 whatever the query. ${WEBHOOK_RETRIES}`,
        parameters: [
          webhookIdParameter(),
          queryParameter('status', 'Only deliveries with this status.', {
            type: 'string',
            enum: ['pending', 'delivered', 'failed', 'cancelled'],
          }),
          queryParameter('limit', 'Deliveries per page (decimal, no leading zeros).', {
            type: 'integer',
            minimum: 1,
            maximum: DELIVERY_LOG_MAX_LIMIT,
            default: DELIVERY_LOG_DEFAULT_LIMIT,
          }),
          queryParameter(
            'cursor',
            'next_cursor of the previous page (with the same status filter): the page after it. Anything else answers 400 (pointer `query/cursor`).',
            { type: 'string' },
          ),
        ],
        responses: {
          '200': { description: 'One page of the log.', content: json(schemaRef('DeliveryLogResponse')) },
          '400': invalid(
            `A query parameter is unknown or repeated, status is not pending, delivered, failed or cancelled, limit is not an integer from 1 to ${DELIVERY_LOG_MAX_LIMIT}, or cursor is not one from this listing.`,
          ),
          ...authenticated(),
          '404': unknownWebhook(),
          '500': responseRef('InternalError'),
        },
      }),
    },
    '/webhooks/{id}/deliveries/{delivery_id}/redeliver': {
      post: webhookOperation({
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again (beyond the spec)',
        description:
          'Queues a new delivery of the same event to the same webhook: the same event id and the same body bytes and signature, with its own delivery id `<original delivery_id>:r<n>` and a fresh set of attempts. Any delivery of the log can be redelivered, whatever its status. Takes no body.',
        parameters: [
          webhookIdParameter(),
          {
            name: 'delivery_id',
            in: 'path',
            required: true,
            description:
              "A delivery_id from the webhook's delivery log. Any other value answers 404 NOT_FOUND.",
            schema: deliveryIdSchema(),
          },
        ],
        responses: {
          '202': {
            description: 'The redelivery is queued; it appears in the delivery log.',
            content: json(schemaRef('RedeliveryResponse')),
          },
          '400': invalid('A body was sent that is not empty (none, or {}).'),
          ...authenticated(),
          '403': currentKeyOnly(),
          '404': notFound(
            "No such webhook for this tenant (unknown, removed, or another tenant's), or no such delivery of it.",
          ),
          ...bodyParser(),
          '500': responseRef('InternalError'),
        },
      }),
    },
  };
}

/** `leaf_admitted` → `leafAdmitted`. */
const camelCase = (name: string): string =>
  name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The top-level `webhooks` section: one POST per webhook event, as the service sends it to a tenant's
 * registered URL. The body is the event's schema (full payload or trimmed summary).
 */
function webhooks(): Json {
  const out: Json = {};
  for (const [name, schema] of Object.entries(webhookSchemas)) {
    out[name] = {
      post: {
        tags: ['webhooks'],
        operationId: `${camelCase(name)}Webhook`,
        summary: `The ${name} event, POSTed to each of the tenant's webhooks registered for it`,
        description: [
          schema.description,
          '',
          WEBHOOK_SIGNATURE,
          '',
          WEBHOOK_RETRIES,
          '',
          WEBHOOK_PAYLOAD_LIMIT,
        ].join('\n'),
        parameters: [
          parameterRef('WebhookSignature'),
          parameterRef('WebhookEventId'),
          {
            name: 'X-GOV-Event-Type',
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
          description: `The \`${name}\` body: the full payload or, over 128 KB, its trimmed summary (\`trimmed: true\`).`,
          content: json(schemaRef(schema.title)),
        },
        responses: {
          '200': {
            description:
              'Success: the delivery is marked delivered and not attempted again. The answer body is read (up to 64 KiB) and ignored.',
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
            description: `Any other status (2xx other than 200 included), a redirect, a connection error or no answer within ${duration(ATTEMPT_TIMEOUT_MS)}: the attempt failed and the next one is scheduled, up to ${MAX_ATTEMPTS} attempts.`,
          },
        },
      },
    };
  }
  return out;
}

// ---- Components --------------------------------------------------------------------------------------

function components(): Json {
  const schemas: Json = {};
  for (const schema of SCHEMAS) schemas[schema.title] = toComponentSchema(schema);
  return {
    schemas,
    responses: {
      Unauthorized: {
        description:
          'UNAUTHORIZED: the Authorization header is missing or malformed, or the key is unknown or expired (24 h after a rotation). All answer the same.',
        headers: { 'WWW-Authenticate': headerRef('WwwAuthenticate') },
        content: json(errorSchema(['UNAUTHORIZED'])),
      },
      RateLimited: {
        description:
          "RATE_LIMITED: more requests this minute than the tenant's tier allows (60, 300, 1000 or custom).",
        headers: { 'Retry-After': headerRef('RetryAfter') },
        content: json(errorSchema(['RATE_LIMITED'])),
      },
      PayloadTooLarge: {
        description:
          'PAYLOAD_TOO_LARGE: the body is over the configured limit (GOV_MAX_BODY_BYTES, default 256 KiB).',
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
        name: 'X-GOV-Event-Id',
        in: 'header',
        required: true,
        description:
          'The event id (also `event_id` in the body): the same on every delivery of the event, to each webhook, on each retry and redelivery. Deduplicate on it.',
        schema: { type: 'string', pattern: EVENT_ID_PATTERN },
      },
      WebhookId: {
        name: 'X-GOV-Webhook-Id',
        in: 'header',
        required: true,
        description:
          'The webhook the delivery is for (`webhook_id` of POST /webhooks): tells apart the deliveries of webhooks that share a URL, and which secret signed the body.',
        schema: { type: 'string', pattern: WEBHOOK_ID_PATTERN },
      },
      WebhookDeliveryId: {
        name: 'X-GOV-Delivery-Id',
        in: 'header',
        required: true,
        description:
          'This delivery: `dlv_<position>_<k>` (older releases: `<webhook_id>.<event_id>`), or `<original delivery_id>:r<n>` for a redelivery. The same on every attempt of the delivery.',
        schema: deliveryIdSchema(),
      },
      WebhookDeliveryAttempt: {
        name: 'X-GOV-Delivery-Attempt',
        in: 'header',
        required: true,
        description: `Which attempt of the delivery this is, from 1 to ${MAX_ATTEMPTS}.`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_ATTEMPTS },
      },
    },
    headers: {
      CorrelationId: {
        description: 'The request’s correlation id (the caller’s when well formed, else a generated UUID).',
        schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
      },
      RetryAfter: {
        description: 'Seconds to wait before retrying.',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
      WwwAuthenticate: {
        description: 'Always `Bearer realm="gov"`.',
        required: true,
        schema: { type: 'string', const: 'Bearer realm="gov"' },
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

export function buildOpenApiDocument(options: OpenApiOptions): object {
  const built = components();
  for (const response of Object.values(built.responses as Json) as Json[]) {
    response.headers = {
      'X-Correlation-Id': headerRef('CorrelationId'),
      ...((response.headers as Json) ?? {}),
    };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: DIALECT,
    info: {
      title: 'Governance Clearinghouse API',
      version: options.version,
      summary: 'Governance evidence, closed-loop records and a public Merkle transparency log.',
      description: [
        'Enrollment, evidence submission through gates G1–G5, compliance reports, closed-loop execution and variance records (L2 and above), webhooks, and the public transparency log (`/gov/v1/log/*`, no credentials).',
        '',
        `Every error answers the ErrorResponse body (the 422 gate failure has its own). Shared behaviour not repeated per operation: a query parameter an operation does not list answers 400 INVALID_REQUEST naming it (pointer \`query/<name>\`), never ignored; an unknown path answers 404 NOT_FOUND, and a known path called with a method it does not take 405 METHOD_NOT_ALLOWED with an Allow header listing the methods it takes; any request carrying a JSON body is parsed first, so even operations that take no body answer 400 for malformed JSON, 413 PAYLOAD_TOO_LARGE and 415 UNSUPPORTED_MEDIA_TYPE (JSON bodies are UTF-8: invalid UTF-8 answers 400, another charset 415); a body nested deeper than ${MAX_BODY_DEPTH} levels, with a member named \`__proto__\`, or with a string or member name holding a lone UTF-16 surrogate (a \`\\ud800\` escape not part of a pair, which RFC 8785 refuses) answers 400 INVALID_REQUEST naming it; a client slower than the headers or request timeout gets 408 REQUEST_TIMEOUT and a closed connection; a request line and headers over 16 KB together answer 431 HEADERS_TOO_LARGE, and a request that is not valid HTTP/1.1 (an unknown method, a malformed request line or header) 400 INVALID_REQUEST, each closing the connection; the log endpoints answer CORS preflight (OPTIONS) with 204; GET operations also answer HEAD.`,
        '',
        'Tiers: Trial (L1, 5 leaves within 72 hours, 60 requests/min), Pay-as-you-govern (L2, 300/min), Certified (L2+, 1000/min), Networked (L4, custom).',
        '',
        "Webhooks: a tenant registers URLs (POST /webhooks) and the service POSTs its events there, signed with X-GOV-Signature-256 and tried up to 5 times; POST /webhooks describes delivery, and the `webhooks` section each event's body.",
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
    paths: withCorrelation(paths()),
    webhooks: webhooks(),
    components: built,
  };
}

/** `GET /openapi.json`: the document, built on first request (the public URL is known only once listening). */
export function openApiRoutes(services: Pick<CoreServices, 'config'>): Router {
  const router = Router();
  let body: string | undefined;
  router.get('/openapi.json', takesNoQuery, (_req: Request, res: Response) => {
    body ??= JSON.stringify(
      buildOpenApiDocument({ serverUrl: services.config.publicUrl, version: SERVICE_VERSION }),
    );
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/json').send(body);
  });
  return router;
}
