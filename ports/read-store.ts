/**
 * The read store port, shaped by MongoDB without transactions or change streams: documents by
 * collection and id, every write guarded by the event position that caused it, so replaying an
 * event (restart, redelivery) never overwrites a newer effect and never counts twice.
 * Both adapters pass `ports/contract/read-store.contract.ts`.
 */

export type Scalar = string | number | boolean | null;

export interface StoredDocument<T> {
  id: string;
  /** Position of the event whose effect this is. */
  position: number;
  data: T;
}

/** A write produced by a projector for one event at `position`. */
export type Change =
  | { kind: 'upsert'; collection: string; id: string; position: number; data: object }
  | { kind: 'delete'; collection: string; id: string; position: number }
  /** Adds `by` to the numeric member `field` of the document (created at 0 when missing). */
  | { kind: 'increment'; collection: string; id: string; position: number; field: string; by: number };

export interface Checkpoint {
  projector: string;
  position: number;
}

export interface SortKey {
  /** A top-level member of the document data (dotted paths allowed for nested members). */
  field: string;
  direction: 'asc' | 'desc';
}

export interface FindQuery {
  /** Equality on members of the document data (dotted paths allowed). */
  where?: Record<string, Scalar>;
  /** Range conditions on members, e.g. { recorded_at: { gte: '2026-01-01' } }. */
  range?: Record<string, { gt?: Scalar; gte?: Scalar; lt?: Scalar; lte?: Scalar }>;
  /** Ties are broken by id, so the order is total and stable. Default: id ascending. */
  sort?: SortKey;
  /** Page size; adapters cap it at 1000. */
  limit: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  cursor?: string | null;
  /** Skip this many matches first (offset pagination for `page` parameters); prefer cursors. */
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
  count(collection: string, where?: Record<string, Scalar>): Promise<number>;
  /**
   * Apply a projector's changes and move its checkpoint. The embedded adapter does both in one
   * transaction; others apply the (idempotent, position-guarded) changes in order and store the
   * checkpoint after them. A checkpoint never moves backwards.
   */
  apply(changes: readonly Change[], checkpoint?: Checkpoint): Promise<void>;
  getCheckpoint(projector: string): Promise<number | null>;
  /** Atomic counter outside any projection (e.g. request-rate windows); returns the new value. */
  incrementCounter(collection: string, id: string, by: number): Promise<number>;
  /** Drop whole collections (rebuild). */
  dropCollections(collections: readonly string[]): Promise<void>;
  /** Remove a projector's checkpoint (rebuild). */
  deleteCheckpoint(projector: string): Promise<void>;
  close(): Promise<void>;
}
