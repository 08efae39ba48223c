/**
 * A service's routes as data. Each route says its method and path, who may call it, the path and
 * query parameters and the body it takes (by JSON Schema id), what it answers, and its handler; the
 * Express registration, the checks in front of each handler, and the OpenAPI `paths` are all made
 * from that, so what is served and what is documented come from the same lines.
 */
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  Router,
  type RouterOptions,
} from 'express';
import type { CommandName } from '../../event-schemas';
import { requireNoBody } from './no-body';
import {
  type Documented,
  type DocumentSettings,
  documented,
  type Json,
  json,
  responseRef,
  type SchemaId,
  schema,
} from './openapi-parts';
import { takesNoQuery, takesQuery } from './query';
import { validateBody } from './validate-body';

type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** Who may call a route: the middleware that admits the caller, and what the document says of it. */
export interface Access<S> {
  /** Run before anything else: who the caller is (authentication, rate limit). */
  admit?: (services: S) => RequestHandler[];
  /**
   * What the admitted caller must also be (the tenant's current key, a tier). A read checks it
   * before its query, a command after its query: the order the routes always had, so a request wrong
   * in two ways keeps its answer.
   */
  require?: RequestHandler;
  /** The OpenAPI security requirements. */
  security: readonly Json[];
  /** The statuses every route with this access may answer besides its own. */
  responses: Readonly<Record<string, Documented<Json>>>;
}

/** Anyone, without credentials. */
export const PUBLIC: Access<unknown> = { security: [], responses: {} };

export interface PathParameter {
  name: string;
  description: string;
  schema: Json;
  /** Middleware that refuses a malformed value before the handler runs; none when the handler checks it. */
  check?: RequestHandler;
}

interface QueryParameter {
  name: string;
  description: string;
  schema: Json;
  required?: boolean;
}

/**
 * A route's body: a command (validated against its JSON Schema), or `none` (only none or `{}` passes).
 * `form`: also taken as an HTML form's fields (application/x-www-form-urlencoded), validated against the
 * same schema; a field sent twice is an array, which a string member refuses.
 */
type RouteBody = { command: CommandName; description: string; form?: true } | 'none';

export interface Route<S> {
  method: HttpMethod;
  /** Express path relative to the group's mount: `:name` is one segment, `*name` the rest of the path. */
  path: string;
  access: Access<S>;
  params?: readonly PathParameter[];
  /** The query parameters it takes; any other answers 400 INVALID_REQUEST. None when absent. */
  query?: readonly QueryParameter[];
  /**
   * `handler`: the handler reads the query itself, names and values, and answers what is wrong with
   * it. Otherwise the route refuses a parameter it does not take before the handler runs.
   */
  queryReadBy?: 'handler';
  /** Absent: the body is not looked at. */
  body?: RouteBody;
  /** Middleware after every check, just before the handler (the per-address registration limit). */
  use?: (services: S) => RequestHandler[];
  /**
   * Which process of a split deployment serves it: by default the read API serves GETs and the
   * command API everything else; `both` for the operations routes every process serves.
   */
  side?: 'both';
  tags: readonly string[];
  operationId: string;
  summary: string;
  description?: Documented<string>;
  /** Its own answers, by status; they replace those its access and body imply. */
  responses: Readonly<Record<string, Documented<Json>>>;
  /**
   * Called once, when the route is registered: the request handler, with what it keeps across
   * requests. (Express 5 sends a rejected handler promise to the error handler.)
   */
  handler: (services: S) => RequestHandler;
}

/** Routes that share a mount point (and a router). */
export interface RouteGroup<S> {
  /** Where its router is mounted: `/` for the root. */
  mount: string;
  router?: RouterOptions;
  /** Middleware for every request under `mount`, matched or not, before any route. */
  use?: (services: S) => RequestHandler[];
  routes: readonly Route<S>[];
}

/** A service's routes, group by group, in the order they are matched. */
export type RouteTable<S> = readonly RouteGroup<S>[];

type ServingSide = 'commands' | 'reads' | 'both';

export function sideOf(route: Route<never>): ServingSide {
  return route.side ?? (route.method === 'get' ? 'reads' : 'commands');
}

/**
 * The group's router, with the routes `serves` keeps. In front of each handler, in this order: the
 * access's admission, the query check (a read checks its access's requirement first, a command after),
 * the path parameters, the body, then the route's own middleware. Everything is built here, once;
 * a request runs only the checks its route has.
 */
export function groupRouter<S>(
  group: RouteGroup<S>,
  services: S,
  serves: (route: Route<S>) => boolean = () => true,
): Router {
  const router = Router(group.router);
  for (const middleware of group.use?.(services) ?? []) router.use(middleware);
  const admissions = new Map<Access<S>, RequestHandler[]>();
  for (const route of group.routes) {
    if (!serves(route)) continue;
    const { access } = route;
    let admit = admissions.get(access);
    if (!admit) {
      admit = access.admit?.(services) ?? [];
      admissions.set(access, admit);
    }
    const required = access.require ? [access.require] : [];
    const read = route.method === 'get';
    router[route.method](
      route.path,
      ...admit,
      ...(read ? required : []),
      ...queryCheck(route),
      ...(read ? [] : required),
      ...(route.params ?? []).flatMap((param) => (param.check ? [param.check] : [])),
      ...bodyCheck(route.body),
      ...(route.use?.(services) ?? []),
      route.handler(services),
    );
  }
  return router;
}

function queryCheck(route: Route<never>): RequestHandler[] {
  if (route.queryReadBy === 'handler') return [];
  const names = (route.query ?? []).map((param) => param.name);
  return [names.length === 0 ? takesNoQuery : takesQuery(...names)];
}

function bodyCheck(body: RouteBody | undefined): RequestHandler[] {
  if (body === undefined) return [];
  if (body === 'none') return [requireNoBody];
  return [...(body.form ? [FORM_PARSER, plainFormFields] : []), validateBody(body.command)];
}

/** A form's fields are a few short strings: a larger form is no form any page of the API sends. */
const FORM_PARSER = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });

/** The parser's fields are an object without a prototype; the schema check expects a plain one. */
function plainFormFields(req: Request, _res: Response, next: NextFunction): void {
  if (req.is('application/x-www-form-urlencoded') && req.body) req.body = { ...req.body };
  next();
}

// ---- OpenAPI -----------------------------------------------------------------------------------------

/** The path of an Express route as an OpenAPI template: `:id` and `*path` become `{id}` and `{path}`. */
function openApiTemplate(mount: string, path: string): string {
  // A group's own root (`/` under `/gov/v1/logs`) is the mount's path itself.
  const own = mount !== '/' && path === '/' ? '' : path;
  return `${mount === '/' ? '' : mount}${own}`.replace(/\/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '/{$1}');
}

/** The shared body parser's answers, on every route that reads a body. */
const BODY_PARSER: Readonly<Record<string, Json>> = {
  '413': responseRef('PayloadTooLarge'),
  '415': responseRef('UnsupportedMediaType'),
};

/**
 * The OpenAPI 3.1 `paths` of a table, one operation per route. Schemas are referenced by `$id`
 * (`urn:gov:…`); the document points each at its component.
 */
export function openApiPaths(table: RouteTable<never>, settings: DocumentSettings): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const group of table) {
    for (const route of group.routes) {
      const template = openApiTemplate(group.mount, route.path);
      paths[template] = { ...paths[template], [route.method]: operationOf(route, settings) };
    }
  }
  return paths;
}

function bodyContent(body: { command: CommandName; form?: true }): Json {
  const command = schema(`urn:gov:command:${body.command}` satisfies SchemaId);
  return {
    ...json(command),
    ...(body.form ? { 'application/x-www-form-urlencoded': { schema: command } } : {}),
  };
}

function operationOf(route: Route<never>, settings: DocumentSettings): Json {
  const parameters = [
    ...(route.params ?? []).map(({ name, description, schema }) => ({
      name,
      in: 'path',
      required: true,
      description,
      schema,
    })),
    ...(route.query ?? []).map(({ name, description, schema, required = false }) => ({
      name,
      in: 'query',
      required,
      description,
      schema,
    })),
  ];
  const responses: Record<string, Documented<Json>> = {
    ...route.access.responses,
    ...(route.body === undefined ? {} : BODY_PARSER),
    '500': responseRef('InternalError'),
    ...route.responses,
  };
  return {
    tags: [...route.tags],
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: documented(route.description, settings) }),
    security: [...route.access.security],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body === undefined || route.body === 'none'
      ? {}
      : {
          requestBody: {
            required: true,
            description: route.body.description,
            content: bodyContent(route.body),
          },
        }),
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, response]) => [status, documented(response, settings)]),
    ),
  };
}
