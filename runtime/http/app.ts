/**
 * The HTTP application of a route table: correlation ids, request durations and the JSON body parser
 * in front of the table's routers, then the 405 and 404 answers of unmatched requests and the error
 * handler. Which table and services: runtime/wiring/http-app.ts.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Histogram } from 'prom-client';
import type { Config } from '../config/config';
import { requireUtf8 } from './body-encoding';
import { correlation } from './correlation';
import {
  type ErrorDialect,
  type HttpError,
  sendError,
  sendErrorAnswer,
  sendInvalid,
  serverErrorAnswer,
} from './errors';
import { type MountedRouter, matchingRouters, methodsAt } from './route-methods';
import { groupRouter, type Route, type RouteTable, sideOf } from './route-table';

/**
 * Which routes a process serves: `all` in the embedded server; in the production topology the
 * command API serves the commands (every non-GET route) and the read API the reads (every GET route),
 * so a gateway routes by method. Both serve /health, /v1/metrics and /v1/version.
 */
export type ServedSide = 'all' | 'commands' | 'reads';

/** What the application itself uses, whichever routes it serves. */
export interface AppServices {
  config: Pick<Config, 'trustProxyHops' | 'maxBodyBytes'>;
  logger: Logger;
  metrics: { httpRequests: Pick<Histogram<'method' | 'route' | 'status'>, 'startTimer'> };
}

/**
 * The application serving the routes of `table` that `side` serves (`ops`: every route of the table,
 * in a process that serves no API: projectors, dispatcher).
 */
export function tableApp<S extends AppServices>(
  table: RouteTable<S>,
  services: S,
  side: ServedSide | 'ops',
  options: {
    errors?: ErrorDialect;
    /** Where request durations go (default `metrics.httpRequests`): each service its own series. */
    requestDurations?: AppServices['metrics']['httpRequests'];
  } = {},
): express.Express {
  const app = baseApp(services, options.errors, options.requestDurations ?? services.metrics.httpRequests);
  const serves = (route: Route<S>) => {
    const served = sideOf(route);
    return side === 'all' || side === 'ops' || served === 'both' || served === side;
  };
  // A group with no route served here is not mounted: its own middleware (the log's CORS) stays off too.
  const mounted = table
    .filter((group) => group.routes.some(serves))
    .map((group) => ({ mount: group.mount, router: groupRouter(group, services, serves) }));
  // Path-mounted routers (the public log) first: its proof and tile routes are the hottest, and a
  // path-mounted router is skipped at once by every other request.
  for (const { mount, router } of mounted) if (mount !== '/') app.use(mount, router);
  // Express answers OPTIONS on any routed path itself (200 and an Allow header); only the public log
  // serves CORS preflight (above), so elsewhere in the API OPTIONS is an unmatched method like any other.
  if (side !== 'ops') {
    app.use((req: Request, res: Response, next: NextFunction) =>
      req.method === 'OPTIONS' ? noRoute(req, res, side) : next(),
    );
  }
  for (const { mount, router } of mounted) if (mount === '/') app.use(router);
  // Every route, served here or not: a path's methods are those of the whole API (see `unmatched`).
  return finish(app, services, side, matchingRouters(table));
}

function baseApp(
  services: AppServices,
  errors: ErrorDialect | undefined,
  durations: AppServices['metrics']['httpRequests'],
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (errors) {
    app.use((_req: Request, res: Response, next: NextFunction) => {
      res.locals.errorDialect = errors;
      next();
    });
  }
  // req.ip: the connection's address, or that many X-Forwarded-For hops back behind trusted proxies.
  app.set('trust proxy', services.config.trustProxyHops);
  app.use(correlation(services.logger));
  app.use(recordDuration(durations));
  app.use(
    express.json({
      limit: services.config.maxBodyBytes,
      strict: true,
      type: ['application/json', 'application/*+json'],
      verify: requireUtf8,
    }),
  );
  return app;
}

const NOT_SERVED_HERE: Record<ServedSide | 'ops', string> = {
  all: '',
  commands: ' here: this is the command API, which serves every non-GET route; reads go to the read API',
  reads: ' here: this is the read API, which serves every GET route; commands go to the command API',
  ops: ' here: this process serves only /health, /v1/metrics and /v1/version',
};

function finish(
  app: express.Express,
  services: AppServices,
  side: ServedSide | 'ops',
  routers: readonly MountedRouter[],
): express.Express {
  app.use((req: Request, res: Response) => unmatched(req, res, side, routers));
  app.use(errorHandler(services));
  return app;
}

/**
 * No route here took the request. A path the API has with other methods answers 405 with an Allow
 * header of its methods (on both sides of a split deployment, so behind a gateway too); a method the
 * other side serves stays a 404 that says where it lives (a gateway routed it wrong); anything else 404.
 */
function unmatched(
  req: Request,
  res: Response,
  side: ServedSide | 'ops',
  routers: readonly MountedRouter[],
): void {
  const allowed = methodsAt(routers, req.path);
  if (allowed.length === 0 || allowed.includes(req.method)) {
    noRoute(req, res, side);
    return;
  }
  const methods = allowed.join(', ');
  res.setHeader('Allow', methods);
  sendError(res, 405, 'METHOD_NOT_ALLOWED', `${req.path} does not take ${req.method}; it takes ${methods}`);
}

function noRoute(req: Request, res: Response, side: ServedSide | 'ops'): void {
  sendError(res, 404, 'NOT_FOUND', `no route for ${req.method} ${req.path}${NOT_SERVED_HERE[side]}`);
}

function recordDuration(durations: AppServices['metrics']['httpRequests']) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = durations.startTimer();
    res.on('finish', () => {
      // The matched route pattern, never the raw path: ids in paths would explode label cardinality.
      stop({ method: req.method, route: req.route?.path ?? 'unmatched', status: String(res.statusCode) });
    });
    next();
  };
}

interface BodyParserError extends HttpError {
  type?: string;
  status?: number;
  limit?: number;
  length?: number;
}

/** Maps body-parser failures to the API's error shape; anything else is a logged 500. */
function errorHandler(services: AppServices) {
  return (error: BodyParserError, req: Request, res: Response, _next: NextFunction): void => {
    switch (error.type) {
      case 'entity.too.large':
        // A Content-Length over the limit is refused unread (`length`); a chunked body, once reading
        // passes the limit, so only that much is known.
        sendError(
          res,
          413,
          'PAYLOAD_TOO_LARGE',
          `the request body is ${error.length === undefined ? `more than ${error.limit}` : error.length} bytes; the limit is ${error.limit} bytes`,
        );
        return;
      case 'entity.parse.failed':
        sendInvalid(res, [{ pointer: '', reason: `is not valid JSON (${error.message})` }]);
        return;
      case 'encoding.invalid':
        sendInvalid(res, [{ pointer: '', reason: 'is not valid UTF-8; send the JSON body as UTF-8' }]);
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        sendError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as UTF-8 JSON');
        return;
      case 'request.aborted':
        return;
    }
    // The router could not percent-decode a path segment (`%`, `%zz`, …): no resource has that path.
    if (error instanceof URIError) {
      sendError(
        res,
        404,
        'NOT_FOUND',
        `no route for ${req.method} ${req.path}: it is not valid percent-encoding`,
      );
      return;
    }
    // Any other client error of the body parser (a body shorter than its Content-Length, …): a 400,
    // never a logged 500 (its error object may carry the raw body, which can hold secrets).
    if (error.type !== undefined && typeof error.status === 'number' && error.status < 500) {
      sendInvalid(res, [{ pointer: '', reason: `could not be read (${error.message})` }]);
      return;
    }
    if (res.headersSent) return;
    sendErrorAnswer(
      res,
      serverErrorAnswer(error, res.locals.logger ?? services.logger, res.locals.correlationId),
    );
  };
}
