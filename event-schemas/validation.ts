import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { CommandBodies, EventPayloads, WebhookPayloads } from './generated/types';
import {
  commandSchemas,
  envelopeSchema,
  eventSchemas,
  recordSchemas,
  responseSchemas,
  webhookSchemas,
} from './schemas';

export type CommandName = keyof typeof commandSchemas;
export type EventType = keyof typeof eventSchemas;
export type RecordName = keyof typeof recordSchemas;
export type ResponseName = keyof typeof responseSchemas;
export type WebhookEventName = keyof typeof webhookSchemas;

/** One thing wrong with an input: where (RFC 6901 JSON pointer) and why, in words a person can act on. */
export interface FieldProblem {
  pointer: string;
  reason: string;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

// `verbose` exposes each failing schema, whose description makes a better reason than ajv's wording.
// Each validator is compiled once, on first use, then serves the HTTP edge and the check before every
// append alike; a process that needs a few (an audit thread checks tree heads only) compiles those.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, verbose: true });
addFormats(ajv);
// Records (bundle, envelope, …) are referenced from commands and events by their `$id`.
for (const schema of Object.values(recordSchemas)) ajv.addSchema(schema);
// Response bodies refer to records and to each other (`urn:gov:response:sth`) by `$id` as well, and
// to the command they answer (`urn:gov:command:cost-estimate#/properties/tier`).
for (const schema of Object.values(responseSchemas)) ajv.addSchema(schema);
for (const schema of Object.values(commandSchemas)) ajv.addSchema(schema);
const recordValidators = compileAll(recordSchemas);
const responseValidators = compileAll(responseSchemas);
const commandValidators = compileAll(commandSchemas);
const eventValidators = compileAll(eventSchemas);
// Webhook bodies refer to records (envelope, trace, variance record, report) by `$id`.
const webhookValidators = compileAll(webhookSchemas);
let envelopeValidator: ValidateFunction | undefined;

export function validateCommand<N extends CommandName>(name: N, body: unknown): Validation<CommandBodies[N]> {
  return run(commandValidators[name], body);
}

export function isKnownEventType(type: string): type is EventType {
  return Object.hasOwn(eventValidators, type);
}

export function validateEventData<T extends EventType>(type: T, data: unknown): Validation<EventPayloads[T]> {
  return run(eventValidators[type], data);
}

/** Validates one of the admitted records (proof bundle, envelope, …) against its schema. */
export function validateRecord<N extends RecordName>(name: N, record: unknown): Validation<unknown> {
  return run(recordValidators[name], record);
}

/** Validates an HTTP response body (registration, error, sth, …) against its schema. */
export function validateResponse<N extends ResponseName>(name: N, body: unknown): Validation<unknown> {
  return run(responseValidators[name], body);
}

export function isWebhookEventName(name: string): name is WebhookEventName {
  return Object.hasOwn(webhookValidators, name);
}

/** Validates a webhook body (the full payload or its trimmed summary) against its event's schema. */
export function validateWebhookPayload<N extends WebhookEventName>(
  name: N,
  payload: unknown,
): Validation<WebhookPayloads[N]> {
  return run(webhookValidators[name], payload);
}

/** Checks the metadata every stored event carries (used by importers and auditors). */
export function validateEnvelope(event: unknown): Validation<unknown> {
  envelopeValidator ??= ajv.compile(envelopeSchema);
  return run(envelopeValidator, event);
}

/** One validator per schema, each compiled when first read (compiling them all takes ~0.4 s of CPU). */
function compileAll<K extends string>(schemas: Record<K, object>): Record<K, ValidateFunction> {
  const out = {} as Record<K, ValidateFunction>;
  for (const name of Object.keys(schemas) as K[]) {
    const schema = schemas[name] as { $id?: string };
    let compiled: ValidateFunction | undefined;
    Object.defineProperty(out, name, {
      enumerable: true,
      get: () => (compiled ??= (schema.$id && ajv.getSchema(schema.$id)) || ajv.compile(schema)),
    });
  }
  return out;
}

function run<T>(validate: ValidateFunction, input: unknown): Validation<T> {
  if (validate(input)) return { ok: true, value: input as T };
  return { ok: false, problems: toProblems(validate.errors ?? []) };
}

/** Turns ajv's errors into one problem per offending field, pointing at the field itself. */
function toProblems(errors: readonly ErrorObject[]): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  // An anyOf reports every failed alternative; its own summary error is the one a person needs.
  const anyOfAt = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const error of errors) {
    if (error.schemaPath.includes('/anyOf/') && anyOfAt.has(error.instancePath)) continue;
    const problem = describe(error);
    const key = `${problem.pointer}\u0000${problem.reason}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}

function describe(error: ErrorObject): FieldProblem {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${at}/${escapePointer(String(params.missingProperty))}`, reason: 'is required' };
    case 'additionalProperties':
      return {
        pointer: `${at}/${escapePointer(String(params.additionalProperty))}`,
        reason: 'is not a known field; remove it',
      };
    case 'type':
      return { pointer: at, reason: `must be ${article(String(params.type))}` };
    case 'enum':
      return {
        pointer: at,
        reason: `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    case 'format':
      return { pointer: at, reason: `must be a valid ${String(params.format)}` };
    case 'pattern':
      return { pointer: at, reason: patternReason(error) };
    case 'anyOf':
      return { pointer: at, reason: describeAnyOf(error) };
    case 'propertyNames':
      return {
        pointer: `${at}/${escapePointer(String(params.propertyName))}`,
        reason: 'is not an allowed name',
      };
    default:
      return { pointer: at, reason: error.message ?? `fails ${error.keyword}` };
  }
}

function patternReason(error: ErrorObject): string {
  const schema = error.parentSchema as { description?: string } | undefined;
  if (String((error.params as { pattern?: string }).pattern) === '^[0-9a-f]{64}$')
    return 'must be a SHA-256 digest: 64 lowercase hex characters';
  return schema?.description
    ? `must match: ${schema.description}`
    : `must match ${String((error.params as { pattern?: string }).pattern)}`;
}

function describeAnyOf(error: ErrorObject): string {
  const schema = error.parentSchema as { description?: string } | undefined;
  return schema?.description
    ? `must be ${lowerFirst(schema.description)}`
    : 'matches none of the allowed forms';
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1).replace(/\.$/, '');
}

/** A member name as one RFC 6901 JSON pointer segment. */
export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
