/**
 * Translation between the event store port and the types of `@eventstore/db-client` 6.2: expected
 * revisions, event metadata, positions, filters and connection strings. Pure functions, no I/O, so they
 * are tested without a server (mapping.test.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  ANY,
  type AppendExpectedRevision,
  type CurrentRevision,
  eventTypeFilter,
  excludeSystemEvents,
  type Filter,
  NO_STREAM,
  type Position,
  type ReadPosition,
  START,
  STREAM_EXISTS,
  streamNameFilter,
} from '@eventstore/db-client';
import {
  type EventFilter,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../../ports/event-store';

// ── Expected and current revisions ────────────────────────────────────────────────────────────────

export function toAppendExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no-stream') return NO_STREAM;
  if (expected === 'exists') return STREAM_EXISTS;
  if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 0)
    throw new TypeError(
      `expectedRevision must be 'any', 'no-stream', 'exists' or a revision (an integer from 0); got ${String(expected)}`,
    );
  return BigInt(expected);
}

/** The stream's revision as the client reports it (`no_stream` or a bigint), in the port's terms. */
export function fromCurrentRevision(current: CurrentRevision): number | 'no-stream' {
  return current === NO_STREAM ? 'no-stream' : revisionToNumber(current);
}

/** The port's error for the client's WrongExpectedVersionError (which names the stream's actual revision). */
export function toWrongExpectedVersion(
  stream: string,
  expected: ExpectedRevision,
  clientError: { actualVersion: CurrentRevision },
): WrongExpectedVersionError {
  return new WrongExpectedVersionError(stream, expected, fromCurrentRevision(clientError.actualVersion));
}

export function revisionToNumber(revision: bigint): number {
  if (revision < 0n || revision > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(
      `stream revision ${revision} is outside the range this adapter handles (0 to 2^53 - 1)`,
    );
  return Number(revision);
}

// ── Positions ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The port's position of an event: its commit position in `$all`. Events appended through gRPC are
 * committed one by one (each prepare is its own commit), so commit positions are distinct and grow
 * with commit order, and the prepare position equals the commit position.
 */
export function positionToNumber(position: Position): number {
  const commit = position.commit;
  if (commit < 0n || commit > BigInt(Number.MAX_SAFE_INTEGER)) throw new PositionOutOfRangeError(commit);
  return Number(commit);
}

/** The client's position for one of ours (commit and prepare are the same for gRPC appends). */
export function numberToPosition(position: number): Position {
  assertPosition(position);
  return { commit: BigInt(position), prepare: BigInt(position) };
}

/**
 * Where to start reading or subscribing to `$all` for "strictly after `after`": the start for none (or
 * 0), else the event at `after` itself. A read includes that event (the caller skips it); a catch-up
 * subscription already starts after it.
 */
export function startOf(after: number | null | undefined): ReadPosition {
  if (after === null || after === undefined || after === 0) return START;
  return numberToPosition(after);
}

export function assertPosition(position: number): void {
  if (!Number.isSafeInteger(position) || position < 0)
    throw new TypeError(`a position is an integer from 0 to 2^53 - 1; got ${String(position)}`);
}

/** A commit position past 2^53: a store of several petabytes, which a JavaScript number cannot name. */
export class PositionOutOfRangeError extends Error {
  override readonly name = 'PositionOutOfRangeError';
  constructor(readonly commit: bigint) {
    super(
      `EventStoreDB commit position ${commit} is larger than 2^53 - 1, the largest position the event store ` +
        'port can carry as a number; this adapter cannot serve a transaction log that large',
    );
  }
}

// ── Metadata ──────────────────────────────────────────────────────────────────────────────────────

/** The JSON metadata stored with every event of ours: the port's fields EventStoreDB does not have. */
export interface GovMetadata {
  tenant_id: string;
  correlation_id: string;
  causation_id: string | null;
  schema_version: number;
  /**
   * When the event was first recorded, for an event imported from another store (`gov import`): its
   * recorded_at is that time, not the `created` time EventStoreDB gave the copy. Absent otherwise.
   */
  recorded_at?: string;
}

/** The metadata of an appended event; `recordedAt` only for an event recorded elsewhere first (an import). */
export function encodeMetadata(event: NewEvent, recordedAt?: string): GovMetadata {
  return {
    tenant_id: event.tenant_id,
    correlation_id: event.correlation_id,
    causation_id: event.causation_id ?? null,
    schema_version: event.schema_version ?? 1,
    ...(recordedAt === undefined ? {} : { recorded_at: recordedAt }),
  };
}

/** The metadata of a stored event; throws ForeignEventError when it is not ours. */
export function decodeMetadata(raw: unknown, where: string): GovMetadata {
  if (typeof raw !== 'object' || raw === null || raw instanceof Uint8Array || Array.isArray(raw))
    throw new ForeignEventError(where, 'its metadata is not a JSON object');
  const m = raw as Record<string, unknown>;
  if (typeof m.tenant_id !== 'string') throw new ForeignEventError(where, 'its metadata has no tenant_id');
  if (typeof m.correlation_id !== 'string')
    throw new ForeignEventError(where, 'its metadata has no correlation_id');
  if (m.causation_id !== null && typeof m.causation_id !== 'string')
    throw new ForeignEventError(where, 'its metadata has no causation_id (a string or null)');
  if (!Number.isSafeInteger(m.schema_version) || (m.schema_version as number) < 1)
    throw new ForeignEventError(where, 'its metadata has no schema_version (an integer from 1)');
  if (m.recorded_at !== undefined && !isIsoInstant(m.recorded_at))
    throw new ForeignEventError(where, 'its metadata has a recorded_at that is not an ISO 8601 UTC time');
  return {
    tenant_id: m.tenant_id,
    correlation_id: m.correlation_id,
    causation_id: m.causation_id,
    schema_version: m.schema_version as number,
    ...(m.recorded_at === undefined ? {} : { recorded_at: m.recorded_at as string }),
  };
}

/** `2024-02-29T12:00:00.000Z`: what every store writes as recorded_at, and what an import carries over. */
function isIsoInstant(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}

/** An event in `$all` that this service did not write (another application shares the database). */
export class ForeignEventError extends Error {
  override readonly name = 'ForeignEventError';
  constructor(where: string, reason: string) {
    super(
      `${where} was not written by this service: ${reason}. Give the service an EventStoreDB database of its own, ` +
        'or filter the read by stream prefix or event type',
    );
  }
}

/** Bytes an event takes once serialized (data, metadata, type, stream and id), as the size limit counts. */
export function serializedSize(
  stream: string,
  type: string,
  id: string,
  data: string,
  metadata: string,
): number {
  return (
    Buffer.byteLength(data) +
    Buffer.byteLength(metadata) +
    Buffer.byteLength(type) +
    Buffer.byteLength(stream) +
    Buffer.byteLength(id)
  );
}

// ── Recorded events ───────────────────────────────────────────────────────────────────────────────

/** The fields of the client's RecordedEvent this adapter reads. */
export interface EsdbRecord {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  created: Date;
  isJson: boolean;
  data: unknown;
  metadata: unknown;
  /** Present on EventStoreDB 22.6 and later, also when reading a single stream. */
  position?: Position;
}

export function positionOf(record: EsdbRecord): number {
  if (!record.position)
    throw new Error(
      `EventStoreDB returned event ${record.id} of stream '${record.streamId}' without its position: ` +
        'this adapter needs EventStoreDB 22.6 or later',
    );
  return positionToNumber(record.position);
}

export function toRecordedEvent(record: EsdbRecord): RecordedEvent {
  const position = positionOf(record);
  const where = `event ${record.id} (type '${record.type}', stream '${record.streamId}', position ${position})`;
  if (!record.isJson) throw new ForeignEventError(where, 'its data is not JSON');
  const metadata = decodeMetadata(record.metadata, where);
  return {
    id: record.id,
    type: record.type,
    stream: record.streamId,
    revision: revisionToNumber(record.revision),
    position,
    // An imported event keeps the time it was first recorded; EventStoreDB's `created` is the copy's.
    recorded_at: metadata.recorded_at ?? record.created.toISOString(),
    tenant_id: metadata.tenant_id,
    correlation_id: metadata.correlation_id,
    causation_id: metadata.causation_id,
    schema_version: metadata.schema_version,
    data: record.data,
  };
}

// ── Event ids ─────────────────────────────────────────────────────────────────────────────────────

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id an event is stored under: EventStoreDB keeps ids as UUIDs and returns them in lower case, so
 * they are lower-cased here and read back exactly as appended.
 */
export function eventIdOf(event: NewEvent): string {
  if (event.id === undefined) return randomUUID();
  if (typeof event.id !== 'string' || !UUID.test(event.id))
    throw new TypeError(
      `event id '${String(event.id)}' is not a UUID; EventStoreDB stores event ids as UUIDs`,
    );
  return event.id.toLowerCase();
}

/**
 * Why an event recorded by another store cannot be appended to EventStoreDB exactly as it is, or null:
 * its id must already be a lower-case UUID (EventStoreDB would store another spelling), its stream and
 * type must not be names EventStoreDB or this adapter reserve. Checked for a whole export before an
 * import appends anything.
 */
export function importProblem(event: {
  id: string;
  stream: string;
  type: string;
  revision: number;
}): string | null {
  if (!UUID.test(event.id) || event.id !== event.id.toLowerCase())
    return `its id '${event.id}' is not a lower-case UUID, which EventStoreDB would store differently`;
  if (event.stream === '' || event.stream.startsWith('$') || event.stream.startsWith(ID_CLAIM_STREAM_PREFIX))
    return `its stream name '${event.stream}' is reserved in EventStoreDB (names starting with $ or ${ID_CLAIM_STREAM_PREFIX})`;
  if (event.type === '' || event.type.startsWith('$'))
    return `its type '${event.type}' is reserved in EventStoreDB (types starting with $)`;
  if (!Number.isSafeInteger(event.revision) || event.revision < 0)
    return `its revision ${event.revision} is not an integer from 0`;
  return null;
}

/**
 * EventStoreDB checks event ids per stream only. The port wants an id used once in the whole store, so
 * each id is claimed first by creating a stream named after it (`expectedRevision: no_stream` makes the
 * claim atomic): the first append to claim an id owns it, and the claim records which stream that is.
 */
export const ID_CLAIM_STREAM_PREFIX = 'gov-event-id-';
/** A system event type (`$`): every reader of `$all`, this adapter's included, leaves claims out. */
export const ID_CLAIM_EVENT_TYPE = '$gov-event-id';

export function idClaimStreamOf(eventId: string): string {
  return `${ID_CLAIM_STREAM_PREFIX}${eventId}`;
}

export interface IdClaim {
  stream: string;
}

export function decodeIdClaim(data: unknown, eventId: string): IdClaim {
  const stream = (data as { stream?: unknown } | null)?.stream;
  if (typeof stream !== 'string')
    throw new Error(
      `the claim of event id ${eventId} (stream '${idClaimStreamOf(eventId)}') does not name a stream`,
    );
  return { stream };
}

// ── Filters ───────────────────────────────────────────────────────────────────────────────────────

/** Events EventStoreDB writes itself (`$metadata`, `$statsCollected`, links `$>`…), and id claims. */
export function isSystemEventType(type: string): boolean {
  return type.startsWith('$');
}

export interface FilterPlan {
  /**
   * What a subscription asks the server to filter. The server filters on one field only, so with both
   * stream prefixes and event types it filters the stream prefixes (the narrower, as a rule) and
   * `matches` checks the types. Its prefix matching of event types is made exact by `matches` too.
   */
  server: Filter;
  /** Whether an event belongs in the result: never a system event, and within the port's filter. */
  matches(type: string, stream: string): boolean;
}

export function planFilter(filter: EventFilter | undefined): FilterPlan {
  const types = filter?.eventTypes?.length ? new Set(filter.eventTypes) : null;
  const prefixes = filter?.streamPrefixes?.length ? [...filter.streamPrefixes] : null;
  const server = prefixes
    ? streamNameFilter({ prefixes })
    : types
      ? eventTypeFilter({ prefixes: [...types] })
      : excludeSystemEvents();
  return {
    server,
    matches: (type, stream) =>
      !isSystemEventType(type) &&
      (types === null || types.has(type)) &&
      (prefixes === null || prefixes.some((prefix) => stream.startsWith(prefix))),
  };
}

// ── Connection strings ────────────────────────────────────────────────────────────────────────────

/** `esdb://…` (one node or a list of nodes) or `esdb+discover://…` (cluster discovery through DNS). */
export function isEventStoreDbUrl(value: string): boolean {
  return /^esdb(\+discover)?:\/\//i.test(value.trim());
}

/** The connection string (or any URL) without its password, for messages and export headers. */
export function redactConnectionString(connectionString: string): string {
  return connectionString.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i,
    (_match, scheme: string, userinfo: string) => {
      const user = userinfo.split(':')[0] ?? '';
      return `${scheme}${user}${userinfo.includes(':') ? ':***' : ''}@`;
    },
  );
}

/** `text` (a client error message, say) with the connection string's password, if any, hidden. */
export function hidePassword(text: string, connectionString: string): string {
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(connectionString)?.[1];
  const colon = userinfo?.indexOf(':') ?? -1;
  const password = colon >= 0 ? userinfo!.slice(colon + 1) : '';
  return password === '' ? text : text.split(password).join('***');
}

/** The options @eventstore/db-client 6.2 reads from a connection string, compared as it does. */
const CONNECTION_OPTIONS = new Set(
  [
    'userCertFile',
    'userKeyFile',
    'maxDiscoverAttempts',
    'connectionName',
    'defaultDeadline',
    'discoveryInterval',
    'gossipTimeout',
    'nodePreference',
    'tls',
    'tlsVerifyCert',
    'tlsCAFile',
    'throwOnAppendFailure',
    'keepAliveInterval',
    'keepAliveTimeout',
    'dnsDiscover',
  ].map(flatCase),
);

/**
 * What is wrong with the connection string's options, or null. The client ignores an unknown option,
 * and `tlsVerifyCert=false` has no effect, printing a warning that repeats the whole string (password
 * included): both are refused here instead, before the client sees them.
 */
export function connectionOptionProblem(connectionString: string): string | null {
  const query = connectionString.split('?').slice(1).join('?');
  for (const pair of query.split('&').filter((part) => part !== '')) {
    const [key = '', value = ''] = pair.split('=');
    if (!CONNECTION_OPTIONS.has(flatCase(key)))
      return `unknown option '${key}' (the client reads tls, tlsCAFile, userCertFile, userKeyFile, connectionName, defaultDeadline, keepAliveInterval, keepAliveTimeout, nodePreference, maxDiscoverAttempts, discoveryInterval, gossipTimeout, throwOnAppendFailure)`;
    if (flatCase(key) === 'tlsverifycert' && value.trim() === 'false')
      return 'tlsVerifyCert=false is not supported by the client: give the CA with tlsCAFile=<file> instead';
  }
  return null;
}

function flatCase(key: string): string {
  return key.trim().toLowerCase().replace(/[_-]/g, '');
}
