/**
 * The `gov-events` export file: the whole event stream as NDJSON (UTF-8, one JSON value per line,
 * every line ended by `\n`).
 *
 *   line 1      header   {"format":"gov-events","version":1,"exported_at":"<ISO 8601>",
 *                         "source":"<store, e.g. sqlite:/data/events.db>","head_position":<P>}
 *   lines 2..   events   one RecordedEvent per line, in global position order:
 *                         {"id","type","stream","revision","position","recorded_at","tenant_id",
 *                          "correlation_id","causation_id","schema_version","data"}
 *   last line   trailer  {"trailer":true,"events":<N>,"last_position":<P>,"sha256":"<hex>"}
 *
 * `head_position` is the store's head when the export started: the file holds exactly the events up
 * to it (a consistent snapshot), so every event position is at most `head_position`. In the trailer,
 * `events` counts the event lines, `last_position` is the position of the last event (0 when there
 * is none) and `sha256` is the SHA-256 of every byte before the trailer line: the header line and
 * every event line, each with its `\n`. Positions are the store's own and are kept on import, since
 * `TreeHeadSigned` events name admission events by position.
 *
 * This module holds the format's types and its pure line codecs; reading and writing files is done
 * by `export-file.ts` and `export-writer.ts`.
 */
import { jsonShapeProblem, MAX_EVENT_DATA_DEPTH } from '../../event-schemas/json-shape';
import type { RecordedEvent } from '../../ports/event-store';

export const EXPORT_FORMAT = 'gov-events';
export const EXPORT_VERSION = 1;

export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  /** When the export started (ISO 8601 UTC). */
  exported_at: string;
  /** The store the events came from, e.g. `sqlite:/var/lib/gov/events.db`. */
  source: string;
  /** The store's head position when the export started; no event of the file is beyond it. */
  head_position: number;
}

export interface ExportTrailer {
  trailer: true;
  /** Number of event lines. */
  events: number;
  /** Position of the last event, 0 when there is none. */
  last_position: number;
  /** Lowercase hex SHA-256 of every byte of the file before the trailer line. */
  sha256: string;
}

/**
 * The file is not a complete, intact `gov-events` export. `line` is the 1-based line at fault (for a
 * truncated file: the line where the trailer was expected).
 */
export class ExportIntegrityError extends Error {
  override readonly name = 'ExportIntegrityError';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

/** Member order of an event line: the order of `RecordedEvent` in ports/event-store.ts. */
const EVENT_MEMBERS = [
  'id',
  'type',
  'stream',
  'revision',
  'position',
  'recorded_at',
  'tenant_id',
  'correlation_id',
  'causation_id',
  'schema_version',
  'data',
] as const;

const HEADER_MEMBERS = ['format', 'version', 'exported_at', 'source', 'head_position'] as const;
const TRAILER_MEMBERS = ['trailer', 'events', 'last_position', 'sha256'] as const;

// ---- Encoding --------------------------------------------------------------------------------------

export function encodeHeader(header: ExportHeader): string {
  return `${JSON.stringify({
    format: header.format,
    version: header.version,
    exported_at: header.exported_at,
    source: header.source,
    head_position: header.head_position,
  })}\n`;
}

/** One event line; members in a fixed order so the same event always gives the same bytes. */
export function encodeEvent(event: RecordedEvent): string {
  return `${JSON.stringify({
    id: event.id,
    type: event.type,
    stream: event.stream,
    revision: event.revision,
    position: event.position,
    recorded_at: event.recorded_at,
    tenant_id: event.tenant_id,
    correlation_id: event.correlation_id,
    causation_id: event.causation_id,
    schema_version: event.schema_version,
    data: event.data,
  })}\n`;
}

export function encodeTrailer(trailer: ExportTrailer): string {
  return `${JSON.stringify({
    trailer: true,
    events: trailer.events,
    last_position: trailer.last_position,
    sha256: trailer.sha256,
  })}\n`;
}

// ---- Decoding (each throws ExportIntegrityError naming the line) -----------------------------------

/** Parses one line's text as a JSON object. */
export function parseObjectLine(text: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ExportIntegrityError(line, `not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ExportIntegrityError(line, 'not a JSON object');
  return value as Record<string, unknown>;
}

export function isTrailerObject(value: Record<string, unknown>): boolean {
  return Object.hasOwn(value, 'trailer');
}

export function decodeHeader(value: Record<string, unknown>, line: number): ExportHeader {
  const fields = new FieldReader(value, line, 'header');
  if (value.format !== EXPORT_FORMAT)
    throw new ExportIntegrityError(
      line,
      `not a gov-events export: the header's format is ${JSON.stringify(value.format)}, expected "${EXPORT_FORMAT}"`,
    );
  if (value.version !== EXPORT_VERSION)
    throw new ExportIntegrityError(
      line,
      `export format version ${JSON.stringify(value.version)} is not supported; this gov reads version ${EXPORT_VERSION}`,
    );
  fields.onlyMembers(HEADER_MEMBERS);
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: fields.timestamp('exported_at'),
    source: fields.string('source'),
    head_position: fields.integer('head_position', 0),
  };
}

export function decodeEvent(value: Record<string, unknown>, line: number): RecordedEvent {
  const fields = new FieldReader(value, line, 'event');
  fields.onlyMembers(EVENT_MEMBERS);
  if (!Object.hasOwn(value, 'data')) throw new ExportIntegrityError(line, "event has no member 'data'");
  // What the HTTP API refuses in a body is refused here too: a store must never hold data nested
  // without bound (a 1,000-deep execution_context once wedged the governance projector).
  const shape = jsonShapeProblem(value.data, MAX_EVENT_DATA_DEPTH, '/data');
  if (shape)
    throw new ExportIntegrityError(
      line,
      `the event's ${shape.pointer} ${shape.reason}; no such event can be imported`,
    );
  return {
    id: fields.nonEmptyString('id'),
    type: fields.nonEmptyString('type'),
    stream: fields.nonEmptyString('stream'),
    revision: fields.integer('revision', 0),
    position: fields.integer('position', 1),
    recorded_at: fields.timestamp('recorded_at'),
    tenant_id: fields.string('tenant_id'),
    correlation_id: fields.string('correlation_id'),
    causation_id: fields.nullableString('causation_id'),
    schema_version: fields.integer('schema_version', 1),
    data: value.data,
  };
}

export function decodeTrailer(value: Record<string, unknown>, line: number): ExportTrailer {
  const fields = new FieldReader(value, line, 'trailer');
  fields.onlyMembers(TRAILER_MEMBERS);
  if (value.trailer !== true)
    throw new ExportIntegrityError(line, "the trailer's member 'trailer' must be true");
  const sha256 = fields.string('sha256');
  if (!/^[0-9a-f]{64}$/.test(sha256))
    throw new ExportIntegrityError(line, "the trailer's sha256 must be 64 lowercase hex digits");
  return {
    trailer: true,
    events: fields.integer('events', 0),
    last_position: fields.integer('last_position', 0),
    sha256,
  };
}

/** Typed access to the members of one parsed line, failing with the line number and member name. */
class FieldReader {
  constructor(
    private readonly value: Record<string, unknown>,
    private readonly line: number,
    private readonly what: string,
  ) {}

  onlyMembers(allowed: readonly string[]): void {
    const unknown = Object.keys(this.value).find((key) => !allowed.includes(key));
    if (unknown !== undefined)
      throw new ExportIntegrityError(this.line, `${this.what} has an unexpected member '${unknown}'`);
  }

  string(name: string): string {
    const value = this.value[name];
    if (typeof value !== 'string') throw this.fail(name, 'a string');
    return value;
  }

  nonEmptyString(name: string): string {
    const value = this.value[name];
    if (typeof value !== 'string' || value === '') throw this.fail(name, 'a non-empty string');
    return value;
  }

  nullableString(name: string): string | null {
    const value = this.value[name];
    if (value !== null && typeof value !== 'string') throw this.fail(name, 'a string or null');
    return value;
  }

  integer(name: string, min: number): number {
    const value = this.value[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
      throw this.fail(name, `an integer ≥ ${min}`);
    return value;
  }

  timestamp(name: string): string {
    const value = this.value[name];
    if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value) || Number.isNaN(Date.parse(value)))
      throw this.fail(name, 'an ISO 8601 UTC timestamp');
    return value;
  }

  private fail(name: string, expected: string): ExportIntegrityError {
    const got = Object.hasOwn(this.value, name) ? JSON.stringify(this.value[name]) : 'missing';
    return new ExportIntegrityError(
      this.line,
      `${this.what} member '${name}' must be ${expected} (got ${truncate(got ?? 'undefined')})`,
    );
  }
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
