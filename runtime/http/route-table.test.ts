import type { RequestHandler } from 'express';
import { requireNoBody } from './no-body';
import { type DocumentSettings, responseRef } from './openapi-parts';
import { takesNoQuery } from './query';
import {
  type Access,
  groupRouter,
  openApiPaths,
  PUBLIC,
  type Route,
  type RouteGroup,
  sideOf,
} from './route-table';

type Services = { name: string };

const named = (name: string): RequestHandler => {
  const handler: RequestHandler = (_req, _res, next) => next();
  Object.defineProperty(handler, 'name', { value: name });
  return handler;
};
const admitted = named('admit');
const required = named('require');
const idChecked = named('check id');
const limited = named('limit');
const handled = named('handler');

const KEY: Access<Services> = {
  admit: () => [admitted],
  require: required,
  security: [{ bearer: [] }],
  responses: { '401': responseRef('Unauthorized'), '403': { description: 'not allowed' } },
};

const base = {
  access: KEY,
  params: [{ name: 'id', description: 'The thing.', schema: { type: 'string' }, check: idChecked }],
  tags: ['things'],
  summary: 'A thing',
  responses: { '200': { description: 'ok' } },
  handler: () => handled,
} as const;

const routes: Route<Services>[] = [
  { ...base, method: 'get', path: '/things/:id', operationId: 'getThing' },
  {
    ...base,
    method: 'post',
    path: '/things/:id',
    operationId: 'changeThing',
    body: 'none',
    use: () => [limited],
    responses: { '200': { description: 'changed' }, '403': { description: 'its own 403' } },
  },
  {
    ...base,
    method: 'delete',
    path: '/things/:id',
    operationId: 'deleteThing',
    access: PUBLIC,
    side: 'both',
    query: [{ name: 'force', description: 'Even so.', schema: { type: 'boolean' } }],
    queryReadBy: 'handler',
    description: (settings) => `waits ${settings.integrationTimeoutMs} ms`,
  },
];
const group: RouteGroup<Services> = { mount: '/v1', routes };

/** Each route's middleware and handler, in the order the router runs them. */
function chains(router: ReturnType<typeof groupRouter>): Record<string, RequestHandler[]> {
  const stack = router.stack as unknown as {
    route: { methods: Record<string, boolean>; stack: { handle: RequestHandler }[] };
  }[];
  return Object.fromEntries(
    stack.map((layer) => [
      Object.keys(layer.route.methods).find((m) => m !== '_all'),
      layer.route.stack.map((l) => l.handle),
    ]),
  );
}

describe('a route table', () => {
  it('given a read, when registered, then admission, requirement, query, path checks, handler', () => {
    expect(chains(groupRouter(group, { name: 's' })).get).toEqual([
      admitted,
      required,
      takesNoQuery,
      idChecked,
      handled,
    ]);
  });

  it('given a command, then its query is checked before the requirement, then the body, its own middleware, the handler', () => {
    expect(chains(groupRouter(group, { name: 's' })).post).toEqual([
      admitted,
      takesNoQuery,
      required,
      idChecked,
      requireNoBody,
      limited,
      handled,
    ]);
  });

  it('given a handler that reads the query and a public route, then neither query check nor admission', () => {
    expect(chains(groupRouter(group, { name: 's' })).delete).toEqual([idChecked, handled]);
  });

  it('registers only the routes `serves` keeps, and each handler and admission is made once with the services', () => {
    const made: string[] = [];
    const access: Access<Services> = {
      ...KEY,
      admit: (services) => {
        made.push(`admission for ${services.name}`);
        return [admitted];
      },
    };
    const counted: Route<Services>[] = [...routes, { ...routes[0]!, path: '/others/:id' }].map((route) => ({
      ...route,
      access: route.access === KEY ? access : route.access,
      handler: (services) => {
        made.push(`${route.method} ${route.path} for ${services.name}`);
        return handled;
      },
    }));
    const router = groupRouter(
      { mount: '/', routes: counted },
      { name: 'mine' },
      (r) => sideOf(r) !== 'commands',
    );
    expect(chains(router).post).toBeUndefined();
    expect(made).toEqual([
      'admission for mine',
      'get /things/:id for mine',
      'delete /things/:id for mine',
      'get /others/:id for mine',
    ]);
  });

  it('says which side serves a route: GETs the reads, the rest the commands, unless both', () => {
    expect(routes.map(sideOf)).toEqual(['reads', 'commands', 'both']);
  });

  it('writes the OpenAPI paths: templates, parameters, security, the answers of access and body, its own over those', () => {
    const settings = { integrationTimeoutMs: 1234 } as DocumentSettings;
    const paths = openApiPaths([group], settings);
    expect(Object.keys(paths)).toEqual(['/v1/things/{id}']);
    const item = paths['/v1/things/{id}'] as Record<string, Record<string, unknown>>;
    expect(item.get).toEqual({
      tags: ['things'],
      operationId: 'getThing',
      summary: 'A thing',
      security: [{ bearer: [] }],
      parameters: [
        { name: 'id', in: 'path', required: true, description: 'The thing.', schema: { type: 'string' } },
      ],
      responses: {
        '200': { description: 'ok' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '403': { description: 'not allowed' },
        '500': { $ref: '#/components/responses/InternalError' },
      },
    });
    expect(item.post!.responses).toEqual({
      '200': { description: 'changed' },
      '401': { $ref: '#/components/responses/Unauthorized' },
      '403': { description: 'its own 403' },
      '413': { $ref: '#/components/responses/PayloadTooLarge' },
      '415': { $ref: '#/components/responses/UnsupportedMediaType' },
      '500': { $ref: '#/components/responses/InternalError' },
    });
    expect(item.post).not.toHaveProperty('requestBody');
    expect(item.delete).toMatchObject({
      security: [],
      description: 'waits 1234 ms',
      parameters: [
        expect.objectContaining({ name: 'id', in: 'path' }),
        { name: 'force', in: 'query', required: false, description: 'Even so.', schema: { type: 'boolean' } },
      ],
    });
  });

  it('gives a command body its schema by id, for the document to resolve', () => {
    const route: Route<Services> = {
      ...base,
      method: 'put',
      path: '/policy',
      operationId: 'putPolicy',
      body: { command: 'change-policy', description: 'The policy.' },
    };
    const paths = openApiPaths([{ mount: '/', routes: [route] }], {} as DocumentSettings);
    expect((paths['/policy'] as Record<string, Record<string, unknown>>).put!.requestBody).toEqual({
      required: true,
      description: 'The policy.',
      content: { 'application/json': { schema: { $ref: 'urn:gov:command:change-policy' } } },
    });
  });
});
