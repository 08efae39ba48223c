import {
  type AllStreamResolvedEvent,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  FORWARDS,
  isCommandError,
  type JSONType,
  jsonEvent,
  NO_STREAM,
  type ResolvedEvent,
  START,
  type StreamingRead,
} from '@eventstore/db-client';
import {
  type AppendOptions,
  type AppendResult,
  DuplicateEventIdError,
  type EventFilter,
  type EventStore,
  EventStoreClosedError,
  type EventSubscription,
  EventTooLargeError,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../../ports/event-store';
import { mapConcurrently } from '../../runtime/support/map-concurrently';
import type {
  ExportableEventStore,
  RecordedAppendHooks,
  RepositioningImportTarget,
} from '../ndjson/event-stores';
import { readBatches } from './batches';
import {
  assertPosition,
  connectionOptionProblem,
  decodeIdClaim,
  type EsdbRecord,
  encodeMetadata,
  eventIdOf,
  hidePassword,
  ID_CLAIM_EVENT_TYPE,
  ID_CLAIM_STREAM_PREFIX,
  idClaimStreamOf,
  importProblem,
  planFilter,
  positionOf,
  positionToNumber,
  redactConnectionString,
  revisionToNumber,
  serializedSize,
  startOf,
  toAppendExpectedRevision,
  toRecordedEvent,
  toWrongExpectedVersion,
} from './mapping';

/** The calls of the client this adapter makes (a test can hand in an imitation). */
export type EsdbClient = Pick<
  EventStoreDBClient,
  'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'
>;

export interface EsdbEventStoreOptions {
  /** Largest serialized event (data + metadata + type + stream + id) accepted, in bytes. Default 1 MiB. */
  maxEventBytes?: number;
  /** How long `connect` waits for the server's first answer. Default 5 s. */
  connectTimeoutMs?: number;
  /** Id claims written at once by one append (see `claimIds`). Default 64. */
  claimConcurrency?: number;
}

const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Events buffered ahead of the reader by a read or a subscription. */
const READ_AHEAD = 512;
/** Events of an import whose ids are claimed together, in parallel, before they are appended in order. */
const RECORDED_APPEND_WINDOW = 256;

/**
 * The event store port on EventStoreDB (gRPC client 6.2, server 22.6 or later; written for 24.10).
 *
 * - Streams, revisions and optimistic concurrency are EventStoreDB's own; the port's tenant, correlation,
 *   causation and schema version travel in each event's JSON metadata; positions are `$all` commit
 *   positions; recorded_at is the server's `created` time.
 * - Event ids are unique across the store, which EventStoreDB does not check (only within a stream): an
 *   append first claims each of its ids (see `claimIds`). That costs one extra small write per event.
 * - `readAll` and `headPosition` filter on the client: this client's `readAll` takes no server-side
 *   filter. Subscriptions filter on the server.
 * - System events (types starting with `$`) and the id claims are never returned.
 * - An import (`appendRecorded`) keeps every event's stream, revision, id and recorded_at (carried in
 *   the metadata), but not its position: EventStoreDB assigns positions itself. It is not atomic.
 */
export class EsdbEventStore implements EventStore, ExportableEventStore, RepositioningImportTarget {
  private readonly maxEventBytes: number;
  private readonly claimConcurrency: number;
  private readonly subscriptions = new Set<EventSubscription>();
  private closed = false;

  constructor(
    private readonly client: EsdbClient,
    options: EsdbEventStoreOptions = {},
  ) {
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.claimConcurrency = options.claimConcurrency ?? 64;
  }

  /**
   * Connects to the server of `connectionString` (`esdb://host:2113?tls=false`,
   * `esdb+discover://…`, credentials as `esdb://user:password@host:2113`) and checks within
   * `connectTimeoutMs` that it answers and lets this user read `$all`.
   */
  static async connect(
    connectionString: string,
    options: EsdbEventStoreOptions = {},
  ): Promise<EsdbEventStore> {
    const name = redactConnectionString(connectionString);
    let client: EventStoreDBClient;
    try {
      const problem = connectionOptionProblem(connectionString);
      if (problem) throw new Error(problem);
      client = EventStoreDBClient.connectionString(connectionString);
    } catch (error) {
      throw new EventStoreConnectionError(
        `${name} is not a usable EventStoreDB connection string (esdb://host:2113?tls=false): ` +
          hidePassword(messageOf(error), connectionString),
      );
    }
    const store = new EsdbEventStore(client, options);
    const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    try {
      await withTimeout(store.probe(), timeoutMs);
    } catch (error) {
      void store.close().catch(() => undefined);
      const reason =
        error instanceof TimeoutError
          ? `no answer within ${timeoutMs / 1000} s`
          : hidePassword(messageOf(error), connectionString);
      throw new EventStoreConnectionError(
        `EventStoreDB at ${name} cannot be read: ${reason}. Check the address, that the node runs, its TLS ` +
          'setting (?tls=false for an insecure node) and that the user may read $all',
      );
    }
    return store;
  }

  async append(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    this.assertOpen();
    const expected = options.expectedRevision ?? 'any';
    const expectedRevision = toAppendExpectedRevision(expected);
    const prepared = this.prepare(stream, events);
    const ids = prepared.map((event) => event.id);

    const { earlierClaims } = await this.claimIds(stream, ids);
    if (earlierClaims) {
      // A retry of an append that may already have landed: answer as the first time, exactly.
      const earlier = await this.findEarlierAppend(stream, ids);
      if (earlier) return earlier;
    }

    let result: Awaited<ReturnType<EsdbClient['appendToStream']>>;
    try {
      result = await this.client.appendToStream(stream, prepared, { expectedRevision });
    } catch (error) {
      throw appendError(error, stream, expected, prepared.length);
    }
    const nextRevision = revisionToNumber(result.nextExpectedRevision);
    // The server answers with the commit position of the append's last event (each event of a gRPC
    // append is committed on its own); when it gives none, the event is read back.
    const position = result.position
      ? positionToNumber(result.position)
      : await this.positionOfRevision(stream, nextRevision);
    return { nextRevision, position };
  }

  /**
   * Appends events another store recorded (`gov import`), in their global order: each to its own stream
   * with its expected revision (`revision - 1`: a gap, or a stream that moved on, fails with
   * WrongExpectedVersionError), its id, and its recorded_at in the metadata, which reads back instead
   * of EventStoreDB's `created`. Positions are EventStoreDB's own; `hooks.onAppended` hears each one,
   * and `hooks.translate` may rewrite an event just before it is appended, once every earlier event's
   * new position is known. Ids are claimed a window ahead, in parallel; an event already at its
   * revision with its id (an import resumed after a failure) is not written twice. Not atomic: what
   * was appended before a failure stays.
   */
  async appendRecorded(
    events: AsyncIterable<RecordedEvent>,
    hooks: RecordedAppendHooks = {},
  ): Promise<{ events: number; last_position: number }> {
    this.assertOpen();
    let count = 0;
    let lastPosition = 0;
    const appendWindow = async (window: RecordedEvent[]) => {
      await mapConcurrently(window, this.claimConcurrency, (event) =>
        this.claimOne(eventIdOf(event), event.stream).then((claim) => {
          if (claim.owner !== event.stream) throw new DuplicateEventIdError(claim.id);
        }),
      );
      for (const source of window) {
        const event = hooks.translate ? hooks.translate(source) : source;
        const expected: ExpectedRevision = event.revision === 0 ? 'no-stream' : event.revision - 1;
        const prepared = this.prepare(event.stream, [event], event.recorded_at);
        let result: Awaited<ReturnType<EsdbClient['appendToStream']>>;
        try {
          result = await this.client.appendToStream(event.stream, prepared, {
            expectedRevision: toAppendExpectedRevision(expected),
          });
        } catch (error) {
          throw appendError(error, event.stream, expected, 1);
        }
        // An idempotent append (the event was already there) answers without a position: read it back.
        const position = result.position
          ? positionToNumber(result.position)
          : await this.positionOfRevision(event.stream, event.revision);
        count += 1;
        lastPosition = position;
        hooks.onAppended?.(source, position);
      }
    };
    let window: RecordedEvent[] = [];
    for await (const event of events) {
      this.assertOpen();
      window.push(event);
      if (window.length === RECORDED_APPEND_WINDOW) {
        await appendWindow(window);
        window = [];
      }
    }
    if (window.length > 0) await appendWindow(window);
    return { events: count, last_position: lastPosition };
  }

  /** Why an event recorded elsewhere cannot be appended here as it is, or null (see `importProblem`). */
  importProblem(event: RecordedEvent): string | null {
    return importProblem(event);
  }

  async *readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    const backwards = options.direction === 'backwards';
    if (options.maxCount !== undefined && options.maxCount <= 0) return;
    if (options.fromRevision !== undefined && options.fromRevision < 0) return;
    const read = this.client.readStream(
      stream,
      {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision:
          options.fromRevision === undefined ? (backwards ? END : START) : BigInt(options.fromRevision),
        ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
      },
      { highWaterMark: READ_AHEAD },
    );
    for await (const record of records(read, { missingStreamIsEmpty: true })) {
      if (record.type.startsWith('$')) continue;
      yield toRecordedEvent(record);
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    const from = options.from;
    const after = options.after ?? 0;
    assertPosition(from ?? after);
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    const plan = planFilter(options.filter);
    const read = this.client.readAll(
      { fromPosition: startOf(from ?? after), direction: FORWARDS },
      { highWaterMark: READ_AHEAD },
    );
    for await (const record of records(read)) {
      if (!plan.matches(record.type, record.streamId)) continue;
      const event = toRecordedEvent(record);
      // A read from a position includes the event there: "after" excludes it, "from" keeps it.
      if (from !== undefined ? event.position < from : event.position <= after) continue;
      yield event;
      remaining -= 1;
      if (remaining <= 0) return;
    }
  }

  subscribeToAll(options: SubscribeOptions): EventSubscription {
    this.assertOpen();
    const after = options.after ?? 0;
    assertPosition(after);
    const plan = planFilter(options.filter);
    const maxBatchSize = options.maxBatchSize ?? 1000;
    const closing = new AbortController();
    let stop: (() => Promise<void>) | null = null;
    const client = this.client;
    const subscriptions = this.subscriptions;
    const subscription: EventSubscription = {
      async close() {
        closing.abort();
        subscriptions.delete(subscription);
        await stop?.();
      },
      async *[Symbol.asyncIterator]() {
        if (closing.signal.aborted) return;
        // A catch-up subscription: history from the position, then live events, in order.
        const source = client.subscribeToAll(
          { fromPosition: startOf(after), filter: plan.server },
          { highWaterMark: Math.max(READ_AHEAD, maxBatchSize) },
        );
        stop = () => source.unsubscribe().catch(() => undefined);
        const accept = (item: unknown): RecordedEvent | null => {
          const record = (item as AllStreamResolvedEvent).event;
          if (!record || !plan.matches(record.type, record.streamId)) return null;
          const event = toRecordedEvent(record);
          return event.position > after ? event : null;
        };
        try {
          yield* readBatches(source, accept, { maxBatchSize, signal: closing.signal });
          // The server ended it (it shut down or dropped it): not the end of $all, which has none.
          if (!closing.signal.aborted)
            throw new Error(
              'EventStoreDB ended the subscription to $all (the node stopped or dropped it); subscribe again from the last position',
            );
        } finally {
          subscriptions.delete(subscription);
          await stop();
        }
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  /** Reads `$all` from its end, skipping what does not match: quick when the newest match is recent. */
  async headPosition(filter?: EventFilter): Promise<number> {
    this.assertOpen();
    const plan = planFilter(filter);
    const read = this.client.readAll(
      { fromPosition: END, direction: BACKWARDS },
      { highWaterMark: READ_AHEAD },
    );
    for await (const record of records(read)) {
      if (plan.matches(record.type, record.streamId)) return positionOf(record);
    }
    return 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    // dispose() cancels the client's open calls; bounded, as a call stuck on a dead node may not end.
    await withTimeout(this.client.dispose(), 2_000).catch(() => undefined);
  }

  /** Reads the newest record of `$all`: the server answers, and this user may read `$all`. */
  private async probe(): Promise<void> {
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 });
    for await (const _record of records(read)) {
      /* one record at most */
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreClosedError();
  }

  /** The events as EventStoreDB takes them, with their ids; size and shape checked before anything is sent. */
  private prepare(stream: string, events: readonly NewEvent[], recordedAt?: string) {
    if (typeof stream !== 'string' || stream.length === 0)
      throw new TypeError('stream name must be non-empty');
    if (stream.startsWith('$') || stream.startsWith(ID_CLAIM_STREAM_PREFIX))
      throw new TypeError(
        `stream name '${stream}' is reserved: names starting with $ are EventStoreDB's, with ${ID_CLAIM_STREAM_PREFIX} this adapter's`,
      );
    if (events.length === 0) throw new TypeError(`append to '${stream}' has no events`);
    const ids = new Set<string>();
    return events.map((event) => {
      const id = eventIdOf(event);
      if (ids.has(id)) throw new DuplicateEventIdError(id);
      ids.add(id);
      if (typeof event.type !== 'string' || event.type === '' || event.type.startsWith('$'))
        throw new TypeError(`event type '${String(event.type)}' must be non-empty and not start with $`);
      const data = JSON.stringify(event.data);
      if (data === undefined) throw new TypeError(`the data of event '${event.type}' is not JSON`);
      const metadata = encodeMetadata(event, recordedAt);
      const size = serializedSize(stream, event.type, id, data, JSON.stringify(metadata));
      if (size > this.maxEventBytes) throw new EventTooLargeError(event.type, size, this.maxEventBytes);
      // The client serializes `data` itself; JSONType is its name for any JSON value.
      return jsonEvent({ id, type: event.type, data: event.data as JSONType, metadata: { ...metadata } });
    });
  }

  /**
   * Claims every id for `stream` (one tiny stream per id, created with `no_stream`), in parallel. An id
   * claimed by another stream is a DuplicateEventIdError, and nothing is appended. An id this stream
   * claimed before means a retry (`earlierClaims`). A claim outlives an append that then fails (a wrong
   * expected revision): the id stays reserved to that stream, which a retry may still use.
   */
  private async claimIds(stream: string, ids: readonly string[]): Promise<{ earlierClaims: boolean }> {
    const claims = await mapConcurrently(ids, this.claimConcurrency, (id) => this.claimOne(id, stream));
    const taken = claims.find((claim) => claim.owner !== stream);
    if (taken) throw new DuplicateEventIdError(taken.id);
    return { earlierClaims: claims.some((claim) => claim.earlier) };
  }

  /** Claims `id` for `stream`; an id claimed before answers with its owner (this stream on a retry). */
  private async claimOne(
    id: string,
    stream: string,
  ): Promise<{ id: string; owner: string; earlier: boolean }> {
    try {
      await this.client.appendToStream(
        idClaimStreamOf(id),
        // A fresh claim id each time: a second claim must conflict, never pass as an idempotent retry.
        jsonEvent({ type: ID_CLAIM_EVENT_TYPE, data: { stream } }),
        { expectedRevision: NO_STREAM },
      );
      return { id, owner: stream, earlier: false };
    } catch (error) {
      if (!isErrorOfType(error, ErrorType.WRONG_EXPECTED_VERSION)) throw error;
      return { id, owner: await this.ownerOf(id), earlier: true };
    }
  }

  private async ownerOf(id: string): Promise<string> {
    const read = this.client.readStream(idClaimStreamOf(id), {
      direction: FORWARDS,
      fromRevision: START,
      maxCount: 1,
    });
    for await (const record of records(read, { missingStreamIsEmpty: true })) {
      return decodeIdClaim(record.data, id).stream;
    }
    throw new Error(`event id ${id} is claimed, but its claim stream '${idClaimStreamOf(id)}' is empty`);
  }

  /**
   * When the same ids were appended to this stream before, in the same order and one after the other,
   * the result of that append; null when none of them is in the stream (the earlier attempt failed).
   * Otherwise some ids were used for other events: DuplicateEventIdError. Reads the stream backwards
   * until every id is found: a cost paid by retries only.
   */
  private async findEarlierAppend(stream: string, ids: readonly string[]): Promise<AppendResult | null> {
    const wanted = new Set(ids);
    const found = new Map<string, { revision: number; position: number }>();
    const read = this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END });
    for await (const record of records(read, { missingStreamIsEmpty: true })) {
      if (!wanted.has(record.id)) continue;
      found.set(record.id, { revision: revisionToNumber(record.revision), position: positionOf(record) });
      if (found.size === wanted.size) break;
    }
    if (found.size === 0) return null;
    const first = found.get(ids[0]!);
    const inOrder =
      first !== undefined && ids.every((id, i) => found.get(id)?.revision === first.revision + i);
    if (!inOrder) throw new DuplicateEventIdError(ids.find((id) => found.has(id))!);
    const last = found.get(ids[ids.length - 1]!)!;
    return { nextRevision: last.revision, position: last.position };
  }

  private async positionOfRevision(stream: string, revision: number): Promise<number> {
    const read = this.client.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 });
    for await (const record of records(read)) return positionOf(record);
    throw new Error(`stream '${stream}' has no event at revision ${revision} right after appending it`);
  }
}

/** EventStoreDB cannot be reached or read at all. */
class EventStoreConnectionError extends Error {
  override readonly name = 'EventStoreConnectionError';
}

/**
 * The records of a read, in order; a read left early is cancelled on the server (the client's stream
 * would otherwise keep reading). A stream that does not exist reads as empty when asked.
 */
async function* records(
  read: StreamingRead<ResolvedEvent | AllStreamResolvedEvent>,
  options: { missingStreamIsEmpty?: boolean } = {},
): AsyncGenerator<EsdbRecord> {
  let finished = false;
  try {
    for await (const resolved of read) {
      if (resolved.event) yield resolved.event;
    }
    finished = true;
  } catch (error) {
    if (options.missingStreamIsEmpty && isErrorOfType(error, ErrorType.STREAM_NOT_FOUND)) {
      finished = true;
      return;
    }
    throw error;
  } finally {
    if (!finished) void read.cancel().catch(() => undefined);
  }
}

/** The port's error for a failed append; errors the port has no name for get a message to act on. */
function appendError(error: unknown, stream: string, expected: ExpectedRevision, count: number): unknown {
  if (isErrorOfType(error, ErrorType.WRONG_EXPECTED_VERSION))
    return toWrongExpectedVersion(stream, expected, error as { actualVersion: 'no_stream' | bigint });
  if (isErrorOfType(error, ErrorType.MAXIMUM_APPEND_SIZE_EXCEEDED)) {
    const limit = (error as { maxAppendSize?: number }).maxAppendSize;
    return new Error(
      `the append of ${count} events to '${stream}' is larger than the server's MaxAppendSize` +
        `${limit ? ` (${limit} bytes)` : ''}: append fewer events at once, or raise MaxAppendSize ` +
        '(EVENTSTORE_MAX_APPEND_SIZE)',
      { cause: error },
    );
  }
  if (isErrorOfType(error, ErrorType.STREAM_DELETED))
    return new Error(`stream '${stream}' was deleted in EventStoreDB and cannot be appended to`, {
      cause: error,
    });
  return error;
}

function isErrorOfType(error: unknown, type: ErrorType): boolean {
  return error instanceof Error && isCommandError(error) && error.type === type;
}

class TimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
