/**
 * The operations of the OpenAPI document a server serves, for suites that must cover every route the
 * document lists (so a route added later is covered or the suite fails): which need the API key,
 * which take a body, and their paths filled from a table of example values.
 */
import type { GovClient } from './governance-client';

interface Ref {
  $ref: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
}

export interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: (Parameter | Ref)[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Ref | object }> };
}

export interface OpenApiDocument {
  openapi: string;
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
  components: { parameters?: Record<string, Parameter> };
}

export interface DocumentedOperation {
  /** Lower case, as the document writes it. */
  method: string;
  /** The path template, e.g. `/webhooks/{id}`. */
  template: string;
  operation: Operation;
  /** `METHOD /template (operationId)`, for test names and failure messages. */
  label: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** GET /openapi.json, checked to be an OpenAPI 3.1 document with paths. */
export async function servedOpenApi(client: GovClient): Promise<OpenApiDocument> {
  const res = await client.get<OpenApiDocument>('/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  if (!res.body?.openapi?.startsWith('3.1') || Object.keys(res.body.paths ?? {}).length === 0)
    throw new Error('GET /openapi.json is not an OpenAPI 3.1 document with paths');
  return res.body;
}

export function documentedOperations(doc: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({
        method,
        template,
        operation,
        label: `${method.toUpperCase()} ${template} (${operation.operationId})`,
      })),
  );
}

/** Whether the operation's security (or the document's default) requires the bearer API key. */
export function requiresApiKey(doc: OpenApiDocument, operation: Operation): boolean {
  const security = operation.security ?? doc.security ?? [];
  return security.length > 0 && security.every((requirement) => 'bearer' in requirement);
}

/** The operation's parameters with `$ref`s to `#/components/parameters/…` resolved. */
export function parametersOf(doc: OpenApiDocument, operation: Operation): Parameter[] {
  return (operation.parameters ?? []).map((parameter) => {
    if (!('$ref' in parameter)) return parameter;
    const name = parameter.$ref.replace('#/components/parameters/', '');
    const resolved = doc.components.parameters?.[name];
    if (!resolved) throw new Error(`unresolvable parameter ${parameter.$ref}`);
    return resolved;
  });
}

/** The component name of the operation's JSON request body schema, or null when it takes none. */
export function requestBodySchemaName(operation: Operation): string | null {
  const schema = operation.requestBody?.content['application/json']?.schema;
  if (!schema) return null;
  if (!('$ref' in schema)) throw new Error(`${operation.operationId}: the request body is not a component`);
  return schema.$ref.replace('#/components/schemas/', '');
}

/**
 * The template with each `{name}` replaced by `values[name]` (percent-encoded). Throws naming the
 * parameter when the table has no value for it: a new route must bring its example with it.
 */
export function fillPath(documented: DocumentedOperation, values: Readonly<Record<string, string>>): string {
  return documented.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new Error(`${documented.label}: no example value for path parameter '${name}'; add one`);
    return encodeURIComponent(value);
  });
}
