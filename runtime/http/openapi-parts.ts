/**
 * Building blocks of the OpenAPI document, shared by the route tables and the document itself:
 * references to JSON Schemas by `$id` and to the document's components, and the error answers in the
 * API's one error shape (./errors.ts), those of the engine's bounded waits among them.
 */
import type { CommandName, RecordName, ResponseName } from '../../event-schemas';
import type { Config } from '../config/config';
import type { ErrorCode } from './errors';

export type Json = Record<string, unknown>;

/** What the served document says that depends on this server's configuration. */
export type DocumentSettings = Pick<
  Config,
  'integrationTimeoutMs' | 'registrationsPerIpHour' | 'maxBodyBytes' | 'webhookTimeoutMs'
>;

/** A part of the document as it is, or as this server's configuration makes it. */
export type Documented<T extends Json | string> = T | ((settings: DocumentSettings) => T);

export function documented<T extends Json | string>(part: Documented<T>, settings: DocumentSettings): T {
  return typeof part === 'function' ? part(settings) : part;
}

/** The `$id` of a JSON Schema in event-schemas/; the document places each among its components. */
export type SchemaId =
  | `urn:gov:command:${CommandName}`
  | `urn:gov:record:${RecordName}`
  | `urn:gov:response:${ResponseName}`;

/** A JSON Schema by `$id` (a JSON Pointer `fragment` into it optional); the document resolves it. */
export const schema = (id: SchemaId, fragment = ''): Json => ({ $ref: fragment ? `${id}#${fragment}` : id });
export const responseRef = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
export const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });
export const parameterRef = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });
export const json = (body: Json): Json => ({ 'application/json': { schema: body } });

/** The shared error body narrowed to the codes one status answers with. */
export function errorSchema(codes: readonly ErrorCode[], withFields = false): Json {
  return {
    allOf: [schema('urn:gov:response:error')],
    type: 'object',
    properties: { error: { enum: [...codes] } },
    ...(withFields ? { required: ['fields'] } : {}),
  };
}

export function errorResponse(description: string, codes: readonly ErrorCode[], headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: json(errorSchema(codes, codes.includes('INVALID_REQUEST'))),
  };
}

export const invalid = (description: string): Json => errorResponse(description, ['INVALID_REQUEST']);
export const notFound = (description: string): Json => errorResponse(description, ['NOT_FOUND']);

/** A read that waited its limit at the read barrier (read-api/engine/read-barrier.ts). */
export const readModelsBehind = (settings: DocumentSettings) =>
  errorResponse(
    `SERVICE_UNAVAILABLE (beyond the spec): a read model had not applied, within ${duration(settings.integrationTimeoutMs)}, a write this service already acknowledged (an admission is answered 201 once signed, and the read models apply it moments later; reads wait for that). Nothing is lost; retry after Retry-After.`,
    ['SERVICE_UNAVAILABLE'],
    { 'Retry-After': headerRef('RetryAfter') },
  );

/**
 * A log read that waited its limit for a tree head the service signed: the read model of heads had
 * not applied it, or (production topology) this process had not read it from the event store.
 */
export const logHeadsBehind = (settings: DocumentSettings) =>
  errorResponse(
    `SERVICE_UNAVAILABLE (beyond the spec): the tree head asked for (or one past this process's latest) was signed, but within ${duration(settings.integrationTimeoutMs)} the read model of tree heads had not applied it, or this read API had not read it from the event store. Every head the service has handed out is served; nothing is lost; retry after Retry-After.`,
    ['SERVICE_UNAVAILABLE'],
    { 'Retry-After': headerRef('RetryAfter') },
  );

/** 5000 → `5 s`, 120000 → `2 min`. */
export function duration(ms: number): string {
  return ms < 60_000 ? `${ms / 1000} s` : `${ms / 60_000} min`;
}
