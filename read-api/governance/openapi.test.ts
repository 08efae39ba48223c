import { createHmac } from 'node:crypto';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type express from 'express';
import { decideChangeTier } from '../../command-api/governance/tenants/account-commands';
import { tenantStream } from '../../command-api/governance/tenants/tenant-state';
import { hex, validBody } from '../../domain/governance/test-fixtures';
import { commandSchemas, responseSchemas, webhookSchemas } from '../../event-schemas/governance';
import { recordSchemas as everyRecordSchema } from '../../event-schemas/schemas';
import { WEBHOOK_EVENT_NAMES } from '../../projectors/webhooks/webhook-events';
import { loadConfig } from '../../runtime/config/config';
import { SERVICE_VERSION } from '../../runtime/core/services';
import { createLogger } from '../../runtime/support/logger';
import { type RunningServer, startEmbedded } from '../../runtime/wiring/embedded';
import { governanceRoutes } from '../../runtime/wiring/governance-routes';
import { createApp } from '../../runtime/wiring/http-app';
import { tempDir } from '../../tests/support/temp-dir';
import { type ReceivedDelivery, WebhookReceiver } from '../../tests/support/webhook-receiver';
import { buildOpenApiDocument } from './openapi';

interface Ref {
  $ref: string;
}
interface MediaType {
  schema: object;
}
interface HeaderObject {
  required?: boolean;
  schema: object;
}
interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Ref>;
  content?: Record<string, MediaType>;
}
interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema: object;
}
interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: (ParameterObject | Ref)[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject | Ref>;
}
interface OpenApiDocument {
  openapi: string;
  jsonSchemaDialect: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, object>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
  };
}

const DOC_ID = 'urn:test:openapi';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PUBLIC_PATHS = ['/auto-register', '/health', '/v1/version', '/v1/metrics', '/openapi.json'];
const WEBHOOK_EVENTS: string[] = [...WEBHOOK_EVENT_NAMES];

const doc = buildOpenApiDocument(governanceRoutes, {
  serverUrl: 'http://gov.example',
  version: SERVICE_VERSION,
  settings: loadConfig({}),
}) as OpenApiDocument;

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const pointerOf = (...segments: string[]) => `#/${segments.map(escapePointer).join('/')}`;

function resolvePointer(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** A response, header or parameter object, following one `$ref`; with the pointer it was found at. */
function deref<T>(value: T | Ref, at: string): { value: T; at: string } {
  if (value && typeof value === 'object' && '$ref' in value) {
    return { value: resolvePointer(value.$ref) as T, at: value.$ref };
  }
  return { value: value as T, at };
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else collectRefs(value, out);
    }
  }
  return out;
}

/** Ajv over the whole document: every schema is compiled where the document puts it. */
const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
addFormats(ajv);
// Ajv compiles the root before resolving a fragment in it: the document's own members are annotations to it.
ajv.addVocabulary([
  'openapi',
  'jsonSchemaDialect',
  'info',
  'servers',
  'tags',
  'paths',
  'webhooks',
  'components',
]);
ajv.addSchema(doc as object, DOC_ID);
const compiled = new Map<string, ValidateFunction>();
function schemaAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.getSchema(`${DOC_ID}${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    compiled.set(pointer, validate);
  }
  return validate;
}

function operations(): { template: string; method: string; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, operation]) => ({ template, method, operation })),
  );
}

/** The operations of the top-level `webhooks` section: what the service sends, by event name. */
function webhookOperations(): { name: string; method: string; operation: Operation }[] {
  return Object.entries(doc.webhooks).flatMap(([name, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name, method, operation })),
  );
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1.0 with the 2020-12 dialect, the service version and a bearer scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: SERVICE_VERSION });
    expect(doc.servers).toEqual([{ url: 'http://gov.example' }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('has every command, record, response and webhook schema as a component, named by its title', () => {
    const all = [
      ...Object.values(commandSchemas),
      // Both services' records: the public log serves the platform's leaves too.
      ...Object.values(everyRecordSchema),
      ...Object.values(responseSchemas),
      ...Object.values(webhookSchemas),
    ];
    for (const schema of all) {
      expect(doc.components.schemas[schema.title]).toBeDefined();
      expect(doc.components.schemas[schema.title]).not.toHaveProperty('$id');
    }
    expect(Object.keys(doc.components.schemas)).toHaveLength(all.length);
    for (const schema of Object.values(responseSchemas)) {
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toMatch(/^urn:gov:response:[a-z-]+$/);
      expect(schema.title).toMatch(/^[A-Z]\w+$/);
      expect(schema.description).toEqual(expect.any(String));
    }
  });

  it('resolves every $ref inside the document, and none is left pointing at a urn', () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) {
      expect({ ref, resolves: resolvePointer(ref) !== undefined }).toEqual({ ref, resolves: true });
    }
  });

  it('compiles every component schema with Ajv 2020 (strict) where the document puts it', () => {
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => schemaAt(pointerOf('components', 'schemas', name))).not.toThrow();
    }
  });

  it('gives every operation an id, responses with descriptions and compilable schemas, and declared parameters', () => {
    const ids = new Set<string>();
    for (const { template, method, operation } of operations()) {
      const at = pointerOf('paths', template, method);
      expect(METHODS).toContain(method);
      expect(template).toMatch(/^\//);
      expect(ids.has(operation.operationId)).toBe(false);
      ids.add(operation.operationId);

      const parameters = (operation.parameters ?? []).map((p, i) =>
        deref<ParameterObject>(p, `${at}/parameters/${i}`),
      );
      for (const { value: parameter, at: where } of parameters) {
        expect(['query', 'header', 'path', 'cookie']).toContain(parameter.in);
        expect(parameter.name).toEqual(expect.any(String));
        schemaAt(`${where}/schema`);
      }
      const seen = parameters.map(({ value }) => `${value.in}:${value.name}`);
      expect(new Set(seen).size).toBe(seen.length);
      for (const [, name] of template.matchAll(/\{([^}]+)\}/g)) {
        const declared = parameters.find(({ value }) => value.in === 'path' && value.name === name);
        expect({ template, name, required: declared?.value.required }).toEqual({
          template,
          name,
          required: true,
        });
      }
      for (const { value } of parameters.filter(({ value }) => value.in === 'path')) {
        expect(template).toContain(`{${value.name}}`);
      }

      if (operation.requestBody) {
        for (const mediaType of Object.keys(operation.requestBody.content)) {
          schemaAt(`${at}/requestBody/content/${escapePointer(mediaType)}/schema`);
        }
      }

      const statuses = Object.keys(operation.responses);
      expect(statuses.length).toBeGreaterThan(0);
      for (const status of statuses) {
        expect(status).toMatch(/^[1-5][0-9]{2}$/);
        const { value: response, at: where } = deref<ResponseObject>(
          operation.responses[status]!,
          `${at}/responses/${status}`,
        );
        expect(response.description).toEqual(expect.any(String));
        for (const mediaType of Object.keys(response.content ?? {})) {
          schemaAt(`${where}/content/${escapePointer(mediaType)}/schema`);
        }
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          const resolved = deref<HeaderObject>(header, `${where}/headers/${escapePointer(name)}`);
          schemaAt(`${resolved.at}/schema`);
        }
      }
      expect(operation.responses['500']).toBeDefined();

      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement))
          expect(doc.components.securitySchemes[scheme]).toBeDefined();
      }
    }
  });

  it('uses only the members OpenAPI 3.1 defines for each object (its schema forbids others)', () => {
    const allowed = {
      root: ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'tags'],
      operation: [
        'tags',
        'summary',
        'description',
        'operationId',
        'parameters',
        'requestBody',
        'responses',
        'security',
      ],
      parameter: ['name', 'in', 'description', 'required', 'schema'],
      requestBody: ['description', 'content', 'required'],
      response: ['description', 'headers', 'content'],
      header: ['description', 'required', 'schema'],
      mediaType: ['schema'],
      reference: ['$ref'],
    };
    const only = (what: keyof typeof allowed, node: object, at: string) => {
      const extra = Object.keys(node).filter((key) => !allowed[what].includes(key) && !key.startsWith('x-'));
      expect({ at, extra }).toEqual({ at, extra: [] });
    };
    const componentNames = /^[a-zA-Z0-9._-]+$/;
    only('root', doc, '#');
    for (const group of Object.values(doc.components) as object[]) {
      for (const name of Object.keys(group)) expect(name).toMatch(componentNames);
    }
    const media = (content: Record<string, MediaType> | undefined, at: string) => {
      for (const [type, value] of Object.entries(content ?? {})) {
        expect(type).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
        only('mediaType', value, `${at}/${type}`);
      }
    };
    const response = (value: ResponseObject | Ref, at: string) => {
      if ('$ref' in value) return only('reference', value, at);
      only('response', value, at);
      media(value.content, at);
      for (const [name, header] of Object.entries(value.headers ?? {})) {
        only('$ref' in header ? 'reference' : 'header', header, `${at}/headers/${name}`);
      }
    };
    for (const [name, value] of Object.entries(doc.components.responses))
      response(value, `responses/${name}`);
    for (const { template, method, operation } of operations()) {
      const at = `${method} ${template}`;
      expect(Object.keys(doc.paths[template]!).every((key) => METHODS.includes(key))).toBe(true);
      only('operation', operation, at);
      for (const parameter of operation.parameters ?? []) {
        only('$ref' in parameter ? 'reference' : 'parameter', parameter, at);
      }
      if (operation.requestBody) {
        only('requestBody', operation.requestBody, at);
        media(operation.requestBody.content, at);
      }
      for (const [status, value] of Object.entries(operation.responses)) response(value, `${at} ${status}`);
    }
    for (const { name, method, operation } of webhookOperations()) {
      const at = `webhook ${name} ${method}`;
      only('operation', operation, at);
      for (const parameter of operation.parameters ?? []) {
        only('$ref' in parameter ? 'reference' : 'parameter', parameter, at);
      }
      only('requestBody', operation.requestBody!, at);
      media(operation.requestBody!.content, at);
      for (const [status, value] of Object.entries(operation.responses)) response(value, `${at} ${status}`);
    }
  });

  it('describes every webhook event in the webhooks section: its body, its headers, and 200 as success', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENTS].sort());
    expect(Object.keys(webhookSchemas).sort()).toEqual([...WEBHOOK_EVENTS].sort());
    const ids = new Set(operations().map(({ operation }) => operation.operationId));
    for (const { name, method, operation } of webhookOperations()) {
      const at = pointerOf('webhooks', name, method);
      expect({ name, method }).toEqual({ name, method: 'post' });
      expect(ids.has(operation.operationId)).toBe(false);
      ids.add(operation.operationId);
      const schema = webhookSchemas[name as keyof typeof webhookSchemas];
      expect(operation.requestBody).toEqual({
        required: true,
        description: expect.any(String),
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema.title}` } } },
      });
      schemaAt(`${at}/requestBody/content/application~1json/schema`);
      const parameters = (operation.parameters ?? []).map((p, i) =>
        deref<ParameterObject>(p, `${at}/parameters/${i}`),
      );
      expect(parameters.map(({ value }) => [value.in, value.name, value.required])).toEqual(
        [
          'X-GOV-Signature-256',
          'X-GOV-Event-Id',
          'X-GOV-Event-Type',
          'X-GOV-Webhook-Id',
          'X-GOV-Delivery-Id',
          'X-GOV-Delivery-Attempt',
        ].map((header) => ['header', header, true]),
      );
      for (const { at: where } of parameters) schemaAt(`${where}/schema`);
      expect(operation.responses['200']).toMatchObject({ description: expect.stringMatching(/^Success/) });
      for (const [status, value] of Object.entries(operation.responses)) {
        expect(status).toMatch(/^([1-5][0-9]{2}|default)$/);
        const { value: response, at: where } = deref<ResponseObject>(value, `${at}/responses/${status}`);
        expect(response.description).toEqual(expect.any(String));
        for (const [header, object] of Object.entries(response.headers ?? {})) {
          schemaAt(`${deref<HeaderObject>(object, `${where}/headers/${header}`).at}/schema`);
        }
      }
    }
    const prose = JSON.stringify(doc);
    for (const phrase of [
      'X-GOV-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>',
      'X-GOV-Delivery-Attempt',
      '+5 s, +30 s, +2 min, +10 min',
      'Only an HTTP 200 answer is success',
      '128 KB',
      'returns it once',
    ]) {
      expect(prose).toContain(phrase);
    }
  });

  it('requires the bearer key exactly on the authenticated routes, which answer 401 and 429 with Retry-After', () => {
    for (const { template, operation } of operations()) {
      const isPublic =
        PUBLIC_PATHS.includes(template) ||
        template.startsWith('/gov/v1/log/') ||
        template.startsWith('/gov/v1/logs') ||
        template === '/governance/replay/{artifact_hash}';
      expect({ template, security: operation.security }).toEqual({
        template,
        security: isPublic ? [] : [{ bearer: [] }],
      });
      if (isPublic) {
        expect(operation.responses['401']).toBeUndefined();
        continue;
      }
      expect(operation.responses['401']).toBeDefined();
      const limited = deref<ResponseObject>(operation.responses['429']!, '');
      expect(limited.value.headers?.['Retry-After']).toBeDefined();
    }
  });

  it('documents the chain query with its defaults and maximum', () => {
    const parameters = doc.paths['/governance/chain']!.get!.parameters as ParameterObject[];
    const byName = Object.fromEntries(parameters.map((p) => [p.name, p.schema]));
    expect(byName.page).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(byName.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(byName.from).toMatchObject({ type: 'string', format: 'date-time' });
    expect(byName.to).toMatchObject({ type: 'string', format: 'date-time' });
  });
});

// ---- Against the running service -------------------------------------------------------------------

type Layer = {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
};

/** Every route of an Express 5 app (router 2.x): route layers, and routers mounted with `use`. */
function expressRoutes(app: express.Express): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all')) {
          // A router's own root (`/` mounted at `/gov/v1/logs`) is the mount's path.
          const own = prefix !== '' && layer.route.path === '/' ? '' : layer.route.path;
          out.push(`${method} ${prefix}${own}`);
        }
      } else if (layer.handle?.stack) {
        const mount = layer.rawPath === '/' || layer.rawPath === undefined ? '' : String(layer.rawPath);
        walk(layer.handle.stack, prefix + mount);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  // Express parameters (`:name`) and named wildcards (`*name`) as OpenAPI templates.
  return out.map((route) => route.replace(/\/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '/{$1}'));
}

interface Answer {
  status: number;
  headers: Headers;
  mediaType: string;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON body read by the test
  body: any;
}

describe('the OpenAPI document against the running service', () => {
  let server: RunningServer;
  let remove: () => void;
  let receiver: WebhookReceiver;
  const exercised = new Set<string>();

  beforeAll(async () => {
    const temp = tempDir('gov-openapi');
    remove = temp.remove;
    server = await startEmbedded(
      loadConfig({
        GOV_PORT: '0',
        GOV_HOST: '127.0.0.1',
        GOV_DATA_DIR: path.join(temp.dir, 'data'),
        // Webhook targets on this machine: the receiver below, and addresses registration only checks.
        GOV_WEBHOOK_ALLOW: '127.0.0.1',
        // The test anchors when it wants to (anchorOnce), never in the background.
        GOV_ANCHOR_INTERVAL_MS: '3600000',
      }),
      createLogger('silent'),
    );
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
    remove();
  });

  /** Sends a request for the operation at `template` and checks the answer against what the document declares. */
  async function call(
    method: string,
    template: string,
    url: string,
    init: { body?: unknown; key?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${server.url}${url}`, { method: method.toUpperCase(), headers, body });
    const text = Buffer.from(await res.arrayBuffer()).toString('latin1');
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const answer: Answer = {
      status: res.status,
      headers: res.headers,
      mediaType,
      text,
      body:
        mediaType === 'application/json' ? JSON.parse(Buffer.from(text, 'latin1').toString('utf8')) : text,
    };
    conforms(method, template, answer);
    exercised.add(`${method} ${template} ${res.status}`);
    return answer;
  }

  function conforms(method: string, template: string, answer: Answer): void {
    const operation = doc.paths[template]?.[method];
    const where = `${method.toUpperCase()} ${template} → ${answer.status}`;
    expect({ where, documented: operation !== undefined }).toEqual({ where, documented: true });
    const declared = operation!.responses[String(answer.status)];
    expect({ where, declared: declared !== undefined, body: declared ? undefined : answer.text }).toEqual({
      where,
      declared: true,
      body: undefined,
    });
    const { value: response, at } = deref<ResponseObject>(
      declared!,
      pointerOf('paths', template, method, 'responses', String(answer.status)),
    );
    expect({ where, mediaType: answer.mediaType, declared: Object.keys(response.content ?? {}) }).toEqual({
      where,
      mediaType: answer.mediaType,
      declared: expect.arrayContaining([answer.mediaType]),
    });
    if (answer.mediaType === 'application/json') {
      const validate = schemaAt(`${at}/content/${escapePointer(answer.mediaType)}/schema`);
      validate(answer.body);
      expect({ where, errors: validate.errors ?? null }).toEqual({ where, errors: null });
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const { value, at: headerAt } = deref<HeaderObject>(header, `${at}/headers/${escapePointer(name)}`);
      const sent = answer.headers.get(name);
      if (value.required)
        expect({ where, header: name, sent: sent !== null }).toEqual({ where, header: name, sent: true });
      if (sent === null) continue;
      const validate = schemaAt(`${headerAt}/schema`);
      const typed = /^[0-9]+$/.test(sent) ? Number(sent) : sent;
      expect({ where, header: name, ok: validate(typed) }).toEqual({ where, header: name, ok: true });
    }
  }

  /** Checks a delivery the receiver got against the `webhooks` section: body, headers, signature. */
  function conformsAsWebhook(name: string, delivery: ReceivedDelivery, secret: string): void {
    const at = pointerOf('webhooks', name, 'post');
    const operation = doc.webhooks[name]?.post;
    expect({ name, documented: operation !== undefined }).toEqual({ name, documented: true });
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(Buffer.byteLength(delivery.raw, 'utf8')).toBeLessThanOrEqual(131_072);
    const validate = schemaAt(`${at}/requestBody/content/application~1json/schema`);
    validate(delivery.body);
    expect({ name, errors: validate.errors ?? null }).toEqual({ name, errors: null });
    for (const [i, parameter] of (operation!.parameters ?? []).entries()) {
      const { value, at: where } = deref<ParameterObject>(parameter, `${at}/parameters/${i}`);
      const sent = delivery.headers[value.name.toLowerCase()];
      expect({ name, header: value.name, sent: typeof sent }).toEqual({
        name,
        header: value.name,
        sent: 'string',
      });
      const typed = /^[0-9]+$/.test(sent as string) ? Number(sent) : sent;
      expect({ name, header: value.name, ok: schemaAt(`${where}/schema`)(typed) }).toEqual({
        name,
        header: value.name,
        ok: true,
      });
    }
    const hmac = createHmac('sha256', secret).update(Buffer.from(delivery.raw, 'utf8')).digest('hex');
    expect(delivery.headers['x-gov-signature-256']).toBe(`sha256=${hmac}`);
    expect(delivery.headers['x-gov-event-id']).toBe(delivery.body.event_id);
  }

  it('documents every route the app serves with the same method, and nothing else', () => {
    const served = new Set(expressRoutes(createApp(server.services)));
    expect(served.size).toBeGreaterThan(15);
    const documented = new Set(operations().map(({ method, template }) => `${method} ${template}`));
    expect([...documented].sort()).toEqual([...served].sort());
  });

  const evidence = (subjectId: string, overrides: Record<string, unknown> = {}) => {
    const body = validBody();
    return { ...body, subject_id: subjectId, gate_results: { ...body.gate_results, ...overrides } };
  };
  const failingG1 = {
    G1: {
      result: 'PASS',
      confidence_interval_lower: 0.5,
      confidence_interval_upper: 0.95,
      bootstrap_iterations: 2000,
    },
  };

  async function register(email: string): Promise<{ key: string; tenantId: string }> {
    const res = await call('post', '/auto-register', '/auto-register', { body: { email } });
    expect(res.status).toBe(201);
    return { key: res.body.api_key, tenantId: res.body.tenant_id };
  }

  async function upgrade(tenantId: string): Promise<void> {
    const { services } = server;
    const changed = await services.tenants.execute(tenantStream(tenantId), (state) =>
      decideChangeTier(
        state,
        { tier: 'L2', dailyLeafLimit: null, operator: 'openapi-test' },
        { now: services.clock(), correlationId: 'openapi-test' },
      ),
    );
    await services.awaitProjections(changed.position!, ['TenantTierChanged']);
  }

  it('operations and the public log before any leaf', async () => {
    expect((await call('get', '/health', '/health')).status).toBe(200);
    expect((await call('get', '/v1/version', '/v1/version')).status).toBe(200);
    expect((await call('get', '/v1/metrics', '/v1/metrics')).status).toBe(200);
    const served = await call('get', '/openapi.json', '/openapi.json');
    expect(served.body).toEqual(
      buildOpenApiDocument(governanceRoutes, {
        serverUrl: server.url,
        version: SERVICE_VERSION,
        settings: server.services.config,
      }),
    );

    expect((await call('get', '/gov/v1/log/sth', '/gov/v1/log/sth')).body.tree_size).toBe(0);
    expect((await call('get', '/gov/v1/log/sth', '/gov/v1/log/sth?tree_size=0')).status).toBe(200);
    expect((await call('get', '/gov/v1/log/sth', '/gov/v1/log/sth?tree_size=99')).status).toBe(404);
    expect((await call('get', '/gov/v1/log/sth', '/gov/v1/log/sth?size=1')).status).toBe(400);
    expect((await call('get', '/gov/v1/log/checkpoint', '/gov/v1/log/checkpoint')).status).toBe(200);
    expect((await call('get', '/gov/v1/log/keys', '/gov/v1/log/keys')).status).toBe(200);
    expect((await call('get', '/gov/v1/log/keys', '/gov/v1/log/keys?x=1')).status).toBe(400);
    expect((await call('get', '/gov/v1/log/leaf', '/gov/v1/log/leaf?index=0')).status).toBe(404);
    expect((await call('get', '/gov/v1/log/leaf', '/gov/v1/log/leaf')).status).toBe(400);
    expect((await call('get', '/gov/v1/log/consistency', '/gov/v1/log/consistency?from=0')).status).toBe(400);
    expect((await call('get', '/gov/v1/log/proof', `/gov/v1/log/proof?leaf_hash=${hex('0')}`)).status).toBe(
      404,
    );
    expect((await call('get', '/gov/v1/log/tile/{path}', '/gov/v1/log/tile/0/000')).status).toBe(404);
    // No witness is trusted here; the full exchange is tests/witness.test.ts.
    const witnessSignatures = '/gov/v1/log/witness-signatures';
    expect(
      (await call('post', witnessSignatures, witnessSignatures, { body: { tree_size: 0 } })).status,
    ).toBe(400);
    const ofLog = (name: string) =>
      call('post', '/gov/v1/logs/{log}/witness-signatures', `/gov/v1/logs/${name}/witness-signatures`, {
        body: { tree_size: 0, cosignature: '— nobody AAAA\n' },
      });
    expect((await ofLog('test')).status).toBe(400);
    expect((await ofLog(`dedicated-${'0'.repeat(24)}`)).status).toBe(404);
  });

  it('registration and the body parser', async () => {
    await register('ada@example.com');
    const post = (body: string, headers: Record<string, string> = {}) =>
      call('post', '/auto-register', '/auto-register', { body, headers });
    expect((await post('{}')).status).toBe(400);
    expect((await post('{"email":')).status).toBe(400);
    expect((await post('{"email":"a@b.co"}', { 'content-type': 'text/plain' })).status).toBe(400);
    expect(
      (await post('{"email":"a@b.co"}', { 'content-type': 'application/json; charset=latin1' })).status,
    ).toBe(415);
    expect((await post(JSON.stringify({ email: 'a@b.co', organization: 'x'.repeat(300_000) }))).status).toBe(
      413,
    );
  });

  it('a Trial tenant: account, evidence passing and failing, status, chain, report, replay, and the limits', async () => {
    expect((await call('get', '/account', '/account')).status).toBe(401);
    expect((await call('get', '/account', '/account', { key: 'gov_live_nope' })).status).toBe(401);
    expect(
      (await call('post', '/governance/evidence', '/governance/evidence', { body: evidence('m') })).status,
    ).toBe(401);
    const { key } = await register('trial@example.com');
    expect((await call('get', '/account', '/account', { key })).status).toBe(200);

    const submit = (body: unknown) =>
      call('post', '/governance/evidence', '/governance/evidence', { key, body });
    const admitted = await submit(evidence('model-1'));
    expect(admitted.status).toBe(201);
    const { artifact_hash: artifact, leaf_hash: leaf } = admitted.body;
    expect((await submit(evidence('model-1', failingG1))).body.error).toBe('GATE_FAILURE');
    const wrongClass = await submit(evidence('model-1', { G4: { result: 'PASS', evidence_class: 'BOGUS' } }));
    expect(wrongClass.body.error).toBe('EVIDENCE_CLASS_INVALID');
    expect((await submit({ subject_id: 'model-1' })).status).toBe(400);

    const status = (query: string) =>
      call('get', '/governance/status', `/governance/status${query}`, { key });
    expect((await status('')).body.lifecycle).toBe('ACTIVE');
    expect((await status('?subject_id=model-1')).status).toBe(200);
    expect((await status('?subject_id=nobody')).status).toBe(404);
    expect((await status('?subject_id=')).status).toBe(400);

    const chain = (query: string) => call('get', '/governance/chain', `/governance/chain${query}`, { key });
    expect((await chain('')).body.items).toHaveLength(1);
    expect((await chain('?from=2000-01-01T00:00:00Z&page=1&limit=200')).body.total).toBe(1);
    expect((await chain('?limit=201')).status).toBe(400);
    expect((await chain('?sort=asc')).status).toBe(400);

    const report = (hash: string, query = '') =>
      call('get', '/governance/report/{artifact_hash}', `/governance/report/${hash}${query}`, { key });
    expect((await report(artifact)).body.type).toBe('GOV_COMPLIANCE_REPORT_V1');
    expect((await report(artifact, '?format=markdown')).status).toBe(403);
    expect((await report(artifact, '?format=pdf')).status).toBe(400);
    expect((await report(hex('0'))).status).toBe(404);
    expect((await report('not-a-hash')).status).toBe(400);

    const replay = (hash: string) =>
      call('get', '/governance/replay/{artifact_hash}', `/governance/replay/${hash}`);
    expect((await replay(artifact)).body.type).toBe('GOV_PROOF_BUNDLE_V1');
    expect((await replay(hex('0'))).status).toBe(404);
    expect((await replay('XYZ')).status).toBe(400);

    const execution = { parent_auth_leaf_hash: leaf, outcome: 'EXECUTED' };
    expect(
      (await call('post', '/governance/execution', '/governance/execution', { key, body: execution })).status,
    ).toBe(403);
    expect(
      (await call('get', '/governance/variance/{auth_leaf_hash}', `/governance/variance/${leaf}`, { key }))
        .status,
    ).toBe(403);
    expect(
      (
        await call('get', '/governance/triple-leaf/{auth_leaf_hash}', `/governance/triple-leaf/${leaf}`, {
          key,
        })
      ).status,
    ).toBe(403);

    for (let i = 2; i <= 5; i++) expect((await submit(evidence(`model-${i}`))).status).toBe(201);
    const exhausted = await submit(evidence('model-6'));
    expect([exhausted.status, exhausted.body.error]).toEqual([409, 'TRIAL_EXHAUSTED']);

    const policy = (method: string, url: string, init: { key?: string; body?: unknown } = { key }) =>
      call(method, '/governance/policy', url, init);
    const initial = await policy('get', '/governance/policy');
    expect(initial.body.version).toBe(1);
    expect((await policy('get', '/governance/policy?version=1')).status).toBe(400);
    const stricter = { ...initial.body.policy, g3_metric_maximums: { bias: 0.1 } };
    expect((await policy('put', '/governance/policy', { key, body: { ...stricter, extra: 1 } })).status).toBe(
      400,
    );
    expect((await policy('put', '/governance/policy', { key, body: stricter })).body.version).toBe(2);
    expect((await policy('put', '/governance/policy', { body: stricter })).status).toBe(401);

    const rotated = await call('post', '/api-key/rotate', '/api-key/rotate', { key });
    expect(rotated.status).toBe(200);
    expect((await policy('put', '/governance/policy', { key, body: stricter })).status).toBe(403);
    expect((await call('get', '/account', '/account', { key: rotated.body.api_key })).status).toBe(200);
    // The replaced key, in its grace period, reads but no longer manages the account.
    expect((await call('get', '/account', '/account', { key })).status).toBe(200);
    const again = await call('post', '/api-key/rotate', '/api-key/rotate', { key });
    expect([again.status, again.body.error]).toEqual([403, 'FORBIDDEN']);
  });

  it('an L2 tenant: closed loop, exports, a locked subject, and the log with leaves', async () => {
    const { key, tenantId } = await register('pro@example.com');
    await upgrade(tenantId);
    const admitted = await call('post', '/governance/evidence', '/governance/evidence', {
      key,
      body: evidence('loop-1'),
    });
    const { leaf_hash: leaf, artifact_hash: artifact } = admitted.body;

    const execute = (body: unknown) =>
      call('post', '/governance/execution', '/governance/execution', { key, body });
    expect(
      (await execute({ parent_auth_leaf_hash: leaf, outcome: 'EXECUTED', subject_id: 'other' })).status,
    ).toBe(400);
    expect((await execute({ parent_auth_leaf_hash: leaf })).status).toBe(400);
    const executed = await execute({ parent_auth_leaf_hash: leaf, outcome: 'DEVIATED' });
    expect(executed.status).toBe(201);
    expect((await execute({ parent_auth_leaf_hash: leaf, outcome: 'EXECUTED' })).body.error).toBe('CONFLICT');
    expect((await execute({ parent_auth_leaf_hash: hex('0'), outcome: 'EXECUTED' })).status).toBe(422);

    const variance = (hash: string) =>
      call('get', '/governance/variance/{auth_leaf_hash}', `/governance/variance/${hash}`, { key });
    expect((await variance(leaf)).status).toBe(200);
    expect((await variance(hex('0'))).status).toBe(404);
    expect((await variance('zz')).status).toBe(400);
    const triple = (hash: string) =>
      call('get', '/governance/triple-leaf/{auth_leaf_hash}', `/governance/triple-leaf/${hash}`, { key });
    expect((await triple(leaf)).status).toBe(200);
    expect((await triple(hex('0'))).status).toBe(404);

    const report = (query: string) =>
      call('get', '/governance/report/{artifact_hash}', `/governance/report/${artifact}${query}`, { key });
    expect((await report('?format=json')).headers.get('content-disposition')).toMatch(/attachment/);
    expect((await report('?format=markdown')).mediaType).toBe('text/markdown');

    // Ten consecutive gate failures put the subject in LOCKBOX: evidence for it is refused.
    for (let i = 0; i < 10; i++) {
      const failed = await call('post', '/governance/evidence', '/governance/evidence', {
        key,
        body: evidence('doomed', failingG1),
      });
      expect(failed.status).toBe(422);
    }
    const locked = await call('post', '/governance/evidence', '/governance/evidence', {
      key,
      body: evidence('doomed'),
    });
    expect([locked.status, locked.body.error]).toEqual([409, 'SUBJECT_LOCKED']);

    const log = (template: string, query: string) => call('get', template, `${template}${query}`);
    const size = (await log('/gov/v1/log/sth', '')).body.tree_size as number;
    expect(size).toBeGreaterThanOrEqual(8);
    expect((await log('/gov/v1/log/leaf', '?index=0')).body.leaf_type).toBe('GOV_GOVERNANCE_ENVELOPE_V1');
    expect((await log('/gov/v1/log/leaf', `?index=${executed.body.exec_leaf_index}`)).status).toBe(200);
    expect((await log('/gov/v1/log/leaf', `?index=${executed.body.variance_leaf_index}`)).status).toBe(200);
    expect((await log('/gov/v1/log/proof', `?leaf_hash=${leaf}`)).status).toBe(200);
    expect((await log('/gov/v1/log/proof', `?leaf_hash=${leaf}&tree_size=1`)).status).toBe(400);
    expect((await log('/gov/v1/log/proof', '?leaf_hash=ABC')).status).toBe(400);
    expect((await log('/gov/v1/log/consistency', '?from=1')).status).toBe(200);
    expect((await log('/gov/v1/log/consistency', `?from=2&to=${size}`)).body.proof.length).toBeGreaterThan(0);
    expect((await log('/gov/v1/log/consistency', `?from=1&to=${size + 1}`)).status).toBe(400);
    expect((await log('/gov/v1/log/sth', '?tree_size=1')).status).toBe(200);
    const tiles = '/gov/v1/log/tile/{path}';
    const partial = `000.p/${size}`;
    expect((await call('get', tiles, `/gov/v1/log/tile/0/${partial}`)).mediaType).toBe(
      'application/octet-stream',
    );
    expect((await call('get', tiles, `/gov/v1/log/tile/entries/${partial}`)).status).toBe(200);
    expect((await call('get', tiles, '/gov/v1/log/tile/nonsense')).status).toBe(404);

    // The same log by name, among the logs.
    const listed = await call('get', '/gov/v1/logs', '/gov/v1/logs');
    expect(listed.body.logs[0]).toMatchObject({ name: 'shared', kind: 'shared', tree_size: size });
    const byName = (route: string, query: string) =>
      call('get', `/gov/v1/logs/{log}/${route}`, `/gov/v1/logs/shared/${route}${query}`);
    expect((await byName('sth', '')).body).toMatchObject({ log: 'shared', tree_size: size });
    expect((await byName('sth', '?tree_size=1')).body.log).toBe('shared');
    expect((await byName('checkpoint', '')).text).toBe((await log('/gov/v1/log/checkpoint', '')).text);
    expect((await byName('keys', '')).status).toBe(200);
    expect((await byName('leaf', '?index=0')).body.log).toBe('shared');
    expect((await byName('proof', `?leaf_hash=${leaf}`)).body.log).toBe('shared');
    expect((await byName('proof', '?leaf_hash=ABC')).status).toBe(400);
    expect((await byName('consistency', '?from=1')).body.log).toBe('shared');
    expect((await byName('consistency', `?from=1&to=${size + 1}`)).status).toBe(400);
    const logTiles = '/gov/v1/logs/{log}/tile/{path}';
    expect((await call('get', logTiles, `/gov/v1/logs/shared/tile/0/${partial}`)).status).toBe(200);
    expect((await call('get', logTiles, '/gov/v1/logs/shared/tile/nonsense')).status).toBe(404);
    for (const route of [
      'sth',
      'checkpoint',
      'keys',
      'leaf?index=0',
      'consistency?from=1',
      `proof?leaf_hash=${leaf}`,
    ]) {
      const unknown = await call(
        'get',
        `/gov/v1/logs/{log}/${route.split('?')[0]}`,
        `/gov/v1/logs/dedicated-${'0'.repeat(24)}/${route}`,
      );
      expect([unknown.status, unknown.body.message]).toEqual([
        404,
        expect.stringContaining('GET /gov/v1/logs'),
      ]);
    }
    expect((await call('get', logTiles, '/gov/v1/logs/nope/tile/0/000')).status).toBe(404);

    // Anchors: a test-mode tenant's leaf, its log anchored in the shared log.
    const anchorOf = (name: string, query: string) =>
      call('get', '/gov/v1/logs/{log}/anchor', `/gov/v1/logs/${name}/anchor${query}`);
    expect((await anchorOf('test', '')).status).toBe(400);
    expect((await anchorOf('shared', '?tree_size=1')).status).toBe(404);
    expect((await anchorOf(`dedicated-${'0'.repeat(24)}`, '?tree_size=1')).status).toBe(404);
    expect((await anchorOf('test', '?tree_size=1')).status).toBe(404);
    const tester = await call('post', '/auto-register', '/auto-register', {
      body: { email: 'anchored@example.com', mode: 'test' },
    });
    const inTest = await call('post', '/governance/evidence', '/governance/evidence', {
      key: tester.body.api_key,
      body: evidence('anchored'),
    });
    expect(inTest.body.sth.log).toBe('test');
    const [appended] = await server.anchorer.anchorOnce();
    await server.supervisor.waitForPosition(appended!.position, ['LogAnchored']);
    await server.sequencer.waitForLeaf(appended!.id, 'shared');
    const anchor = await anchorOf('test', '?tree_size=1');
    expect(anchor.status).toBe(200);
    expect(anchor.body.anchor.record.record_type).toBe('GOV_LOG_ANCHOR_V1');
    expect((await log('/gov/v1/log/leaf', `?index=${anchor.body.anchor.leaf_index}`)).body.leaf_type).toBe(
      'GOV_LOG_ANCHOR_V1',
    );
  });

  it('webhooks: register, list, read, a delivery as the webhooks section says, the delivery log, redelivery, the cap, delete', async () => {
    const { key, tenantId } = await register('hooks@example.com');
    // L2 (300 requests/min): the cap below takes about a hundred registrations.
    await upgrade(tenantId);
    const hooks = (body: unknown, as = key) => call('post', '/webhooks', '/webhooks', { key: as, body });
    expect((await call('get', '/webhooks', '/webhooks')).status).toBe(401);
    expect((await hooks({ url: receiver.url, events: ['leaf_admitted'] }, '')).status).toBe(401);

    const created = await hooks({ url: receiver.url, events: ['leaf_admitted'] });
    expect(created.status).toBe(201);
    const { webhook_id: id, secret } = created.body;
    expect(secret).toMatch(/^whsec_/);
    const own = await hooks({
      url: 'http://127.0.0.1:9/hook',
      events: ['gate_fail'],
      secret: 's'.repeat(16),
    });
    expect(own.status).toBe(201);
    expect(own.body).not.toHaveProperty('secret');
    const refused = await hooks({ url: 'http://10.0.0.1/hook', events: ['gate_fail'] });
    expect([refused.status, refused.body.fields]).toEqual([
      400,
      [{ pointer: '/url', reason: expect.any(String) }],
    ]);
    expect((await hooks({ url: 'ftp://example.com', events: [] })).status).toBe(400);
    expect((await hooks('{"url":')).status).toBe(400);

    const listed = await call('get', '/webhooks', '/webhooks', { key });
    expect(listed.body.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([
      id,
      own.body.webhook_id,
    ]);
    const one = (webhookId: string, as = key) =>
      call('get', '/webhooks/{id}', `/webhooks/${webhookId}`, { key: as });
    expect((await one(id)).body.secret_generated).toBe(true);
    expect((await one(own.body.webhook_id)).body.secret_generated).toBe(false);
    expect((await one(`wh_${'0'.repeat(24)}`)).status).toBe(404);
    expect((await one('nope')).status).toBe(404);
    const stranger = await register('stranger@example.com');
    expect((await one(id, stranger.key)).status).toBe(404);

    // An admitted leaf is delivered as the webhooks section documents it.
    const admitted = await call('post', '/governance/evidence', '/governance/evidence', {
      key,
      body: evidence('hooked-1'),
    });
    expect(admitted.status).toBe(201);
    const [first] = await receiver.waitFor((all) => all.length >= 1);
    conformsAsWebhook('leaf_admitted', first!, secret);
    expect(first!.body.leaf_hash).toBe(admitted.body.leaf_hash);
    // The attempt is recorded once the worker is idle.
    await server.webhookDelivery.worker.runOnce();

    const deliveries = (query = '', webhookId = id) =>
      call('get', '/webhooks/{id}/deliveries', `/webhooks/${webhookId}/deliveries${query}`, { key });
    const log = await deliveries();
    expect(log.body.deliveries).toHaveLength(1);
    expect(log.body.next_cursor).toBeNull();
    const [delivery] = log.body.deliveries;
    expect(delivery).toMatchObject({
      status: 'delivered',
      event_id: first!.body.event_id,
    });
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 200, error: null }),
    ]);
    expect(delivery.body_bytes).toBe(Buffer.byteLength(first!.raw, 'utf8'));
    expect(first!.headers['x-gov-delivery-id']).toBe(delivery.delivery_id);
    expect((await deliveries('?status=pending')).body.deliveries).toEqual([]);
    expect((await deliveries('?status=lost')).status).toBe(400);
    expect((await deliveries('?limit=0')).status).toBe(400);
    expect((await deliveries('?limit=201')).status).toBe(400);
    expect((await deliveries('?cursor=bogus')).status).toBe(400);
    expect((await deliveries('?page=2')).status).toBe(400);
    expect((await deliveries('', `wh_${'0'.repeat(24)}`)).status).toBe(404);

    // A redelivery: the same event and bytes, its own delivery id, in the log as well.
    const redeliver = (deliveryId: string, webhookId = id) =>
      call(
        'post',
        '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
        `/webhooks/${webhookId}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
        { key },
      );
    const again = await redeliver(delivery.delivery_id);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ webhook_id: id, redelivery_of: delivery.delivery_id });
    const [, second] = await receiver.waitFor((all) => all.length >= 2);
    conformsAsWebhook('leaf_admitted', second!, secret);
    expect(second!.raw).toBe(first!.raw);
    expect(second!.headers['x-gov-delivery-id']).toBe(`${delivery.delivery_id}:r1`);
    await server.webhookDelivery.worker.runOnce();
    const newest = await deliveries('?limit=1');
    expect(newest.body.deliveries[0]).toMatchObject({
      redelivery_of: delivery.delivery_id,
      status: 'delivered',
    });
    expect(newest.body.next_cursor).toEqual(expect.any(String));
    const older = await deliveries(`?limit=1&cursor=${encodeURIComponent(newest.body.next_cursor)}`);
    expect(older.body.deliveries[0].delivery_id).toBe(delivery.delivery_id);
    expect(older.body.next_cursor).toBeNull();
    expect((await redeliver('nope')).status).toBe(404);
    expect((await redeliver(delivery.delivery_id, own.body.webhook_id)).status).toBe(404);

    // At most 100 webhooks per tenant.
    for (let n = 2; n < 100; n++) {
      expect((await hooks({ url: 'http://127.0.0.1:9/hook', events: ['gate_fail'] })).status).toBe(201);
    }
    const capped = await hooks({ url: 'http://127.0.0.1:9/hook', events: ['gate_fail'] });
    expect([capped.status, capped.body.error]).toEqual([409, 'CONFLICT']);

    const remove = (webhookId: string) => call('delete', '/webhooks/{id}', `/webhooks/${webhookId}`, { key });
    const deleted = await remove(own.body.webhook_id);
    expect(deleted.body).toMatchObject({ webhook_id: own.body.webhook_id, deleted: true });
    expect((await remove(own.body.webhook_id)).status).toBe(404);
    expect((await remove('nope')).status).toBe(404);
    expect((await one(own.body.webhook_id)).status).toBe(404);
    expect((await deliveries('', own.body.webhook_id)).status).toBe(404);
  });

  it('429 RATE_LIMITED with Retry-After once the tier’s requests per minute are spent', async () => {
    const { key } = await register('busy@example.com');
    let last: Answer | undefined;
    // 60 per minute on Trial; a minute boundary during the burst opens a new window, hence the margin.
    for (let i = 0; i < 130 && last?.status !== 429; i++)
      last = await call('get', '/account', '/account', { key });
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('exercised every documented operation', () => {
    const operationsSeen = new Set([...exercised].map((entry) => entry.split(' ').slice(0, 2).join(' ')));
    for (const { method, template } of operations())
      expect(operationsSeen).toContain(`${method} ${template}`);
  });
});
