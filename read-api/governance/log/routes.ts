/**
 * The public transparency logs over HTTP: JSON signed tree heads, leaves, inclusion and consistency
 * proofs, plus the C2SP tlog-tiles static resources (`checkpoint`, hash tiles, entry bundles) so
 * off-the-shelf tiles clients and witnesses can follow a log. Every log has the same routes under
 * `/gov/v1/logs/<name>` (`GET /gov/v1/logs` lists them); the shared log also keeps `/gov/v1/log`.
 * Every JSON answer that carries a tree head, a proof or a leaf names its log (`log`).
 *
 * Nothing here needs credentials and every answer carries `Access-Control-Allow-Origin: *`, so
 * browsers can verify the log directly. Everything served is bounded by the latest signed tree head:
 * leaves integrated but not yet signed are invisible, whatever the `PublishedLog` would answer.
 *
 * Query parameters are parsed from the raw query string here, not by Express's query parser: the
 * answer must not depend on the app's parser setting, repeated parameters must be detectable, and
 * the proof route is hot enough that building objects nobody reads matters.
 */
import type { KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { NextFunction, Request, Response, Router } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { LOG_NAME, leafDataOfRecord, logUrlOf, SHARED_LOG_NAME } from '../../../domain/log';
import type { FieldProblem } from '../../../event-schemas';
import { bytesEqual, encodeEntryBundle, leafHash, parseTilePath, TILE_WIDTH } from '../../../merkle-core';
import {
  type LeafView,
  type LogName,
  LogNotSignedError,
  type PublishedLog,
  type PublishedLogs,
  type PublishedTreeHead,
} from '../../../ports/log';
import { sendError } from '../../../runtime/http/errors';
import { namedLog } from '../../../runtime/http/named-log';
import {
  errorResponse,
  headerRef,
  invalid,
  type Json,
  json,
  logHeadsBehind,
  notFound,
  readModelsBehind,
  schema,
} from '../../../runtime/http/openapi-parts';
import { unknownParameterReason } from '../../../runtime/http/query';
import {
  groupRouter,
  type PathParameter,
  PUBLIC,
  type Route,
  type RouteGroup,
} from '../../../runtime/http/route-table';
import { retiredKeysAnswer } from '../../../runtime/keys/key-history';

const gzip = promisify(gzipCallback);

/**
 * Tiles and entry bundles never change, partial ones included: a partial tile's width is in its path
 * (`.p/<W>`), and a wider one is another resource (C2SP tlog-tiles: immutable, long-lived caching).
 */
const CACHE_IMMUTABLE = 'public, max-age=31536000, immutable';
/** The latest tree head moves: caches must revalidate (tlog-tiles: no caching beyond a few seconds). */
const CACHE_LATEST = 'no-cache';
export const JSON_TYPE = 'application/json; charset=utf-8';
/** Entry bundles at or above this size are gzipped when the client accepts it (tlog-tiles SHOULD). */
const GZIP_MIN_BYTES = 1024;

/** What the log routes read: the published (shared) log. */
export interface LogServices {
  log: PublishedLog;
}

/** What the routes of every log read: the logs by name, and the public URL their own URLs start with. */
export interface LogsServices extends LogServices {
  logs: PublishedLogs;
  config: { publicUrl: string };
}

/** A log as a handler serves it: its name (the `log` member of answers) and what it publishes. */
interface ServedLog {
  name: LogName;
  log: PublishedLog;
}

type LogHandler = (served: ServedLog, req: Request, res: Response) => unknown;

/** A route of one log, relative to the log's base path: its handler serves whichever log it is given. */
type LogRoute<S> = Omit<Route<S>, 'handler'> & { handler: (services: S) => LogHandler };

/**
 * More public keys for `GET …/keys` (e.g. `{ validators: [...], authority: '...' }`), read on each
 * request and merged after `log`, which they cannot replace.
 */
type ExtraKeys<S> = (services: S, log: LogName) => object | Promise<object>;

export const LOG_PARAMETER: PathParameter = {
  name: 'log',
  description:
    "The log's name: `shared` (the log every tenant below L4 admits to, also at /gov/v1/log), `test` (test-mode tenants) or `dedicated-<24 hex>` (an L4 tenant's own log). GET /gov/v1/logs lists them.",
  schema: { type: 'string', pattern: LOG_NAME.source },
};

export const LOG_QUERY_RULES =
  'Query parameters are read strictly: an unknown, repeated or malformed parameter answers 400 INVALID_REQUEST listing every problem (integers are decimal, without sign, exponent or leading zeros).';

export const invalidQuery = (what: string) => invalid(`${what} ${LOG_QUERY_RULES}`);

/** 200 of a log endpoint: CORS-enabled like every log answer. */
export function logOk(description: string, content: Json, headers: Json = {}): Json {
  return {
    description,
    headers: { 'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin'), ...headers },
    content,
  };
}

export const logIntegerSchema = (minimum: number): Json => ({
  type: 'integer',
  minimum,
  maximum: Number.MAX_SAFE_INTEGER,
});

/** The shared log's endpoints at `/gov/v1/log`, as they have always been. */
export function logRouteGroup<S extends LogServices>(extraKeys?: ExtraKeys<S>): RouteGroup<S> {
  return {
    mount: '/gov/v1/log',
    router: { caseSensitive: true, strict: true },
    use: () => [cors],
    routes: oneLogRoutes(extraKeys).map((route) => ({
      ...route,
      handler: (services: S) => {
        const handle = route.handler(services);
        const served: ServedLog = { name: SHARED_LOG_NAME, log: services.log };
        return (req: Request, res: Response) => handle(served, req, res);
      },
    })),
  };
}

/**
 * Every log's endpoints at `/gov/v1/logs/<name>/…` (the same as the shared log's at `/gov/v1/log`),
 * and the list of logs at `/gov/v1/logs`. A log this process serves is looked up in memory; a name it
 * does not know yet is looked for in the store once (another process may have just created it).
 */
export function logsRouteGroup<S extends LogsServices>(
  extraKeys?: ExtraKeys<S>,
  /** Routes of the logs other than their own (`/:log/anchor`: anchor-route.ts), after theirs. */
  more: readonly Route<S>[] = [],
): RouteGroup<S> {
  return {
    mount: '/gov/v1/logs',
    router: { caseSensitive: true, strict: true },
    use: () => [cors],
    routes: [
      {
        method: 'get',
        path: '/',
        access: PUBLIC,
        queryReadBy: 'handler',
        tags: ['log'],
        operationId: 'listLogs',
        summary: 'The logs: each one’s name, kind, origin, key, URL and latest signed size',
        description:
          'Takes no query parameters. The shared log first, then the others by name. Each log has the same routes under its `url` (the shared log’s is /gov/v1/log, also served at /gov/v1/logs/shared).',
        responses: {
          '200': logOk('The logs.', json(schema('urn:gov:response:log-list'))),
          '400': invalidQuery('The query has parameters.'),
        },
        handler: listLogs,
      },
      ...oneLogRoutes(extraKeys).map(
        (route): Route<S> => ({
          ...route,
          path: `/:log${route.path}`,
          params: [LOG_PARAMETER, ...(route.params ?? [])],
          operationId: `${route.operationId}OfLog`,
          summary: `${route.summary}, of the log named`,
          responses: {
            ...route.responses,
            '404': notFound(
              `No log has this name (GET /gov/v1/logs lists them), or it was created a moment ago and has no signed tree head yet${route.responses['404'] ? `; or: ${(route.responses['404'] as { description: string }).description}` : '.'}`,
            ),
          },
          handler: (services: S) => {
            const handle = route.handler(services);
            return (req: Request, res: Response) => {
              const name = req.params.log as string;
              const log = services.logs.get(name);
              if (log) return handle({ name, log }, req, res);
              return namedLog(services.logs, name, res).then((found) =>
                found ? handle({ name, log: found }, req, res) : undefined,
              );
            };
          },
        }),
      ),
      ...more,
    ],
  };
}

function listLogs(services: LogsServices) {
  return async (req: Request, res: Response) => {
    if (!parseQuery(req, res, NO_QUERY)) return;
    const logs = await services.logs.list();
    const entries = await Promise.all(
      logs.map(async (description) => {
        const log = await services.logs.find(description.name).catch((error: unknown) => {
          // Created a moment ago: listed, at size 0, until its first head is signed.
          if (error instanceof LogNotSignedError) return null;
          throw error;
        });
        return {
          name: description.name,
          kind: description.kind,
          origin: description.origin,
          verifier_key: log?.verifierKey ?? description.verifierKey,
          tenant_id: description.tenantId,
          url: logUrlOf(services.config.publicUrl, description.name),
          tree_size: log?.latest().sth.tree_size ?? 0,
        };
      }),
    );
    res.setHeader('Cache-Control', CACHE_LATEST);
    res.json({ logs: entries });
  };
}

/** The routes of one log, relative to its base path; each handler serves the log it is given. */
function oneLogRoutes<S extends LogServices>(extraKeys?: ExtraKeys<S>): LogRoute<S>[] {
  return [
    // The hot path, so matched first: one lookup in memory, one proof, and the JSON written by hand
    // (every value is a number or hex).
    {
      method: 'get',
      path: '/proof',
      access: PUBLIC,
      query: [
        {
          name: 'leaf_hash',
          description: 'The leaf hash H (64 lowercase hex characters).',
          schema: { type: 'string', pattern: HASH.source },
          required: true,
        },
        {
          name: 'tree_size',
          description:
            "The tree to prove against, from the leaf's index + 1 to the latest signed size; omit for the latest.",
          schema: logIntegerSchema(1),
        },
      ],
      queryReadBy: 'handler',
      tags: ['log'],
      operationId: 'getInclusionProof',
      summary: 'The Merkle inclusion proof of leaf H',
      description: LOG_QUERY_RULES,
      responses: {
        '200': logOk('The inclusion proof.', json(schema('urn:gov:response:log-proof'))),
        '400': invalidQuery(
          'leaf_hash is missing or malformed, tree_size is malformed or outside [leaf index + 1, latest signed size], or the query has other parameters.',
        ),
        '404': notFound(
          'No leaf with this hash is in the latest signed tree (a leaf just admitted appears once a tree head covering it is signed).',
        ),
        '503': logHeadsBehind,
      },
      handler: () => proof(),
    },
    {
      method: 'get',
      path: '/sth',
      access: PUBLIC,
      query: [
        {
          name: 'tree_size',
          description:
            'The tree head signed at exactly this size (404 when none was); omit for the latest. Every head the service has handed out (in a 201, as the latest STH or checkpoint) is served from then on.',
          schema: logIntegerSchema(0),
        },
      ],
      queryReadBy: 'handler',
      tags: ['log'],
      operationId: 'getSignedTreeHead',
      summary: 'The latest signed tree head, or the one signed at tree_size',
      description: LOG_QUERY_RULES,
      responses: {
        '200': logOk(
          'The signed tree head (the latest one with Cache-Control: no-cache).',
          json(schema('urn:gov:response:sth')),
        ),
        '400': invalidQuery('tree_size is malformed or the query has other parameters.'),
        '404': notFound('No tree head was signed at tree_size.'),
        '503': logHeadsBehind,
      },
      handler: () => sth(),
    },
    {
      method: 'get',
      path: '/checkpoint',
      access: PUBLIC,
      queryReadBy: 'handler',
      tags: ['log'],
      operationId: 'getCheckpoint',
      summary: 'The latest signed tree head as a C2SP tlog-tiles checkpoint (signed note)',
      description:
        'The same statement as GET sth of the same log. It takes no query parameter (any answers 400).',
      responses: {
        '200': logOk(
          'The signed checkpoint note: origin, tree size, base64 root hash, `timestamp <ISO 8601>`, a blank line, and the signature lines (the log first, then witnesses).',
          { 'text/plain': { schema: { type: 'string' } } },
          { 'Cache-Control': headerRef('CacheControl') },
        ),
      },
      handler: () => checkpoint(),
    },
    {
      method: 'get',
      path: '/leaf',
      access: PUBLIC,
      query: [
        {
          name: 'index',
          description: 'The leaf index N, from 0.',
          schema: logIntegerSchema(0),
          required: true,
        },
      ],
      queryReadBy: 'handler',
      tags: ['log'],
      operationId: 'getLeaf',
      summary: 'The leaf at index N: its hash, type, envelope reference and record',
      description: LOG_QUERY_RULES,
      responses: {
        '200': logOk('The leaf.', json(schema('urn:gov:response:log-leaf'))),
        '400': invalidQuery('index is missing or malformed, or the query has other parameters.'),
        '404': notFound('index is not in the latest signed tree.'),
        '503': readModelsBehind, // also when this process had not read the newest heads in time
      },
      handler: () => leaf(),
    },
    {
      method: 'get',
      path: '/consistency',
      access: PUBLIC,
      query: [
        {
          name: 'from',
          description: 'The older tree size M, at least 1.',
          schema: logIntegerSchema(1),
          required: true,
        },
        {
          name: 'to',
          description: 'The newer tree size N, from M to the latest signed size; omit for the latest.',
          schema: logIntegerSchema(1),
        },
      ],
      queryReadBy: 'handler',
      tags: ['log'],
      operationId: 'getConsistencyProof',
      summary: 'The consistency proof between tree sizes M and N',
      description: LOG_QUERY_RULES,
      responses: {
        '200': logOk('The consistency proof.', json(schema('urn:gov:response:log-consistency'))),
        '400': invalidQuery(
          'from or to is missing, malformed or outside 1 ≤ from ≤ to ≤ latest signed size.',
        ),
        '503': logHeadsBehind,
      },
      handler: () => consistency(),
    },
    {
      method: 'get',
      path: '/keys',
      access: PUBLIC,
      queryReadBy: 'handler',
      tags: ['log'],
      operationId: 'getLogKeys',
      summary: 'The public keys that verify the log, the envelopes and the certificates',
      description:
        'Takes no query parameters. The current keys, and under `retired` the keys retired by rotations (`gov keys rotate`): a signed tree head, envelope or vote made before a rotation verifies under a retired key. Keys are read when the server starts.',
      responses: {
        '200': logOk('The keys.', json(schema('urn:gov:response:log-keys'))),
        '400': invalidQuery('The query has parameters.'),
      },
      handler: keys(extraKeys),
    },
    // C2SP tlog-tiles: tile/<L>/<N>[.p/<W>] and tile/entries/<N>[.p/<W>]. Any path that is not
    // canonical is simply not found; a query is refused, as everywhere.
    {
      method: 'get',
      path: '/tile/*path',
      access: PUBLIC,
      params: [
        {
          name: 'path',
          description:
            'The tile path after `tile/`, slashes included, e.g. `0/x001/234`, `1/000.p/3`, `entries/000`.',
          schema: { type: 'string' },
        },
      ],
      queryReadBy: 'handler',
      tags: ['log'],
      operationId: 'getTile',
      summary: 'C2SP tlog-tiles static resources: hash tiles and entry bundles',
      description: `The path continues over several segments (it cannot be expressed as one OpenAPI path parameter): \`tile/<L>/<N>[.p/<W>]\` for a hash tile of level L, \`tile/entries/<N>[.p/<W>]\` for an entry bundle (each record’s RFC 8785 canonical JSON, the bytes its leaf hash covers). N is written in zero-padded 3-digit groups, all but the last prefixed with x (\`tile/0/x001/234\`); \`.p/<W>\` is a partial tile of width W < ${TILE_WIDTH}. Every tile and bundle is immutable, partial ones too (their width is in the path), and is served with \`Cache-Control: ${CACHE_IMMUTABLE}\`. Entry bundles of ${GZIP_MIN_BYTES / 1024} KiB or more are gzipped when the request sends Accept-Encoding with gzip. It takes no query parameter (any answers 400).`,
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
        '503': logHeadsBehind,
      },
      handler: () => tile(),
    },
  ];
}

/**
 * The keys a verifier needs beyond the log key: the envelope authority's and the validators'. Retired
 * log keys are the shared log's (the only log rotated so far).
 */
export function verifierKeys(
  services: Pick<GovernanceServices, 'admission' | 'publishedKeys'>,
  log: LogName = SHARED_LOG_NAME,
) {
  const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' }).toString('base64');
  const { authority, validators } = services.admission;
  return {
    authority: {
      node_id: authority.nodeId,
      algorithm: 'Ed25519',
      public_key_spki: spki(authority.publicKey),
    },
    validators: validators.map((validator) => ({
      validator_id: validator.id,
      algorithm: 'Ed25519',
      public_key_spki: validator.publicKey ? spki(validator.publicKey) : null,
    })),
    // Keys retired by `gov keys rotate`: what was signed before a rotation verifies under them.
    retired: withoutOtherLogsKeys(retiredKeysAnswer(services.publishedKeys), log),
  };
}

function withoutOtherLogsKeys<R extends { log: unknown[] }>(retired: R, log: LogName): R {
  return log === SHARED_LOG_NAME ? retired : { ...retired, log: [] };
}

export interface LogRoutesOptions {
  /** More public keys for `GET /keys`, as `logRouteGroup` takes them. */
  extraKeys?: () => object | Promise<object>;
}

/** The public log's router on its own, for `app.use('/gov/v1/log', …)` (tests, the audit's stand-in log). */
export function logRoutes(log: PublishedLog, options: LogRoutesOptions = {}): Router {
  const { extraKeys } = options;
  return groupRouter(logRouteGroup(extraKeys && (() => extraKeys())), { log });
}

/** Every log's routers on their own (`/gov/v1/log` and `/gov/v1/logs`), for tests. */
export function logsRoutes(
  services: LogsServices,
  options: LogRoutesOptions = {},
): { log: Router; logs: Router } {
  const { extraKeys } = options;
  const extra = extraKeys && (() => extraKeys());
  return {
    log: groupRouter(logRouteGroup(extra), services),
    logs: groupRouter(logsRouteGroup(extra), services),
  };
}

/** Every answer is CORS-enabled, and a browser's preflight is answered here. */
function cors(req: Request, res: Response, next: NextFunction) {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method !== 'OPTIONS') return next();
  // CORS preflight (a browser sends one when the request carries e.g. Cache-Control).
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  const asked = req.headers['access-control-request-headers'];
  if (asked) res.setHeader('Access-Control-Allow-Headers', asked);
  res.setHeader('Access-Control-Max-Age', '86400');
  res.status(204).end();
}

function proof(): LogHandler {
  return async ({ name, log }, req, res) => {
    const query = parseQuery(req, res, PROOF_QUERY);
    if (!query) return;
    const hash = query.leaf_hash;
    let latest = log.latest().sth.tree_size;
    let index = log.leafIndexByHash(hash);
    if (index === null || (query.tree_size ?? 0) > latest) {
      latest = (await log.caughtUp()).sth.tree_size;
      index = log.leafIndexByHash(hash);
    }
    if (index === null || index >= latest) {
      sendError(
        res,
        404,
        'NOT_FOUND',
        `no leaf with hash ${hash} is in the latest signed tree (size ${latest}); a leaf just admitted appears once a tree head covering it is signed`,
      );
      return;
    }
    const size = query.tree_size ?? latest;
    if (size <= index || size > latest) {
      const range = `between ${index + 1} and ${latest}`;
      sendError(
        res,
        400,
        'INVALID_REQUEST',
        `tree_size must be ${range}: the leaf's index (${index}) + 1 and the latest signed tree size`,
        { fields: [{ pointer: 'query/tree_size', reason: `must be ${range}` }] },
      );
      return;
    }
    sendJson(res, inclusionProofJson(log, name, hash, index, size));
  };
}

function sth(): LogHandler {
  // The latest head's JSON, written once per head (each head is one log's).
  const written = new WeakMap<PublishedTreeHead, string>();
  return async ({ name, log }, req, res) => {
    const query = parseQuery(req, res, STH_QUERY);
    if (!query) return;
    const head = log.latest();
    if (query.tree_size === undefined) {
      let body = written.get(head);
      if (body === undefined) {
        body = JSON.stringify({ log: name, ...head.sth });
        written.set(head, body);
      }
      res.setHeader('Cache-Control', CACHE_LATEST);
      sendJson(res, body);
      return;
    }
    const size = query.tree_size;
    const latest = await coveringSize(log, (signed) => size <= signed);
    const pinned = size <= latest ? await log.treeHeadAt(size) : null;
    if (!pinned) {
      sendError(
        res,
        404,
        'NOT_FOUND',
        `no tree head was signed at size ${size}; the latest signed size is ${latest} (omit tree_size for the latest)`,
      );
      return;
    }
    res.json({ log: name, ...pinned.sth });
  };
}

function checkpoint(): LogHandler {
  return ({ log }, req, res) => {
    if (!parseQuery(req, res, NO_QUERY)) return;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Cache-Control', CACHE_LATEST);
    res.send(log.latest().checkpoint);
  };
}

function leaf(): LogHandler {
  return async ({ name, log }, req, res) => {
    const query = parseQuery(req, res, LEAF_QUERY);
    if (!query) return;
    const index = query.index;
    const size = await coveringSize(log, (signed) => index < signed);
    const leaf = index < size ? await log.leafByIndex(index) : null;
    if (!leaf) {
      sendError(res, 404, 'NOT_FOUND', `leaf ${index} is not in the latest signed tree: ${sizeRange(size)}`);
      return;
    }
    const payloadUri = (leaf.record as { payload_uri?: unknown }).payload_uri;
    res.json({
      log: name,
      leaf_index: leaf.leaf_index,
      leaf_hash: leaf.leaf_hash,
      leaf_type: leaf.leaf_type,
      artifact_hash: leaf.artifact_hash,
      payload_uri: typeof payloadUri === 'string' ? payloadUri : null,
      record: leaf.record,
      tree_size: size,
    });
  };
}

function consistency(): LogHandler {
  return async ({ name, log }, req, res) => {
    const query = parseQuery(req, res, CONSISTENCY_QUERY);
    if (!query) return;
    const latest = await coveringSize(log, (signed) => (query.to ?? 0) <= signed && query.from <= signed);
    const from = query.from;
    const to = query.to ?? latest;
    const fields: FieldProblem[] = [];
    if (from < 1) {
      fields.push({
        pointer: 'query/from',
        reason: 'must be at least 1: RFC 9162 defines no consistency proof from the empty tree',
      });
    } else if (from > to) {
      fields.push({ pointer: 'query/from', reason: `must not exceed to (${to})` });
    }
    if (to > latest) {
      fields.push({ pointer: 'query/to', reason: `must be at most ${latest}, the latest signed tree size` });
    }
    if (fields.length > 0) {
      sendError(
        res,
        400,
        'INVALID_REQUEST',
        `from and to must satisfy 1 ≤ from ≤ to ≤ ${latest} (the latest signed tree size): ${summary(fields)}`,
        { fields },
      );
      return;
    }
    const head = log.latest().sth;
    const rootTo = to === head.tree_size ? head.root_hash : hex(log.root(to));
    const rootFrom = from === to ? rootTo : hex(log.root(from));
    const proof = from === to ? '[]' : hexArray(log.consistencyProof(from, to));
    sendJson(
      res,
      `{"log":${JSON.stringify(name)},"from":${from},"to":${to},"root_from":"${rootFrom}","root_to":"${rootTo}","proof":${proof}}`,
    );
  };
}

function keys<S extends LogServices>(extraKeys?: ExtraKeys<S>) {
  return (services: S): LogHandler =>
    async ({ name, log }, req, res) => {
      if (!parseQuery(req, res, NO_QUERY)) return;
      const extra = extraKeys ? await extraKeys(services, name) : {};
      res.json(Object.assign({ log: log.verifierKey }, extra, { log: log.verifierKey }));
    };
}

function tile(): LogHandler {
  return async ({ log }, req, res) => {
    if (!parseQuery(req, res, NO_QUERY)) return;
    // From `tile/` on: the path below a log's base (its name is one segment, never `tile`).
    const path = req.path.slice(req.path.indexOf('/tile/') + 1);
    const tile = parseTilePath(path);
    if (!tile) {
      sendError(
        res,
        404,
        'NOT_FOUND',
        `${path} is not a tile path: use tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>] with N in zero-padded 3-digit groups, all but the last prefixed with x (tile/0/x001/234)`,
      );
      return;
    }
    const { level, index, width, entries } = tile;
    // Hashes at the tile's level covered by the signed tree: a tile exists when it fits within them.
    const fits = (size: number) => index * TILE_WIDTH + width <= Math.floor(size / TILE_WIDTH ** level);
    const size = await coveringSize(log, fits);
    if (!fits(size)) {
      sendError(
        res,
        404,
        'NOT_FOUND',
        `${path} is not covered by the latest signed tree (size ${size}); fetch /checkpoint and derive tile widths from its size`,
      );
      return;
    }
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Cache-Control', CACHE_IMMUTABLE);
    if (!entries) {
      res.send(asBuffer(log.tile(level, index, width)));
      return;
    }
    const bundle = asBuffer(await entryBundle(log, index * TILE_WIDTH, width));
    res.setHeader('Vary', 'Accept-Encoding');
    // Only on an explicit Accept-Encoding: a client that sends none (curl) gets the raw bundle.
    const compress =
      bundle.length >= GZIP_MIN_BYTES &&
      req.headers['accept-encoding'] !== undefined &&
      req.acceptsEncodings('gzip', 'identity') === 'gzip';
    if (compress) {
      res.setHeader('Content-Encoding', 'gzip');
      res.send(await gzip(bundle));
      return;
    }
    res.send(bundle);
  };
}

/**
 * The tlog-tiles entry bundle of leaves [first, first + width): each record's canonical JSON, the
 * very bytes its leaf hash covers. A record that does not hash to its leaf is a broken store; serving
 * it would hand clients a bundle that fails verification, so it is an internal error instead.
 */
async function entryBundle(log: PublishedLog, first: number, width: number): Promise<Uint8Array> {
  const leaves: Promise<LeafView | null>[] = [];
  for (let i = 0; i < width; i++) leaves.push(log.leafByIndex(first + i));
  const data = (await Promise.all(leaves)).map((leaf, i) => {
    const index = first + i;
    if (!leaf) throw new Error(`published log has no leaf ${index} within its signed size`);
    const bytes = leafDataOfRecord(leaf.record);
    if (!bytesEqual(leafHash(bytes), log.leafHash(index))) {
      throw new Error(`record of leaf ${index} does not hash to its leaf hash`);
    }
    return bytes;
  });
  return encodeEntryBundle(data);
}

// ---- Query parameters ------------------------------------------------------------------------------

type ParamKind = 'integer' | 'hash';
interface ParamSpec {
  readonly kind: ParamKind;
  readonly required: boolean;
}
export type QuerySpec = Readonly<Record<string, ParamSpec>>;
type ParsedQuery<S extends QuerySpec> = {
  -readonly [K in keyof S]:
    | (S[K]['kind'] extends 'hash' ? string : number)
    | (S[K]['required'] extends true ? never : undefined);
};

export const int = <R extends boolean>(required: R) => ({ kind: 'integer', required }) as const;
const hash = <R extends boolean>(required: R) => ({ kind: 'hash', required }) as const;

const NO_QUERY = {} as const satisfies QuerySpec;
const STH_QUERY = { tree_size: int(false) } as const satisfies QuerySpec;
const LEAF_QUERY = { index: int(true) } as const satisfies QuerySpec;
const PROOF_QUERY = { leaf_hash: hash(true), tree_size: int(false) } as const satisfies QuerySpec;
const CONSISTENCY_QUERY = { from: int(true), to: int(false) } as const satisfies QuerySpec;

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;
const HASH = /^[0-9a-f]{64}$/;
const INTEGER_REASON = 'must be a non-negative decimal integer without sign, exponent or leading zeros';
const HASH_REASON = 'must be a SHA-256 hash: 64 lowercase hexadecimal characters';

/**
 * Reads the query string strictly against `spec`: every parameter known, given once, well formed.
 * On any problem it answers 400 INVALID_REQUEST listing them all and returns undefined.
 */
export function parseQuery<S extends QuerySpec>(
  req: Request,
  res: Response,
  spec: S,
): ParsedQuery<S> | undefined {
  const url = req.url;
  const mark = url.indexOf('?');
  const parsed: Record<string, string | number> = {};
  let problems: FieldProblem[] | undefined;
  const problem = (name: string, reason: string): void => {
    const pointer = `query/${escapePointer(name)}`;
    problems ??= [];
    if (!problems.some((p) => p.pointer === pointer && p.reason === reason))
      problems.push({ pointer, reason });
  };
  const seen = new Set<string>();
  if (mark >= 0) {
    for (const part of url.slice(mark + 1).split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = decodeQueryComponent(eq < 0 ? part : part.slice(0, eq));
      const value = decodeQueryComponent(eq < 0 ? '' : part.slice(eq + 1));
      if (name === undefined || value === undefined) {
        problem(name ?? part, 'is not valid percent-encoded UTF-8');
        continue;
      }
      const param = Object.hasOwn(spec, name) ? spec[name] : undefined;
      if (!param) {
        problem(name, unknownParameterReason(Object.keys(spec)));
        continue;
      }
      if (seen.has(name)) {
        problem(name, 'is given more than once; give it once');
        continue;
      }
      seen.add(name);
      if (param.kind === 'hash') {
        if (HASH.test(value)) parsed[name] = value;
        else problem(name, `${HASH_REASON}${got(value)}`);
      } else if (!DECIMAL.test(value)) {
        problem(name, `${INTEGER_REASON}${got(value)}`);
      } else if (value.length > 16 || Number(value) > Number.MAX_SAFE_INTEGER) {
        problem(name, `must be at most ${Number.MAX_SAFE_INTEGER}${got(value)}`);
      } else {
        parsed[name] = Number(value);
      }
    }
  }
  for (const name in spec) {
    if (spec[name]!.required && !seen.has(name)) problem(name, 'is required');
  }
  if (problems) {
    sendError(res, 400, 'INVALID_REQUEST', `the query is invalid: ${summary(problems)}`, {
      fields: problems,
    });
    return undefined;
  }
  return parsed as ParsedQuery<S>;
}

function decodeQueryComponent(text: string): string | undefined {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

function got(value: string): string {
  return value === ''
    ? ' (it is empty)'
    : ` (got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)})`;
}

function summary(fields: readonly FieldProblem[]): string {
  return fields.map((f) => `${f.pointer} ${f.reason}`).join('; ');
}

/**
 * The latest signed size when `covers` it (the size or leaf asked for is within it), else the latest
 * once this process has read every head the store holds: another process may have handed a newer
 * head out, which a 404 must not deny.
 */
async function coveringSize(log: PublishedLog, covers: (signedSize: number) => boolean): Promise<number> {
  const size = log.latest().sth.tree_size;
  return covers(size) ? size : (await log.caughtUp()).sth.tree_size;
}

function sizeRange(size: number): string {
  return size === 0 ? 'the log has no signed leaves yet' : `indexes run from 0 to ${size - 1}`;
}

// ---- Output ----------------------------------------------------------------------------------------

/** The body of `GET /proof`: leaf `index` (hash `leafHashHex`) of log `name` in its signed tree of `size`. */
export function inclusionProofJson(
  log: PublishedLog,
  name: LogName,
  leafHashHex: string,
  index: number,
  size: number,
): string {
  const sth = log.latest().sth;
  const root = size === sth.tree_size ? sth.root_hash : hex(log.root(size));
  return `{"log":${JSON.stringify(name)},"leaf_index":${index},"leaf_hash":"${leafHashHex}","tree_size":${size},"root_hash":"${root}","audit_path":${hexArray(log.inclusionProof(index, size))}}`;
}

function sendJson(res: Response, json: string): void {
  res.setHeader('Content-Type', JSON_TYPE);
  res.send(json);
}

/** A Buffer over the same memory (no copy). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function hex(bytes: Uint8Array): string {
  return asBuffer(bytes).toString('hex');
}

/** A JSON array of lowercase hex strings. */
function hexArray(hashes: readonly Uint8Array[]): string {
  if (hashes.length === 0) return '[]';
  let out = '["';
  for (let i = 0; i < hashes.length; i++) out += (i === 0 ? '' : '","') + hex(hashes[i]!);
  return `${out}"]`;
}
