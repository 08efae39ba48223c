import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import {
  type AppendOptions,
  type AppendResult,
  DuplicateEventIdError,
  type EventFilter,
  type EventStore,
  EventStoreClosedError,
  type EventSubscription,
  EventTooLargeError,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../../ports/event-store';
import { AppendNotifier } from './append-notifier';
import { EventWriterThread } from './event-writer';
import { type AppendOutcome, type AppendRequest, type EventRow, GroupCommitter } from './group-commit';
import { openSqlite, type SqliteDatabase } from './open';
import { RecentAppends, type RecentRead } from './recent-appends';
import { ScanMapping } from './scan-mapping';

export interface SqliteEventStoreOptions {
  /** Path of the SQLite file (created if missing), or ':memory:'. */
  file: string;
  /** Largest serialized event (data + metadata) accepted, in bytes. Default 1 MiB, as EventStoreDB. */
  maxEventBytes?: number;
  /** How often a live subscription looks for appends made by other processes. Default 25 ms. */
  pollIntervalMs?: number;
  /**
   * How often while other processes keep appending (see AppendNotifier). Default `pollIntervalMs`;
   * a process that follows others' appends (a topology role) polls quickly while they come.
   */
  activePollIntervalMs?: number;
  /** Events per page when reading `$all` or catching up. Default 1000. */
  pageSize?: number;
  /**
   * Commit on a writer thread with its own connection (started on the first append), so that the
   * commit's fsync never blocks this thread. The server's choice; tools commit on their own thread.
   */
  writerThread?: boolean;
  /**
   * Only reads what other connections append (a projection or delivery thread, a follower role).
   * Such a connection, and a `writerThread` store's own, gets a small page cache by default: SQLite
   * empties a connection's cache at its first read after another connection committed, at a cost
   * that grows with the cache (a walk of its whole hash table: ~25 µs per read once a catch-up has
   * filled 64 MiB), and a reader following the head needs few pages (catch-up scans are mapped).
   */
  follower?: boolean;
  /** This connection's page cache. Default 64 MiB, or 2 MiB for a follower (see `follower`). */
  cacheMiB?: number;
  now?: () => Date;
}

const FOLLOWER_CACHE_MIB = 2;

/** An append waiting for the next group commit, already serialized and size-checked. */
interface PendingAppend extends AppendRequest {
  /** Each event's data as appended (the rows hold it serialized). */
  data: unknown[];
  resolve: (result: AppendResult) => void;
  reject: (error: Error) => void;
}

/**
 * Column order of every SELECT of events: read in raw (array) mode, which is markedly faster. The
 * auditor reads the file with the same layout (audit/store-file.ts).
 */
export const EVENT_COLUMNS =
  'position, id, stream, revision, type, recorded_at, tenant_id, correlation_id, causation_id, schema_version, data';
/** One stored event, `data` still as JSON text. */
export type RawEventRow = [
  position: number,
  id: string,
  stream: string,
  revision: number,
  type: string,
  recorded_at: string,
  tenant_id: string,
  correlation_id: string,
  causation_id: string | null,
  schema_version: number,
  data: string,
];

type PageStatement = Statement<[number, number], RawEventRow>;

const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

/**
 * The embedded event store: one SQLite file in WAL mode with `synchronous=FULL`.
 *
 * Group commit: appends issued in the same turn of the event loop wait for one `setImmediate` and are
 * then committed together in a single IMMEDIATE transaction (one fsync). Each append is still checked
 * on its own, so a wrong expected revision fails that append alone. With `writerThread` the group is
 * committed on a thread of its own, and appends arriving while it is in flight form the next group.
 *
 * Global positions are SQLite rowids assigned inside the writer's exclusive transaction, so they are
 * dense and increase in commit order even when several processes share the file: a reader that has
 * seen position N can never later find a newly committed event below N. That is what makes the
 * catch-up hand-over free of gaps and duplicates.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: SqliteDatabase;
  private readonly maxEventBytes: number;
  private readonly pageSize: number;
  private readonly now: () => Date;
  private readonly notifier: AppendNotifier;
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  /** Maps the file while a read works through a backlog (see scan-mapping.ts). */
  private readonly scanMapping: ScanMapping;
  /** What this store committed last, for its own subscriptions (recent-appends.ts). */
  private readonly recent = new RecentAppends();
  /** An `importEvents` transaction is open on the connection: appends must not join it. */
  private importing = false;
  private readonly statements: ReturnType<typeof prepareStatements>;
  /** Commits groups on this connection, or (writerThread) on the writer thread's. */
  private readonly committer: GroupCommitter | null;
  private readonly writer: EventWriterThread | null;
  /** The group on the writer thread; appends arriving meanwhile form the next one. */
  private inFlight: Promise<void> | null = null;

  constructor(options: SqliteEventStoreOptions) {
    const follower = options.follower || (options.writerThread && options.file !== ':memory:');
    this.db = openSqlite(options.file, 'durable', options.cacheMiB ?? (follower ? FOLLOWER_CACHE_MIB : 64));
    this.scanMapping = new ScanMapping(this.db);
    createSchema(this.db);
    this.statements = prepareStatements(this.db);
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.pageSize = options.pageSize ?? 1000;
    this.now = options.now ?? (() => new Date());
    this.notifier = new AppendNotifier(
      options.pollIntervalMs ?? 25,
      () => this.statements.dataVersion(),
      options.activePollIntervalMs,
    );
    this.writer =
      options.writerThread && options.file !== ':memory:' ? new EventWriterThread(options.file) : null;
    this.committer = this.writer ? null : new GroupCommitter(this.db);
  }

  append(stream: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new EventStoreClosedError());
    if (this.importing) return Promise.reject(new ImportInProgressError());
    let rows: EventRow[];
    try {
      rows = this.toRows(stream, events);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.pending.push({
        stream,
        expected: options.expectedRevision ?? 'any',
        rows,
        data: events.map((event) => event.data),
        resolve,
        reject,
      });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  async *readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    const backwards = options.direction === 'backwards';
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    let next = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    while (remaining > 0 && !this.closed) {
      const limit = Math.min(this.pageSize, remaining);
      const page = (backwards ? this.statements.readStreamBackwards : this.statements.readStreamForwards).all(
        stream,
        next,
        limit,
      ) as RawEventRow[];
      for (const row of page) yield toRecordedEvent(row);
      if (page.length < limit) return;
      remaining -= page.length;
      const lastRevision = page[page.length - 1]![3];
      next = backwards ? lastRevision - 1 : lastRevision + 1;
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    // Positions here are integers: from N is after N - 1.
    let after = options.from !== undefined ? options.from - 1 : (options.after ?? 0);
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    let mapped = false;
    try {
      while (remaining > 0 && !this.closed) {
        const limit = Math.min(this.pageSize, remaining);
        const page = this.readPage(after, options.filter, limit).events;
        if (page.length === this.pageSize && !mapped) {
          this.scanMapping.begin();
          mapped = true;
        }
        for (const event of page) yield event;
        if (page.length < limit) return;
        remaining -= page.length;
        after = page[page.length - 1]!.position;
      }
    } finally {
      if (mapped) this.scanMapping.end();
    }
  }

  subscribeToAll(options: SubscribeOptions): EventSubscription {
    const store = this;
    const maxBatch = options.maxBatchSize ?? this.pageSize;
    let closed = false;
    const wake = new AbortController();
    return {
      async close() {
        closed = true;
        wake.abort();
      },
      async *[Symbol.asyncIterator]() {
        let after = options.after ?? 0;
        // Mapped while catching up (full batches), unmapped once following the head.
        let mapped = false;
        try {
          while (!closed && !store.closed) {
            // Read before waiting: an append that lands between this read and the wait still wakes us,
            // because the notifier compares against the version seen at `waitForAppend` time.
            const version = store.notifier.version();
            const page = store.readPage(after, options.filter, maxBatch, options.dataMembers);
            const batch = page.events;
            if ((batch.length === maxBatch) !== mapped) {
              mapped = !mapped;
              if (mapped) store.scanMapping.begin();
              else store.scanMapping.end();
            }
            after = page.through;
            if (batch.length > 0) {
              yield batch;
              continue;
            }
            await store.notifier.waitForChange(version, wake.signal);
          }
        } finally {
          if (mapped) store.scanMapping.end();
        }
      },
    };
  }

  async headPosition(filter?: EventFilter): Promise<number> {
    if (!hasFilter(filter)) return (this.statements.head.pluck().get() as number | null) ?? 0;
    const newest = this.filteredPageStatement(filter!, 'DESC').get(Number.MAX_SAFE_INTEGER, 1);
    return newest?.[0] ?? 0;
  }

  /**
   * Imports a whole event stream recorded elsewhere (`gov import`) into this store, which must be
   * empty: every event keeps its id, stream, revision, position (the rowid) and recorded_at exactly.
   * All or nothing: one IMMEDIATE transaction, committed only once `events` has completed, so an
   * error thrown by the source at its very end (an export file's checksum) leaves the store empty.
   * The store's rules are enforced as the events arrive: positions strictly increasing, revisions
   * contiguous from 0 in each stream, ids unique. Meanwhile appends are refused, other processes
   * wait for the write lock, and this connection's own reads would see the uncommitted events.
   */
  async importEvents(
    events: AsyncIterable<RecordedEvent>,
  ): Promise<{ events: number; last_position: number }> {
    if (this.closed) throw new EventStoreClosedError();
    if (this.importing) throw new ImportInProgressError();
    this.flush();
    this.importing = true;
    const s = this.statements;
    let count = 0;
    let lastPosition = 0;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      const head = (s.head.pluck().get() as number | null) ?? 0;
      if (head !== 0)
        throw new Error(
          `import refused: the event store already holds events (head position ${head}); import only into an empty store`,
        );
      for await (const event of events) {
        if (this.closed) throw new EventStoreClosedError();
        this.importOne(event, lastPosition);
        count += 1;
        lastPosition = event.position;
      }
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.importing = false;
    }
    if (count > 0) this.notifier.notify();
    return { events: count, last_position: lastPosition };
  }

  /**
   * Another connection (a thread of this process) says it committed appends: live subscriptions read
   * them now instead of at the next poll.
   */
  noteAppendedElsewhere(): void {
    if (!this.closed) this.notifier.notify();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Appends already accepted are committed before the store closes.
    this.flush();
    while (this.inFlight) await this.inFlight;
    this.closed = true;
    await this.writer?.close();
    this.notifier.close();
    this.db.close();
  }

  /**
   * The events after `after` (at most `limit`), and the position the filter has been applied through:
   * past the last event returned when the positions after it did not match. A filtered subscription
   * goes on from there, rather than searching again, on every append, everything since the last
   * event it matched (for a rare type, such as a key rotation, a search through the whole log).
   */
  private readPage(
    after: number,
    filter: EventFilter | undefined,
    limit: number,
    dataMembers?: SubscribeOptions['dataMembers'],
  ): RecentRead {
    const recent = this.recent.read(after, filter, limit, dataMembers);
    if (!recent) return this.readFilePage(after, filter, limit, dataMembers);
    if (recent.events.length === limit) return recent;
    // Another connection may have committed after what this store holds.
    const later = this.readFilePage(recent.through, filter, limit - recent.events.length, dataMembers);
    return {
      events: later.events.length === 0 ? recent.events : [...recent.events, ...later.events],
      through: later.through,
    };
  }

  private readFilePage(
    after: number,
    filter: EventFilter | undefined,
    limit: number,
    dataMembers?: SubscribeOptions['dataMembers'],
  ): RecentRead {
    // Only a filter skips positions, so only then can the read look past its last event. The head is
    // read first: every position up to it is committed, so the page's own (later) snapshot holds it.
    const filtered = hasFilter(filter);
    const head = filtered ? ((this.statements.head.pluck().get() as number | null) ?? 0) : 0;
    const rows =
      filtered || dataMembers
        ? (this.filteredPageStatement(filter ?? {}, 'ASC', dataMembers).all(after, limit) as RawEventRow[])
        : (this.statements.readAll.all(after, limit) as RawEventRow[]);
    const events = rows.map(toRecordedEvent);
    const last = events.at(-1)?.position ?? after;
    return { events, through: events.length < limit ? Math.max(last, head) : last };
  }

  /** Filters are few and fixed per projector, so their statements are prepared once and cached. */
  private readonly filterStatements = new Map<string, PageStatement>();
  private filteredPageStatement(
    filter: EventFilter,
    order: 'ASC' | 'DESC' = 'ASC',
    dataMembers?: SubscribeOptions['dataMembers'],
  ): PageStatement {
    const key = `${order}${JSON.stringify(filter)}${dataMembers ? JSON.stringify(dataMembers) : ''}`;
    const cached = this.filterStatements.get(key);
    if (cached) return cached;
    const statement = this.db
      .prepare<[number, number], RawEventRow>(filteredPageSql(filter, order, dataMembers))
      .raw(true);
    this.filterStatements.set(key, statement);
    return statement;
  }

  private toRows(stream: string, events: readonly NewEvent[]): EventRow[] {
    if (typeof stream !== 'string' || stream.length === 0)
      throw new TypeError('stream name must be non-empty');
    if (events.length === 0) throw new TypeError(`append to '${stream}' has no events`);
    const ids = new Set<string>();
    return events.map((event) => {
      const row: EventRow = {
        id: event.id ?? randomUUID(),
        type: event.type,
        tenant_id: event.tenant_id,
        correlation_id: event.correlation_id,
        causation_id: event.causation_id ?? null,
        schema_version: event.schema_version ?? 1,
        data: JSON.stringify(event.data),
      };
      if (ids.has(row.id)) throw new DuplicateEventIdError(row.id);
      ids.add(row.id);
      const size = serializedSize(row, stream);
      if (size > this.maxEventBytes) throw new EventTooLargeError(row.type, size, this.maxEventBytes);
      return row;
    });
  }

  /** Commits every pending append in one transaction; each append succeeds or fails on its own. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.inFlight) return; // the group in flight flushes the next when it is done
    const group = this.pending;
    if (group.length === 0) return;
    this.pending = [];
    const recordedAt = this.now().toISOString();
    if (this.writer) {
      this.inFlight = this.writer
        .commit(
          group.map(({ stream, expected, rows }) => ({ stream, expected, rows })),
          recordedAt,
        )
        .then(
          (outcomes) => this.settle(group, outcomes, recordedAt),
          (error: Error) => this.fail(group, error),
        )
        .finally(() => {
          this.inFlight = null;
          this.flush();
        });
      return;
    }
    let outcomes: AppendOutcome[];
    try {
      outcomes = this.committer!.commit(group, recordedAt);
    } catch (error) {
      this.fail(group, error as Error);
      return;
    }
    this.settle(group, outcomes, recordedAt);
  }

  private settle(
    group: readonly PendingAppend[],
    outcomes: readonly AppendOutcome[],
    recordedAt: string,
  ): void {
    group.forEach((append, i) => {
      const outcome = outcomes[i]!;
      if (outcome instanceof Error) append.reject(outcome);
      else if ('retried' in outcome) append.resolve(outcome.retried);
      else {
        this.recent.note(append.stream, append.rows, append.data, outcome, recordedAt);
        append.resolve(outcome);
      }
    });
    this.notifier.notify();
  }

  /** The transaction rolled back (disk full, I/O error): nothing of this group is stored. */
  private fail(group: readonly PendingAppend[], error: Error): void {
    for (const append of group) append.reject(error);
  }

  private importOne(event: RecordedEvent, previousPosition: number): void {
    const s = this.statements;
    const where = `event ${event.id} at position ${event.position}`;
    if (!Number.isSafeInteger(event.position) || event.position <= previousPosition)
      throw new Error(
        `${where}: positions must increase strictly (the previous event is at position ${previousPosition})`,
      );
    const current = (s.streamRevision.pluck().get(event.stream) as number | undefined) ?? -1;
    if (event.revision !== current + 1)
      throw new Error(
        `${where}: revision ${event.revision} of stream '${event.stream}' does not follow revision ${current} (revisions are contiguous from 0)`,
      );
    const data = JSON.stringify(event.data);
    if (data === undefined) throw new TypeError(`${where}: data is not JSON`);
    try {
      s.importInsert.run(
        event.position,
        event.id,
        event.stream,
        event.revision,
        event.type,
        event.recorded_at,
        event.tenant_id,
        event.correlation_id,
        event.causation_id,
        event.schema_version,
        data,
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && s.eventById.get(event.id))
        throw new DuplicateEventIdError(event.id);
      throw error;
    }
  }
}

/** An append or a second import while `importEvents` is running on the same store. */
export class ImportInProgressError extends Error {
  override readonly name = 'ImportInProgressError';
  constructor() {
    super(
      'an import into this event store is running: appends and other imports are refused until it has ended',
    );
  }
}

function createSchema(db: SqliteDatabase): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      position       INTEGER PRIMARY KEY,
      id             TEXT    NOT NULL UNIQUE,
      stream         TEXT    NOT NULL,
      revision       INTEGER NOT NULL,
      type           TEXT    NOT NULL,
      recorded_at    TEXT    NOT NULL,
      tenant_id      TEXT    NOT NULL,
      correlation_id TEXT    NOT NULL,
      causation_id   TEXT,
      schema_version INTEGER NOT NULL,
      data           TEXT    NOT NULL,
      UNIQUE (stream, revision)
    );
    CREATE INDEX IF NOT EXISTS events_by_type ON events (type, position);
  `);
}

function prepareStatements(db: SqliteDatabase) {
  return {
    importInsert: db.prepare(
      `INSERT INTO events (position, id, stream, revision, type, recorded_at, tenant_id, correlation_id, causation_id, schema_version, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    streamRevision: db.prepare('SELECT revision FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1'),
    eventById: db.prepare('SELECT stream, revision, position FROM events WHERE id = ?'),
    readStreamForwards: db
      .prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`,
      )
      .raw(true),
    readStreamBackwards: db
      .prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
      )
      .raw(true),
    readAll: db
      .prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`)
      .raw(true),
    head: db.prepare('SELECT MAX(position) FROM events'),
    dataVersion: () => db.pragma('data_version', { simple: true }) as number,
  };
}

function hasFilter(filter: EventFilter | undefined): boolean {
  return Boolean(
    filter && ((filter.eventTypes?.length ?? 0) > 0 || (filter.streamPrefixes?.length ?? 0) > 0),
  );
}

/**
 * SQL for one page of `$all` under a filter (ASC: after a position; DESC: before one); values are
 * inlined as quoted literals, and the statement is cached per filter.
 */
function filteredPageSql(
  filter: EventFilter,
  order: 'ASC' | 'DESC',
  dataMembers?: SubscribeOptions['dataMembers'],
): string {
  const conditions: string[] = [];
  if (filter.eventTypes?.length) conditions.push(`type IN (${filter.eventTypes.map(sqlString).join(', ')})`);
  if (filter.streamPrefixes?.length) {
    // substr comparison instead of LIKE: prefixes may contain % or _.
    const prefixes = filter.streamPrefixes.map((p) => `substr(stream, 1, ${p.length}) = ${sqlString(p)}`);
    conditions.push(`(${prefixes.join(' OR ')})`);
  }
  const bound = order === 'ASC' ? 'position > ?' : 'position < ?';
  const columns = dataMembers
    ? `${EVENT_COLUMNS.replace(/, data$/, '')}, ${selectedData(dataMembers)}`
    : EVENT_COLUMNS;
  return `SELECT ${columns} FROM events WHERE ${[bound, ...conditions].join(' AND ')} ORDER BY position ${order} LIMIT ?`;
}

/**
 * `data` cut down to the members a subscriber needs of each type, by SQLite's JSON functions: far
 * cheaper than handing the whole document to JavaScript to parse. Other types come whole.
 */
function selectedData(dataMembers: Readonly<Record<string, readonly string[]>>): string {
  const cases = Object.entries(dataMembers).map(([type, members]) => {
    if (members.length === 0) throw new TypeError(`dataMembers: name at least one member of ${type}`);
    return `WHEN ${sqlString(type)} THEN ${selectedObject(memberTree(members), '$')}`;
  });
  return cases.length === 0 ? 'data' : `CASE type ${cases.join(' ')} ELSE data END AS data`;
}

/** Selected members by path: `true` takes the member whole, a nested tree only those of its members. */
type MemberTree = Map<string, MemberTree | true>;

/** `['a', 'b.c', 'b.d']` → a: whole, b: { c, d }. A member named whole wins over its own members. */
function memberTree(members: readonly string[]): MemberTree {
  const tree: MemberTree = new Map();
  for (const member of members) {
    const names = member.split('.');
    if (!names.every((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)))
      throw new TypeError(
        `dataMembers: ${JSON.stringify(member)} is not a member name or a dotted path of them`,
      );
    let node = tree;
    names.forEach((name, i) => {
      const existing = node.get(name);
      if (existing === true) return;
      if (i === names.length - 1) node.set(name, true);
      else if (existing) node = existing;
      else {
        const child: MemberTree = new Map();
        node.set(name, child);
        node = child;
      }
    });
  }
  return tree;
}

/**
 * A member selected in part stays an object when the event's is one (null when the event lacks it or
 * holds something else there), so that a reader of `a.b` finds it where the whole data has it.
 */
function selectedObject(tree: MemberTree, path: string): string {
  const members = [...tree].map(([name, selection]) => {
    const at = `${path}.${name}`;
    return `'${name}', ${selection === true ? `data -> '${at}'` : `CASE json_type(data, '${at}') WHEN 'object' THEN ${selectedObject(selection, at)} END`}`;
  });
  return `json_object(${members.join(', ')})`;
}

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function serializedSize(row: EventRow, stream: string): number {
  return (
    Buffer.byteLength(row.data) +
    Buffer.byteLength(row.type) +
    Buffer.byteLength(stream) +
    Buffer.byteLength(row.tenant_id) +
    Buffer.byteLength(row.correlation_id) +
    (row.causation_id ? Buffer.byteLength(row.causation_id) : 0) +
    row.id.length
  );
}

function toRecordedEvent(row: RawEventRow): RecordedEvent {
  return {
    position: row[0],
    id: row[1],
    stream: row[2],
    revision: row[3],
    type: row[4],
    recorded_at: row[5],
    tenant_id: row[6],
    correlation_id: row[7],
    causation_id: row[8],
    schema_version: row[9],
    data: JSON.parse(row[10]),
  };
}
