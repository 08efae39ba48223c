/**
 * The read store port, shaped by MongoDB without transactions or change streams: documents by
 * collection and id, every write guarded by the event position that caused it, so replaying an
 * event (restart, redelivery) never overwrites a newer effect and never counts twice.
 * Both adapters pass `ports/contract/read-store.contract.ts`.
 *
 * Names: collection names use letters, digits, `_` and `.`; member paths (`field`, `where`, `range`,
 * `sort`, index fields) are segments of letters, digits and `_` joined by `.`. Other names are
 * rejected (the embedded adapter puts them in SQL text; values are always bound parameters).
 */

import type { LeaseGrant } from './lease';

export type Scalar = string | number | boolean | null;

export interface StoredDocument<T> {
  id: string;
  /** Position of the event whose effect this is. */
  position: number;
  data: T;
}

/**
 * A write produced by a projector for one event at `position` (a non-negative integer). It takes
 * effect only when `position` is greater than the position stored for that document, a deleted one
 * included (a delete leaves a tombstone); otherwise it is a replay and is skipped (a `create` takes
 * effect only when nothing is stored). Hence a projector
 * emits at most one change per document per event: `apply` rejects a batch holding two changes to one
 * document at one position, rather than silently skipping the second.
 */
export type Change =
  | { kind: 'upsert'; collection: string; id: string; position: number; data: object }
  /**
   * Writes the document at `position` only if the store holds none with that id: an existing one,
   * live or a tombstone, is left as it is, whatever its position. So the first create of an id wins
   * and a deleted document stays deleted (an upsert brings it back); the created document's position
   * guards it like any other. For write-once documents (a lookup keeping its first value): the
   * projection need not read the document to know whether to write it, and adapters write it without
   * reading it either.
   */
  | { kind: 'create'; collection: string; id: string; position: number; data: object }
  | { kind: 'delete'; collection: string; id: string; position: number }
  /**
   * Adds `by` to the numeric member `field` of the document (document or member created at 0 when
   * missing). A member holding anything but a number (null included) makes the change invalid.
   */
  | { kind: 'increment'; collection: string; id: string; position: number; field: string; by: number };

export interface Checkpoint {
  projector: string;
  position: number;
  /**
   * Single-writer mode: the lease grant this write is made under. The adapter refuses the whole apply
   * with `FencedOutError` (nothing written) unless the grant is still the current one.
   */
  fence?: LeaseGrant;
}

export interface SortKey {
  /** A top-level member of the document data (dotted paths allowed for nested members). */
  field: string;
  direction: 'asc' | 'desc';
}

export interface FindQuery {
  /**
   * Equality on members of the document data (dotted paths allowed). A value matches only the same
   * JSON type (1 never matches true or '1'); null matches a null or missing member.
   */
  where?: Record<string, Scalar>;
  /**
   * Range conditions on members, e.g. { recorded_at: { gte: '2026-01-01' } }. Like MongoDB, a bound
   * only matches members of its own JSON type (a string bound never matches a number); null bounds
   * are rejected.
   */
  range?: Record<string, { gt?: Scalar; gte?: Scalar; lt?: Scalar; lte?: Scalar }>;
  /**
   * Ties are broken by id in the same direction, so the order is total and stable. Default: id
   * ascending. Null and missing members come first ascending, last descending. Keep one JSON type per
   * sorted member: adapters order numbers, strings and booleans relative to each other differently.
   */
  sort?: SortKey;
  /** Page size, a positive integer; adapters cap it at 1000. */
  limit: number;
  /**
   * Opaque cursor from a previous page's `nextCursor`; it resumes strictly after that page's last
   * document. It belongs to the collection, filters and sort it came from: with another query, `find`
   * rejects it.
   */
  cursor?: string | null;
  /** Skip this many matches first (after the cursor, if any): offset pagination; prefer cursors. */
  skip?: number;
}

export interface Page<T> {
  items: StoredDocument<T>[];
  /** Cursor for the next page, or null when this is the last one. */
  nextCursor: string | null;
}

export interface IndexSpec {
  collection: string;
  fields: readonly string[];
}

export interface ReadStore {
  /** Declare an index; created if missing (called at start). */
  ensureIndex(spec: IndexSpec): Promise<void>;
  get<T>(collection: string, id: string): Promise<StoredDocument<T> | null>;
  find<T>(collection: string, query: FindQuery): Promise<Page<T>>;
  /**
   * The live documents matching `where` and `range` (as `find` matches them). Declare an index on the
   * filtered members, the equality ones first, so the count reads only the matches.
   */
  count(collection: string, where?: FindQuery['where'], range?: FindQuery['range']): Promise<number>;
  /**
   * Apply a projector's changes and move its checkpoint. The embedded adapter does both in one
   * transaction; others write the (idempotent, position-guarded) changes collection by collection,
   * counters last, and store the checkpoint after them, so a crash can leave any part of a batch
   * written. A projector whose replay reads one document to derive another (the dispatcher: pending
   * leaves → deliveries) writes the consuming change in a later `apply`. A checkpoint never moves
   * backwards.
   *
   * All or nothing when a change is invalid (malformed, two changes to one document at one position,
   * an increment of a non-numeric member): `apply` rejects, writes none of the changes and leaves the
   * checkpoint where it was. An adapter without transactions validates the whole batch, reading the
   * increment targets, before its first write (a projector is the only writer of its collections).
   */
  apply(changes: readonly Change[], checkpoint?: Checkpoint): Promise<void>;
  /**
   * True when `apply` writes all its changes and the checkpoint in one transaction, which this store's
   * own reads see from the call on, before the returned promise settles at its commit (the embedded
   * adapter). Then no crash leaves part of one apply written, a writer need not split a batch into
   * applies to order its writes, and it may act on what it wrote before the commit.
   */
  readonly atomicApply?: boolean;
  /** The projector's checkpoint position, or null when it has none. */
  getCheckpoint(projector: string): Promise<number | null>;
  /**
   * Atomic counter outside any projection (e.g. request-rate windows); returns the new value. Kept as
   * the member `value` of document `id` (so `get`, `find` and `dropCollections` see it), created at 0,
   * not position-guarded; rejects when that member holds a non-number.
   */
  incrementCounter(collection: string, id: string, by: number): Promise<number>;
  /**
   * Drop whole collections (rebuild), tombstones included, so replaying from the start writes again.
   * Declared indexes may stay.
   */
  dropCollections(collections: readonly string[]): Promise<void>;
  /** Remove a projector's checkpoint (rebuild). */
  deleteCheckpoint(projector: string): Promise<void>;
  close(): Promise<void>;
}
