/**
 * fast-check arbitraries derived from the JSON Schemas in `schemas/`, for property tests: values a
 * command schema accepts (`validCommandBody`) and JSON values of every shape, most of them near-misses
 * of a valid body (`hostileBody`). Covers the keywords these schemas use; a keyword it does not know
 * fails loudly rather than generating values the schema might refuse. Test-only: nothing at runtime
 * imports it.
 */
import fc from 'fast-check';
import { commandSchemas, recordSchemas } from './schemas';
import { type CommandName, validateCommand } from './validation';

type Schema = Record<string, unknown>;

/** Keywords that only describe, or that the generator satisfies through others. */
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', '$defs', 'default', 'examples']);
const HANDLED = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'pattern',
  'minLength',
  'maxLength',
  'format',
  'minimum',
  'maximum',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'maxProperties',
  'propertyNames',
  'anyOf',
  'allOf',
  '$ref',
]);

/** Schemas referenced by `$id` from other schemas (records such as observables). */
const BY_ID = new Map<string, Schema>(
  [...Object.values(recordSchemas), ...Object.values(commandSchemas)].map((schema) => [
    schema.$id,
    schema as Schema,
  ]),
);

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  email: fc.emailAddress().filter((email) => email.length <= 254),
  uri: fc.webUrl({ withQueryParameters: true, withFragments: true }),
  'date-time': fc
    .date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString()),
  uuid: fc.uuid(),
};

/** An arbitrary of values `schema` accepts; `root` resolves its local `#/$defs/…` references. */
export function arbitraryOf(schema: Schema, root: Schema = schema): fc.Arbitrary<unknown> {
  for (const key of Object.keys(schema)) {
    if (!ANNOTATIONS.has(key) && !HANDLED.has(key)) throw new Error(`schema-arbitrary: keyword ${key}`);
  }
  if (typeof schema.$ref === 'string') return arbitraryOf(...resolve(schema.$ref, root));
  // One schema wrapped (a command whose body is a record): the values that schema accepts.
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...common } = schema;
    if (allOf.length !== 1) throw new Error('schema-arbitrary: allOf of more than one schema');
    return arbitraryOf({ ...common, ...(allOf[0] as Schema) }, root);
  }
  if (Array.isArray(schema.anyOf)) {
    const { anyOf, ...common } = schema;
    return fc.oneof(...(anyOf as Schema[]).map((option) => arbitraryOf({ ...common, ...option }, root)));
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  return fc.oneof(...types.map((type) => ofType(type, schema, root)));
}

function resolve(ref: string, root: Schema): [Schema, Schema] {
  const [base, fragment = ''] = ref.split('#');
  const document = base ? BY_ID.get(base) : root;
  if (!document) throw new Error(`schema-arbitrary: unknown $ref ${ref}`);
  let node: unknown = document;
  for (const segment of fragment.split('/').filter(Boolean)) node = (node as Schema)[segment];
  return [node as Schema, document];
}

function ofType(type: string, schema: Schema, root: Schema): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: bound(schema.minimum, -1e9), max: bound(schema.maximum, 1e9) });
    case 'number':
      return fc.double({
        min: bound(schema.minimum, -1e12),
        max: bound(schema.maximum, 1e12),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayOf(schema, root);
    case 'object':
      return objectOf(schema, root);
    default:
      throw new Error(`schema-arbitrary: type ${type}`);
  }
}

function bound(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = bound(schema.minLength, 0);
  const maxLength = bound(schema.maxLength, 300);
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : null;
  let base: fc.Arbitrary<string>;
  if (typeof schema.format === 'string') {
    const format = FORMATS[schema.format];
    if (!format) throw new Error(`schema-arbitrary: format ${schema.format}`);
    base = format;
  } else if (pattern) base = fc.stringMatching(pattern);
  else base = fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 64) });
  // Code points, as JSON Schema counts them.
  return base.filter((text) => {
    const length = [...text].length;
    return length >= minLength && length <= maxLength && (!pattern || pattern.test(text));
  });
}

function arrayOf(schema: Schema, root: Schema): fc.Arbitrary<unknown[]> {
  const items = arbitraryOf((schema.items as Schema | undefined) ?? {}, root);
  const constraints = {
    minLength: bound(schema.minItems, 0),
    maxLength: bound(schema.maxItems, 8),
  };
  return schema.uniqueItems
    ? fc.uniqueArray(items, { ...constraints, selector: (item) => JSON.stringify(item) })
    : fc.array(items, constraints);
}

function objectOf(schema: Schema, root: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = (schema.required as string[] | undefined) ?? [];
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, sub]) => [name, arbitraryOf(sub, root)])),
    { requiredKeys: required.filter((name) => name in properties) },
  );
  const additional = schema.additionalProperties;
  if (additional === false || additional === undefined) return known;
  const maxExtra = Math.max(0, bound(schema.maxProperties, 8) - Object.keys(properties).length);
  const names = schema.propertyNames
    ? stringOf(schema.propertyNames as Schema)
    : fc.string({ minLength: 1, maxLength: 16 });
  const values =
    additional === true ? fc.jsonValue({ maxDepth: 2 }) : arbitraryOf(additional as Schema, root);
  return fc
    .tuple(known, fc.dictionary(names, values, { maxKeys: Math.min(maxExtra, 6) }))
    .map(([fixed, extra]) => ({ ...extra, ...fixed }))
    .filter((value) => Object.keys(value).length <= bound(schema.maxProperties, Number.POSITIVE_INFINITY));
}

/** Bodies the command's schema accepts (checked with the service's own validator). */
export function validCommandBody<N extends CommandName>(name: N): fc.Arbitrary<unknown> {
  return arbitraryOf(commandSchemas[name] as Schema).filter((body) => validateCommand(name, body).ok);
}

/**
 * JSON values a client could send instead: anything at all, and valid bodies with one field dropped,
 * replaced by any JSON value, or joined by an unknown one. Most are invalid; some stay valid.
 */
export function hostileBody<N extends CommandName>(name: N): fc.Arbitrary<unknown> {
  const valid = validCommandBody(name) as fc.Arbitrary<Record<string, unknown>>;
  const anyJson = fc.jsonValue({ maxDepth: 3 });
  return fc.oneof(
    anyJson,
    fc.tuple(valid, fc.nat()).map(([body, i]) => {
      const keys = Object.keys(body);
      const { [keys[i % keys.length]!]: _dropped, ...rest } = body;
      return rest;
    }),
    fc.tuple(valid, fc.nat(), anyJson).map(([body, i, value]) => {
      const keys = Object.keys(body);
      return { ...body, [keys[i % keys.length]!]: value };
    }),
    fc.tuple(valid, fc.string({ minLength: 1, maxLength: 12 }), anyJson).map(([body, key, value]) => ({
      ...body,
      [key]: value,
    })),
    fc.constantFrom(null, [], '', 0, true, { __proto__: null }, JSON.parse('{"__proto__":{"x":1}}')),
  );
}
