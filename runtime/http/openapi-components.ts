/**
 * JSON Schemas as the components of an OpenAPI document: each schema lands in `components.schemas`
 * under its title, and every `urn:gov:…` reference (the schemas' own and the route table's) is
 * rewritten to point into the document. Each service's document (read-api/<context>/openapi.ts) makes
 * one of these from the schemas it serves.
 */
import type { Json } from './openapi-parts';

export interface SchemaComponents {
  /** `components.schemas`: every schema by its title. */
  schemas(): Json;
  /** A schema as a component: `$schema` and `$id` dropped, references pointing into the document. */
  toComponent(schema: { $id: string; title: string }): Json;
  /** Any part of the document with its `urn:gov:…` references pointing at the components. */
  rewrite(node: unknown): unknown;
}

export function schemaComponents(all: readonly { $id: string; title: string }[]): SchemaComponents {
  const componentOf = new Map<string, string>(all.map((schema) => [schema.$id, schema.title]));

  const componentRef = (ref: string, own: string | undefined): string => {
    const hash = ref.indexOf('#');
    const base = hash < 0 ? ref : ref.slice(0, hash);
    // Outside a schema, a local reference is already one into the document (`#/components/…`).
    if (base === '' && own === undefined) return ref;
    const fragment = hash < 0 ? '' : ref.slice(hash + 1);
    const target = base === '' ? own : componentOf.get(base);
    if (!target) throw new Error(`$ref ${ref} names no known schema`);
    return `#/components/schemas/${target}${fragment}`;
  };

  /** `own`: the component whose local references (`#/…`) are re-rooted; none outside a schema. */
  const rewriteRefs = (node: unknown, own?: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, own));
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] =
        key === '$ref' && typeof value === 'string' ? componentRef(value, own) : rewriteRefs(value, own);
    }
    return out;
  };

  const toComponent = (schema: { $id: string; title: string }): Json => {
    const own = componentOf.get(schema.$id);
    if (!own) throw new Error(`no component for ${schema.$id}`);
    // An `$id` would change the base URI the rewritten references resolve against.
    const { $schema: _dialect, $id: _id, ...rest } = schema as Json;
    return rewriteRefs(rest, own) as Json;
  };

  return {
    schemas: () => Object.fromEntries(all.map((schema) => [schema.title, toComponent(schema)])),
    toComponent,
    rewrite: (node) => rewriteRefs(node),
  };
}
