/**
 * The document made from the route table keeps everything the hand-written one had: the fixture is
 * the document `GET /openapi.json` served at commit 2378ccd (testdata/openapi-before.json). No path,
 * method, parameter, request body, status, response media type or header, security requirement,
 * component or webhook of it may be missing, and the schemas an operation names must be the same.
 * Additions are fine; descriptions may change.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadConfig } from '../../runtime/config/config';
import { SERVICE_VERSION } from '../../runtime/core/services';
import { governanceRoutes } from '../../runtime/wiring/governance-routes';
import { buildOpenApiDocument } from './openapi';

type Json = Record<string, unknown>;

const before = JSON.parse(
  readFileSync(path.join(__dirname, 'testdata', 'openapi-before.json'), 'utf8'),
) as Json;

const after = buildOpenApiDocument(governanceRoutes, {
  serverUrl: 'http://gov.example',
  version: SERVICE_VERSION,
  settings: loadConfig({}),
}) as Json;

const object = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};

/** A response or parameter, following one `$ref` into the document's own components. */
function resolved(doc: Json, value: unknown): Json {
  const ref = object(value).$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/components/')) return object(value);
  const [group, name] = ref.slice('#/components/'.length).split('/');
  return object(object(object(doc.components)[group!])[name!]);
}

/** The operation at `key` (a path template or webhook name) and `method` of `section`, if any. */
function operationIn(section: unknown, key: string, method: string): Json | undefined {
  const operation = object(object(section)[key])[method];
  return operation === undefined ? undefined : object(operation);
}

/** Parameters by `in:name`. */
function parametersOf(doc: Json, operation: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const raw of (operation.parameters as unknown[] | undefined) ?? []) {
    const parameter = resolved(doc, raw);
    out.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  return out;
}

/** What `after` lacks or has changed of `before`, one line each. */
function lost(): string[] {
  const problems: string[] = [];
  const same = (at: string, was: unknown, is: unknown) => {
    if (!isDeepStrictEqual(was, is))
      problems.push(`${at}: was ${JSON.stringify(was)}, is ${JSON.stringify(is) ?? 'missing'}`);
  };
  const content = (at: string, was: Json, is: Json) => {
    for (const [mediaType, media] of Object.entries(object(was.content))) {
      const now = object(is.content)[mediaType];
      if (now === undefined) problems.push(`${at}: media type ${mediaType} missing`);
      else same(`${at} ${mediaType} schema`, object(media).schema, object(now).schema);
    }
  };
  const operation = (at: string, was: Json, is: Json | undefined) => {
    if (!is) return problems.push(`${at}: operation missing`);
    same(`${at} security`, was.security, is.security);
    const parameters = parametersOf(after, is);
    for (const [key, parameter] of parametersOf(before, was)) {
      const now = parameters.get(key);
      if (!now) {
        problems.push(`${at}: parameter ${key} missing`);
        continue;
      }
      same(`${at} parameter ${key} required`, parameter.required ?? false, now.required ?? false);
      same(`${at} parameter ${key} schema`, parameter.schema, now.schema);
    }
    if (was.requestBody) {
      const body = object(is.requestBody);
      if (!is.requestBody) problems.push(`${at}: request body missing`);
      else {
        same(`${at} request body required`, object(was.requestBody).required, body.required);
        content(`${at} request body`, object(was.requestBody), body);
      }
    }
    for (const [status, response] of Object.entries(object(was.responses))) {
      const now = object(is.responses)[status];
      if (now === undefined) {
        problems.push(`${at}: status ${status} missing`);
        continue;
      }
      const [then, current] = [resolved(before, response), resolved(after, now)];
      content(`${at} ${status}`, then, current);
      for (const header of Object.keys(object(then.headers)))
        if (!(header in object(current.headers))) problems.push(`${at} ${status}: header ${header} missing`);
    }
  };

  for (const [template, item] of Object.entries(object(before.paths)))
    for (const [method, op] of Object.entries(object(item)))
      operation(
        `${method.toUpperCase()} ${template}`,
        object(op),
        operationIn(after.paths, template, method),
      );
  for (const [name, item] of Object.entries(object(before.webhooks)))
    for (const [method, op] of Object.entries(object(item)))
      operation(`webhook ${name} ${method}`, object(op), operationIn(after.webhooks, name, method));
  for (const [group, members] of Object.entries(object(before.components)))
    for (const name of Object.keys(object(members)))
      if (!(name in object(object(after.components)[group])))
        problems.push(`components.${group}.${name} missing`);
  const tags = new Set((after.tags as Json[]).map((tag) => tag.name));
  for (const tag of before.tags as Json[]) if (!tags.has(tag.name)) problems.push(`tag ${tag.name} missing`);
  same('openapi', before.openapi, after.openapi);
  same('jsonSchemaDialect', before.jsonSchemaDialect, after.jsonSchemaDialect);
  return problems;
}

describe('the OpenAPI document made from the route table, against the one served before it', () => {
  it('has every path, method, parameter, body, status, media type, header and component the old one had', () => {
    expect(lost()).toEqual([]);
  });

  it('reports what goes missing or changes (a parameter, its schema, a status, a path taken out)', () => {
    const paths = object(after.paths);
    const saved = { ...paths };
    try {
      const chain = object(object(paths['/governance/chain']).get);
      const parameters = chain.parameters as Json[];
      paths['/governance/chain'] = {
        get: {
          ...chain,
          parameters: parameters
            .filter((p) => p.name !== 'limit')
            .map((p) => (p.name === 'page' ? { ...p, schema: { ...object(p.schema), maximum: 10 } } : p)),
          responses: { ...object(chain.responses), '400': undefined },
        },
      };
      delete paths['/webhooks/{id}'];
      expect(lost()).toEqual([
        expect.stringMatching(
          /^GET \/governance\/chain parameter query:page schema: was .*"maximum":1000000/,
        ),
        'GET /governance/chain: parameter query:limit missing',
        'GET /governance/chain: status 400 missing',
        'GET /webhooks/{id}: operation missing',
        'DELETE /webhooks/{id}: operation missing',
      ]);
    } finally {
      for (const key of Object.keys(paths)) delete paths[key];
      Object.assign(paths, saved);
    }
    expect(lost()).toEqual([]);
  });
});
