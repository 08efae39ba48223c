import type Database from 'better-sqlite3';
import { FencedOutError, type LeaseManager } from '../../ports/lease';
import type {
  Change,
  Checkpoint,
  FindQuery,
  IndexSpec,
  Page,
  ReadStore,
  Scalar,
  StoredDocument,
} from '../../ports/read-store';
import {
  type CursorState,
  type CursorValue,
  decodeCursor,
  encodeCursor,
  queryShape,
} from '../shared/read-cursor';
import {
  assertFinite,
  assertValidBatch,
  collectionName,
  incrementTargetName,
  memberPath,
  nonEmpty,
  type Ordering,
  offsetOf,
  orderingOf,
  pageSize,
  sortLabel,
} from '../shared/read-store-validation';
import { DeferredCommit } from './deferred-commit';
import { prepareFenceCheck, SqliteLeaseManager } from './lease';
import { openSqlite, type SqliteDatabase } from './open';

/**
 * The embedded read store: every collection lives in one `documents` table keyed by
 * (collection, id), with the document as JSON text. Deletes leave a tombstone (deleted = 1) so the
 * position guard still holds for a deleted document. Member paths and collection names are
 * validated and inlined into the SQL text (a bound `json_extract(data, ?)` could never match an
 * expression index, nor a bound collection a partial index); every value is a bound parameter.
 *
 * Ordering follows SQLite's json_extract typing: NULL (null or missing) < numbers (booleans count
 * as 0/1) < strings, so NULLs come first in ascending order and last in descending order.
 */

/**
 * Documents live in a rowid table, their (collection, id) key in its own index. Documents are large
 * (a proof bundle is 5 KB) and their ids random hashes: in a WITHOUT ROWID table every insert would
 * land on a random leaf page with its overflow pages, and each commit would write that many pages to
 * the WAL; here new rows append to the table's last pages and only the small key entry goes in at
 * random, which makes the governance projection's apply about 40% cheaper per event. (Files made by
 * older releases keep their WITHOUT ROWID table: every statement works on both.)
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS documents (
    collection TEXT NOT NULL,
    id TEXT NOT NULL,
    position INTEGER NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    data TEXT NOT NULL,
    PRIMARY KEY (collection, id)
  );
  CREATE TABLE IF NOT EXISTS checkpoints (
    projector TEXT PRIMARY KEY,
    position INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

const SQL = {
  get: 'SELECT id, position, data FROM documents WHERE collection = ? AND id = ? AND deleted = 0',
  // `WHERE excluded.position > documents.position`: a replayed (equal) or older event never wins.
  upsert: `INSERT INTO documents (collection, id, position, deleted, data) VALUES (?, ?, ?, 0, ?)
    ON CONFLICT (collection, id) DO UPDATE
    SET position = excluded.position, deleted = 0, data = excluded.data
    WHERE excluded.position > documents.position`,
  // Any stored row, a tombstone included, keeps the document as it is.
  create: `INSERT INTO documents (collection, id, position, deleted, data) VALUES (?, ?, ?, 0, ?)
    ON CONFLICT (collection, id) DO NOTHING`,
  delete: `INSERT INTO documents (collection, id, position, deleted, data) VALUES (?, ?, ?, 1, '{}')
    ON CONFLICT (collection, id) DO UPDATE
    SET position = excluded.position, deleted = 1, data = '{}'
    WHERE excluded.position > documents.position`,
  incrementTarget: `SELECT position, deleted, json_type(data, @path) AS type
    FROM documents WHERE collection = @collection AND id = @id`,
  increment: `INSERT INTO documents (collection, id, position, deleted, data)
    VALUES (@collection, @id, @position, 0, json_set('{}', @path, @by))
    ON CONFLICT (collection, id) DO UPDATE
    SET position = excluded.position, deleted = 0, data = CASE
      WHEN documents.deleted = 1 THEN excluded.data
      ELSE json_set(documents.data, @path, coalesce(json_extract(documents.data, @path), 0) + @by) END
    WHERE excluded.position > documents.position
    RETURNING json_type(data, @path) AS type`,
  // Counters are not position-guarded; the WHERE refuses to add to a non-numeric `value`.
  incrementCounter: `INSERT INTO documents (collection, id, position, deleted, data)
    VALUES (@collection, @id, 0, 0, json_object('value', @by))
    ON CONFLICT (collection, id) DO UPDATE
    SET deleted = 0, data = CASE
      WHEN documents.deleted = 1 THEN excluded.data
      ELSE json_set(documents.data, '$.value', coalesce(json_extract(documents.data, '$.value'), 0) + @by) END
    WHERE documents.deleted = 1
      OR coalesce(json_type(documents.data, '$.value'), 'integer') IN ('integer', 'real')
    RETURNING json_extract(data, '$.value') AS value`,
  saveCheckpoint: `INSERT INTO checkpoints (projector, position) VALUES (?, ?)
    ON CONFLICT (projector) DO UPDATE SET position = max(position, excluded.position)`,
  getCheckpoint: 'SELECT position FROM checkpoints WHERE projector = ?',
  deleteCheckpoint: 'DELETE FROM checkpoints WHERE projector = ?',
  dropCollection: 'DELETE FROM documents WHERE collection = ?',
} as const;

/** Distinct find/count shapes kept prepared; a read API has a few dozen. */
const QUERY_CACHE_SIZE = 256;
const RANGE_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

type BindValue = string | number | bigint | null;
type Statement<Row = unknown> = Database.Statement<unknown[], Row>;

interface DocumentRow {
  id: string;
  position: number;
  data: string;
}

interface PageRow extends DocumentRow {
  sort_value: string | number | null;
}

interface IncrementTargetRow {
  position: number;
  deleted: number;
  type: string | null;
}

/** A piece of WHERE clause with its bound values. */
interface Condition {
  sql: string;
  params: BindValue[];
}

/**
 * Each connection's page cache. A writer's commit ends in a truncation of its cache and a reader's
 * first read after another connection's commit empties it; both can walk the cache's hash table,
 * which grows with the cache (profiled on the projection thread: pcache1TruncateUnsafe at each
 * commit). So a large cache costs at every commit (64 MiB: ~0.1-0.4 ms more per commit of 30
 * admissions' random upserts than 16 MiB, micro-benchmark) and saves little: a page it misses is
 * read from the kernel's cache of the file.
 */
const PAGE_CACHE_MIB = 16;

export interface SqliteReadStoreOptions {
  /**
   * Commit applies together, at most once per this many milliseconds (deferred-commit.ts); 0 commits
   * each apply on its own. Only for a store that owns its file and whose writers can wait that long.
   */
  commitIntervalMs?: number;
  /** Page size of the file, if this store creates it (see openSqlite); SQLite's default is 4096. */
  pageBytes?: number;
}

export class SqliteReadStore implements ReadStore {
  readonly atomicApply = true;
  private readonly db: SqliteDatabase;
  private readonly deferred: DeferredCommit | null;
  /** Only a database this store opened is closed by it; a shared one belongs to its opener. */
  private readonly ownsDatabase: boolean;
  private readonly statements: { [K in keyof typeof SQL]: Statement };
  private readonly queries = new Map<string, Statement>();
  /** The statements of one apply, in whatever transaction is open. */
  private readonly applyAll: (changes: readonly Change[], checkpoint: Checkpoint | undefined) => void;
  private readonly applyInTransaction: Database.Transaction<
    (changes: readonly Change[], checkpoint: Checkpoint | undefined) => void
  >;

  /** @param source a file path to open (`:memory:` works), or a database shared with other adapters. */
  constructor(source: string | SqliteDatabase, options: SqliteReadStoreOptions = {}) {
    this.ownsDatabase = typeof source === 'string';
    this.db =
      typeof source === 'string' ? openSqlite(source, 'derived', PAGE_CACHE_MIB, options.pageBytes) : source;
    // A shared connection's other users (leases) must not find their writes held back.
    this.deferred =
      this.ownsDatabase && (options.commitIntervalMs ?? 0) > 0
        ? new DeferredCommit(this.db, options.commitIntervalMs!)
        : null;
    this.db.exec(SCHEMA);
    writePlannerStats(this.db);
    this.statements = prepareAll(this.db);
    const isCurrentGrant = prepareFenceCheck(this.db);
    this.applyAll = (changes, checkpoint) => {
      // Checked inside the transaction: no other writer can take the lease between check and write.
      const fence = checkpoint?.fence;
      if (fence && !isCurrentGrant(fence)) throw new FencedOutError(fence.name, fence.epoch);
      for (const change of changes) this.applyChange(change);
      if (checkpoint) this.statements.saveCheckpoint.run(checkpoint.projector, checkpoint.position);
    };
    this.applyInTransaction = this.db.transaction(this.applyAll);
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    if (spec.fields.length === 0) throw new Error('An index needs at least one field');
    this.deferred?.flush();
    const name = `read:${collectionName(spec.collection)}:${spec.fields.map(memberPath).join(',')}`;
    const columns = [...spec.fields.map(memberValue), 'id'].join(', ');
    if (this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name)) return;
    this.db.exec(
      `CREATE INDEX IF NOT EXISTS "${name}" ON documents (${columns}) ` +
        `WHERE collection = '${spec.collection}' AND deleted = 0`,
    );
    writePlannerStats(this.db);
  }

  async get<T>(collection: string, id: string): Promise<StoredDocument<T> | null> {
    const row = this.statements.get.get(collectionName(collection), id) as DocumentRow | undefined;
    return row ? toDocument<T>(row) : null;
  }

  async find<T>(collection: string, query: FindQuery): Promise<Page<T>> {
    collectionName(collection);
    const limit = pageSize(query.limit);
    const filters = [...equalityConditions(query.where), ...rangeConditions(query.range)];
    const ordering = orderingOf(query.sort);
    const shape = queryShape(collection, query);
    const after = query.cursor ? decodeCursor(query.cursor, shape, sortLabel(ordering)) : null;
    const rows = this.readPage(collection, filters, ordering, after, limit + 1, offsetOf(query.skip));
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    const nextCursor =
      rows.length > limit && last
        ? encodeCursor({ shape, sort: sortLabel(ordering), value: last.sort_value, id: last.id })
        : null;
    return { items: items.map((row) => toDocument<T>(row)), nextCursor };
  }

  async count(collection: string, where?: FindQuery['where'], range?: FindQuery['range']): Promise<number> {
    return this.countMatches(collection, [...equalityConditions(where), ...rangeConditions(range)]);
  }

  async apply(changes: readonly Change[], checkpoint?: Checkpoint): Promise<void> {
    assertValidBatch(changes, checkpoint);
    if (this.deferred) return this.deferred.run(() => this.applyAll(changes, checkpoint));
    // IMMEDIATE takes the write lock up front: another process sharing the file cannot commit
    // between the increment read and its write (a deferred transaction would fail to upgrade).
    this.applyInTransaction.immediate(changes, checkpoint);
  }

  async getCheckpoint(projector: string): Promise<number | null> {
    const row = this.statements.getCheckpoint.get(projector) as { position: number } | undefined;
    return row ? row.position : null;
  }

  async incrementCounter(collection: string, id: string, by: number): Promise<number> {
    assertFinite(by, 'A counter increment');
    this.deferred?.flush();
    const row = this.statements.incrementCounter.get({
      collection: collectionName(collection),
      id: nonEmpty(id, 'A counter id'),
      by: sqlNumber(by),
    }) as { value: number } | undefined;
    if (!row) throw new Error(`Counter ${collection}/${id} holds a non-numeric value; cannot increment it`);
    return row.value;
  }

  async dropCollections(collections: readonly string[]): Promise<void> {
    const names = collections.map(collectionName);
    this.deferred?.flush();
    this.db.transaction(() => {
      for (const name of names) this.statements.dropCollection.run(name);
    })();
  }

  async deleteCheckpoint(projector: string): Promise<void> {
    this.deferred?.flush();
    this.statements.deleteCheckpoint.run(projector);
  }

  /** Leases kept in this store's file, the ones its fenced `apply` checks. */
  leases(): LeaseManager {
    return new SqliteLeaseManager(this.db);
  }

  async close(): Promise<void> {
    if (this.db.open) this.deferred?.flush();
    this.queries.clear();
    if (this.ownsDatabase && this.db.open) this.db.close();
  }

  private applyChange(change: Change): void {
    switch (change.kind) {
      case 'upsert':
      case 'create':
        this.statements[change.kind].run(
          change.collection,
          change.id,
          change.position,
          JSON.stringify(change.data),
        );
        return;
      case 'delete':
        this.statements.delete.run(change.collection, change.id, change.position);
        return;
      case 'increment':
        this.applyIncrement(change);
        return;
    }
  }

  /** Throws on a non-numeric target so the whole batch rolls back (the port's all-or-nothing rule). */
  private applyIncrement(change: Extract<Change, { kind: 'increment' }>): void {
    const key = { collection: change.collection, id: change.id, path: `$.${change.field}` };
    const target = this.statements.incrementTarget.get(key) as IncrementTargetRow | undefined;
    if (target && target.position >= change.position) return; // a replay: already counted
    if (target && target.deleted === 0 && !isNumericOrMissing(target.type)) {
      throw new Error(
        `Cannot increment ${incrementTargetName(change)}: it holds a ${target.type}, not a number`,
      );
    }
    const written = this.statements.increment.get({
      ...key,
      position: change.position,
      by: sqlNumber(change.by),
    }) as { type: string | null } | undefined;
    // No row only if the SQL guard saw a replay (checked above too). json_set leaves the document
    // unchanged when a parent of the path is not an object, so the member is then still missing.
    if (written && !isNumeric(written.type)) {
      throw new Error(`Cannot increment ${incrementTargetName(change)}: a parent member is not an object`);
    }
  }

  /**
   * Keyset pagination reads the rest of the order after the cursor in one or two index-friendly
   * "arms" (see `keysetArms`), carrying `skip` across them.
   */
  private readPage(
    collection: string,
    filters: readonly Condition[],
    ordering: Ordering,
    after: CursorState | null,
    wanted: number,
    skip: number,
  ): PageRow[] {
    const rows: PageRow[] = [];
    let offset = skip;
    for (const arm of keysetArms(ordering, after)) {
      const conditions = arm ? [...filters, arm] : filters;
      const params = conditions.flatMap((condition) => condition.params);
      const sql =
        `SELECT id, position, data, ${sortValue(ordering)} AS sort_value FROM documents ` +
        `${whereClause(collection, conditions)} ORDER BY ${orderBy(ordering)} LIMIT ? OFFSET ?`;
      const found = this.query(sql).all(...params, wanted - rows.length, offset) as PageRow[];
      rows.push(...found);
      if (rows.length >= wanted) break;
      offset = found.length > 0 || offset === 0 ? 0 : offset - this.countMatches(collection, conditions);
    }
    return rows;
  }

  private countMatches(collection: string, conditions: readonly Condition[]): number {
    const sql = `SELECT count(*) AS n FROM documents ${whereClause(collection, conditions)}`;
    const row = this.query(sql).get(...conditions.flatMap((condition) => condition.params)) as { n: number };
    return row.n;
  }

  /** Prepared once per distinct SQL text; finds are built from validated names, so texts repeat. */
  private query(sql: string): Statement {
    const cached = this.queries.get(sql);
    if (cached) return cached;
    const statement = this.db.prepare(sql);
    if (this.queries.size >= QUERY_CACHE_SIZE) {
      const oldest = this.queries.keys().next();
      if (!oldest.done) this.queries.delete(oldest.value);
    }
    this.queries.set(sql, statement);
    return statement;
  }
}

/**
 * The planner's statistics for `documents`, written rather than measured (SQLite documents
 * sqlite_stat1 as writable for this purpose). Without them the planner takes the primary key's
 * `collection = ?` prefix for selective and scans a whole collection, sorting it, instead of using
 * the index made for the query: a find for the newest deliveries read all 20,000 of them (28 ms
 * instead of 0.07 ms). Measured statistics would go stale as collections grow from empty; these say
 * what holds at any size: a collection is large, and a read index narrows it down.
 */
function writePlannerStats(db: SqliteDatabase): void {
  const stat1 = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'");
  // ANALYZE creates the statistics tables; the limit keeps it to a glance at an existing file.
  if (!stat1.get()) db.exec('PRAGMA analysis_limit = 1; ANALYZE documents; PRAGMA analysis_limit = 0');
  const indexes = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'documents' AND name LIKE 'read:%'",
    )
    .all() as Array<{ name: string }>;
  const hasStat4 = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat4'")
    .get();
  const insert = db.prepare('INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)');
  db.transaction(() => {
    db.exec("DELETE FROM sqlite_stat1 WHERE tbl = 'documents'");
    if (hasStat4) db.exec("DELETE FROM sqlite_stat4 WHERE tbl = 'documents'");
    // Rows in all; rows per collection; rows per (collection, id): the primary key, which is the
    // table itself in a WITHOUT ROWID file of older releases, and its own index otherwise.
    insert.run('documents', primaryKeyStatName(db), '1000000 100000 1');
    for (const { name } of indexes) {
      // `read:<collection>:<field>,<field>…` indexes the fields, then id: the first field narrows
      // the collection to a few rows, the rest to one.
      const fields = name.slice(name.lastIndexOf(':') + 1).split(',');
      insert.run('documents', name, ['1000000', '10', ...fields.slice(1).map(() => '1'), '1'].join(' '));
    }
  })();
  // Loads the statistics into this connection's planner.
  db.exec('ANALYZE sqlite_schema');
}

function primaryKeyStatName(db: SqliteDatabase): string {
  const { sql } = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'documents'")
    .get() as {
    sql: string;
  };
  if (/WITHOUT ROWID/i.test(sql)) return 'documents';
  const pk = (db.pragma('index_list(documents)') as Array<{ name: string; origin: string }>).find(
    (index) => index.origin === 'pk',
  );
  return pk?.name ?? 'documents';
}

function prepareAll(db: SqliteDatabase): { [K in keyof typeof SQL]: Statement } {
  const entries = Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)] as const);
  return Object.fromEntries(entries) as { [K in keyof typeof SQL]: Statement };
}

function toDocument<T>(row: DocumentRow): StoredDocument<T> {
  return { id: row.id, position: row.position, data: JSON.parse(row.data) as T };
}

// ---- SQLite typing -------------------------------------------------------------------------------

function isNumeric(type: string | null): boolean {
  return type === 'integer' || type === 'real';
}

function isNumericOrMissing(type: string | null): boolean {
  return type === null || isNumeric(type);
}

/** better-sqlite3 binds every JS number as REAL, which would turn a count of 3 into `3.0`. */
function sqlNumber(value: number): number | bigint {
  return Number.isSafeInteger(value) ? BigInt(value) : value;
}

// ---- SQL building -----------------------------------------------------------------------------

function memberValue(field: string): string {
  return `json_extract(data, '$.${memberPath(field)}')`;
}

function memberType(field: string): string {
  return `json_type(data, '$.${memberPath(field)}')`;
}

function whereClause(collection: string, conditions: readonly Condition[]): string {
  // The collection is a literal, not a parameter: only then can a partial index apply.
  const terms = [
    `collection = '${collectionName(collection)}'`,
    'deleted = 0',
    ...conditions.map((c) => c.sql),
  ];
  return `WHERE ${terms.join(' AND ')}`;
}

/**
 * The JSON types a bound value may match: like MongoDB, a number never equals or ranges over a
 * boolean or a string (json_extract alone would let `true` equal 1 and an object equal its text).
 */
function typeBracket(value: string | number | boolean): string {
  if (typeof value === 'string') return `'text'`;
  if (typeof value === 'number') return `'integer', 'real'`;
  return `'true', 'false'`;
}

function bindScalar(value: string | number | boolean, field: string): BindValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') assertFinite(value, `The value for ${field}`);
  return value;
}

function equalityConditions(where: Record<string, Scalar> | undefined): Condition[] {
  return Object.entries(where ?? {}).map(([field, value]) =>
    value === null
      ? { sql: `${memberValue(field)} IS NULL`, params: [] } // null matches a missing member too
      : {
          sql: `${memberValue(field)} = ? AND ${memberType(field)} IN (${typeBracket(value)})`,
          params: [bindScalar(value, field)],
        },
  );
}

function rangeConditions(range: FindQuery['range']): Condition[] {
  const conditions: Condition[] = [];
  for (const [field, bounds] of Object.entries(range ?? {})) {
    for (const [operator, bound] of Object.entries(bounds)) {
      if (bound === undefined) continue;
      if (!(operator in RANGE_OPERATORS)) throw new Error(`Unknown range operator ${operator} on ${field}`);
      if (bound === null) throw new Error(`The ${operator} bound on ${field} must not be null`);
      const sqlOperator = RANGE_OPERATORS[operator as keyof typeof RANGE_OPERATORS];
      conditions.push({
        sql: `${memberValue(field)} ${sqlOperator} ? AND ${memberType(field)} IN (${typeBracket(bound)})`,
        params: [bindScalar(bound, field)],
      });
    }
  }
  return conditions;
}

function sortValue(ordering: Ordering): string {
  return ordering.field === null ? 'NULL' : memberValue(ordering.field);
}

function orderBy({ field, direction }: Ordering): string {
  const dir = direction.toUpperCase();
  return field === null ? `id ${dir}` : `${memberValue(field)} ${dir}, id ${dir}`;
}

/**
 * The part of the order after the cursor, as conditions to read one after the other. NULLs sort
 * first (lowest) and a comparison with NULL is never true, so the NULL block is its own arm; each
 * arm is a range an index on (member, id) can seek to. `v >= x AND (v > x OR id > i)` rather than
 * the row value `(v, id) > (x, i)`, which SQLite does not use as an index range on expressions.
 */
function keysetArms(ordering: Ordering, after: CursorState | null): (Condition | null)[] {
  if (!after) return [null];
  const asc = ordering.direction === 'asc';
  if (ordering.field === null) return [{ sql: asc ? 'id > ?' : 'id < ?', params: [after.id] }];
  const value = memberValue(ordering.field);
  const inNullBlock: Condition = { sql: `${value} IS NULL AND id ${asc ? '>' : '<'} ?`, params: [after.id] };
  if (after.value === null)
    return asc ? [inNullBlock, { sql: `${value} IS NOT NULL`, params: [] }] : [inNullBlock];
  const [outer, inner] = asc ? ['>=', '>'] : ['<=', '<'];
  const pastCursor: Condition = {
    sql: `${value} ${outer} ? AND (${value} ${inner} ? OR id ${inner} ?)`,
    params: [cursorBinding(after.value), cursorBinding(after.value), after.id],
  };
  return asc ? [pastCursor] : [pastCursor, { sql: `${value} IS NULL`, params: [] }];
}

/** json_extract reads booleans as 1/0, so a boolean sort value binds as one. */
function cursorBinding(value: CursorValue): BindValue {
  return typeof value === 'boolean' ? Number(value) : value;
}
