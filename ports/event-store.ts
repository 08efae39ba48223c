/**
 * The event store port, shaped by EventStoreDB: streams with revisions and optimistic concurrency,
 * a global `$all` order, server-side type filters and catch-up subscriptions from a stored position.
 * The embedded SQLite adapter and the EventStoreDB adapter both pass `ports/contract/event-store.contract.ts`.
 */

/** Optimistic concurrency expectation for an append (EventStoreDB's `expectedRevision`). */
export type ExpectedRevision = 'no-stream' | 'any' | 'exists' | number;

/** An event as a command handler produces it, before the store assigns revision and position. */
export interface NewEvent<TData = unknown> {
  /** UUID; generated when omitted. Re-appending the same ids to the same stream is idempotent. */
  id?: string;
  type: string;
  data: TData;
  tenant_id: string;
  correlation_id: string;
  /** The id of the event or request that caused this one; null for an external request. */
  causation_id?: string | null;
  /** Version of the event's JSON Schema; defaults to 1. */
  schema_version?: number;
}

/** An event as stored: every field below is present on every event read back. */
export interface RecordedEvent<TData = unknown> {
  id: string;
  type: string;
  stream: string;
  /** 0-based revision within the stream. */
  revision: number;
  /** Global position in `$all`: strictly increasing in commit order (not necessarily dense). */
  position: number;
  /** ISO 8601 UTC, set by the store at commit. */
  recorded_at: string;
  tenant_id: string;
  correlation_id: string;
  causation_id: string | null;
  schema_version: number;
  data: TData;
}

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
}

export interface AppendResult {
  /** Revision of the last event appended (the stream's new revision). */
  nextRevision: number;
  /** Global position of the last event appended. */
  position: number;
}

export interface EventFilter {
  /** Only events whose type is one of these. */
  eventTypes?: readonly string[];
  /** Only events whose stream name starts with one of these. */
  streamPrefixes?: readonly string[];
}

export interface ReadStreamOptions {
  /** First revision to read (inclusive); forwards default 0, backwards default the end. */
  fromRevision?: number;
  direction?: 'forwards' | 'backwards';
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Read events strictly after this position; omit (or null) to start at the beginning. */
  after?: number | null;
  /**
   * Instead of `after`: read events from this position on, the event there included. Only a position
   * an event was recorded at (EventStoreDB refuses a read from inside a record); for re-reading a
   * known event, where `after` would need the position before it.
   */
  from?: number;
  filter?: EventFilter;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Deliver events strictly after this position (a stored checkpoint); null = from the beginning. */
  after: number | null;
  filter?: EventFilter;
  /** Largest batch handed out at once. */
  maxBatchSize?: number;
  /**
   * For the event types named, only these members of `data` are needed (a follower that reads one
   * hash of a 5 KB event); other types are needed whole. A member is a name, or a dotted path to a
   * member of an object member (`bundle.parent_bundle_hash`). An adapter that can select them hands
   * out `data` holding just these (a member the event lacks is null); one that cannot hands out the
   * whole `data`, which holds them too.
   */
  dataMembers?: Readonly<Record<string, readonly string[]>>;
}

/**
 * A catch-up subscription: history first, then live events, with no gap and no duplicate at the
 * hand-over. Iterating yields non-empty batches in global order.
 */
export interface EventSubscription extends AsyncIterable<RecordedEvent[]> {
  /** Stop the subscription; a pending iteration ends. Idempotent. */
  close(): Promise<void>;
}

export interface EventStore {
  append(stream: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  /** Events of one stream; a stream that does not exist reads as empty. */
  readStream(stream: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
  /** Events of `$all` in global order. */
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;
  subscribeToAll(options: SubscribeOptions): EventSubscription;
  /** Position of the newest event in `$all`, or of the newest matching `filter` (0 when none). */
  headPosition(filter?: EventFilter): Promise<number>;
  close(): Promise<void>;
}

export class WrongExpectedVersionError extends Error {
  override readonly name = 'WrongExpectedVersionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual revision, or 'no-stream'. */
    readonly actual: number | 'no-stream',
  ) {
    super(
      `stream '${stream}': expected revision ${String(expected)}, but the stream is at ${String(actual)}`,
    );
  }
}

export class EventTooLargeError extends Error {
  override readonly name = 'EventTooLargeError';
  constructor(
    readonly eventType: string,
    readonly sizeBytes: number,
    readonly limitBytes: number,
  ) {
    super(
      `event '${eventType}' is ${sizeBytes} bytes when serialized; the limit is ${limitBytes} bytes. ` +
        'Store large payloads elsewhere and append a reference to them.',
    );
  }
}

/** An event id reused for a different event (not an idempotent retry of the same append). */
export class DuplicateEventIdError extends Error {
  override readonly name = 'DuplicateEventIdError';
  constructor(readonly eventId: string) {
    super(`event id ${eventId} is already used by another event`);
  }
}

export class EventStoreClosedError extends Error {
  override readonly name = 'EventStoreClosedError';
  constructor() {
    super('the event store is closed');
  }
}
