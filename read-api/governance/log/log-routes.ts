/**
 * The public transparency log over HTTP (mounted at `/gov/v1/log`): JSON signed tree heads, leaves,
 * inclusion and consistency proofs, plus the C2SP tlog-tiles static resources (`checkpoint`, hash
 * tiles, entry bundles) so off-the-shelf tiles clients and witnesses can follow the log.
 *
 * Nothing here needs credentials and every answer carries `Access-Control-Allow-Origin: *`, so
 * browsers can verify the log directly. Everything served is bounded by the latest signed tree head:
 * leaves integrated but not yet signed are invisible, whatever the `PublishedLog` would answer.
 *
 * Query parameters are parsed from the raw query string here, not by Express's query parser: the
 * answer must not depend on the app's parser setting, repeated parameters must be detectable, and
 * the proof route is hot enough that building objects nobody reads matters.
 */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { type NextFunction, type Request, type Response, Router } from 'express';
import type { FieldProblem } from '../../../event-schemas';
import {
  bytesEqual,
  encodeEntryBundle,
  leafDataOfRecord,
  leafHash,
  parseTilePath,
  TILE_WIDTH,
} from '../../../merkle-core';
import type { LeafView, PublishedLog, PublishedTreeHead } from '../../../ports/log';
import { sendError } from '../../../runtime/http/errors';
import { unknownParameterReason } from '../../../runtime/http/query';

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

export interface LogRoutesOptions {
  /**
   * More public keys for `GET /keys` (e.g. `{ validators: [...], authority: '...' }`), read on each
   * request. They are merged after `log`, which they cannot replace.
   */
  extraKeys?: () => object | Promise<object>;
}

/** The public log endpoints, relative to their mount point (`/gov/v1/log`). */
export function logRoutes(log: PublishedLog, options: LogRoutesOptions = {}): Router {
  const router = Router({ caseSensitive: true, strict: true });
  let sthCache: { head: PublishedTreeHead; json: string } | undefined;

  router.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method !== 'OPTIONS') return next();
    // CORS preflight (a browser sends one when the request carries e.g. Cache-Control).
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    const asked = req.headers['access-control-request-headers'];
    if (asked) res.setHeader('Access-Control-Allow-Headers', asked);
    res.setHeader('Access-Control-Max-Age', '86400');
    res.status(204).end();
  });

  // The hot path, so matched first: one lookup in memory, one proof, and the JSON written by hand
  // (every value is a number or hex).
  router.get('/proof', async (req: Request, res: Response) => {
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
    sendJson(res, inclusionProofJson(log, hash, index, size));
  });

  router.get('/sth', async (req: Request, res: Response) => {
    const query = parseQuery(req, res, STH_QUERY);
    if (!query) return;
    const head = log.latest();
    if (query.tree_size === undefined) {
      if (sthCache?.head !== head) sthCache = { head, json: JSON.stringify(head.sth) };
      res.setHeader('Cache-Control', CACHE_LATEST);
      sendJson(res, sthCache.json);
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
    res.json(pinned.sth);
  });

  router.get('/checkpoint', (req: Request, res: Response) => {
    if (!parseQuery(req, res, NO_QUERY)) return;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Cache-Control', CACHE_LATEST);
    res.send(log.latest().checkpoint);
  });

  router.get('/leaf', async (req: Request, res: Response) => {
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
      leaf_index: leaf.leaf_index,
      leaf_hash: leaf.leaf_hash,
      leaf_type: leaf.leaf_type,
      artifact_hash: leaf.artifact_hash,
      payload_uri: typeof payloadUri === 'string' ? payloadUri : null,
      record: leaf.record,
      tree_size: size,
    });
  });

  router.get('/consistency', async (req: Request, res: Response) => {
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
      `{"from":${from},"to":${to},"root_from":"${rootFrom}","root_to":"${rootTo}","proof":${proof}}`,
    );
  });

  router.get('/keys', async (req: Request, res: Response) => {
    if (!parseQuery(req, res, NO_QUERY)) return;
    const extra = options.extraKeys ? await options.extraKeys() : {};
    res.json(Object.assign({ log: log.verifierKey }, extra, { log: log.verifierKey }));
  });

  // C2SP tlog-tiles: tile/<L>/<N>[.p/<W>] and tile/entries/<N>[.p/<W>]. Any path that is not canonical
  // is simply not found; a query is refused, as everywhere.
  router.get('/tile/*path', async (req: Request, res: Response) => {
    if (!parseQuery(req, res, NO_QUERY)) return;
    const tile = parseTilePath(req.path.slice(1));
    if (!tile) {
      sendError(
        res,
        404,
        'NOT_FOUND',
        `${req.path.slice(1)} is not a tile path: use tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>] with N in zero-padded 3-digit groups, all but the last prefixed with x (tile/0/x001/234)`,
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
        `${req.path.slice(1)} is not covered by the latest signed tree (size ${size}); fetch /checkpoint and derive tile widths from its size`,
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
  });

  return router;
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
type QuerySpec = Readonly<Record<string, ParamSpec>>;
type ParsedQuery<S extends QuerySpec> = {
  -readonly [K in keyof S]:
    | (S[K]['kind'] extends 'hash' ? string : number)
    | (S[K]['required'] extends true ? never : undefined);
};

const int = <R extends boolean>(required: R) => ({ kind: 'integer', required }) as const;
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
function parseQuery<S extends QuerySpec>(req: Request, res: Response, spec: S): ParsedQuery<S> | undefined {
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

/** The body of `GET /proof`: leaf `index` (hash `leafHashHex`) in the signed tree of `size`. */
export function inclusionProofJson(
  log: PublishedLog,
  leafHashHex: string,
  index: number,
  size: number,
): string {
  const sth = log.latest().sth;
  const root = size === sth.tree_size ? sth.root_hash : hex(log.root(size));
  return `{"leaf_index":${index},"leaf_hash":"${leafHashHex}","tree_size":${size},"root_hash":"${root}","audit_path":${hexArray(log.inclusionProof(index, size))}}`;
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
