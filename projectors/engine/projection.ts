import type { RecordedEvent } from '../../ports/event-store';
import type { Change, IndexSpec, StoredDocument } from '../../ports/read-store';

/** Read access to a projection's current state while projecting (sees the batch's own earlier changes). */
export interface ProjectionState {
  get<T>(collection: string, id: string): Promise<StoredDocument<T> | null>;
}

/**
 * A read model defined as a pure function of events: `project` returns the changes one event causes
 * and never performs I/O itself. Collections are logical names; the runtime stores them per version
 * so a new generation can be built beside the serving one (blue/green rebuild).
 */
export interface Projection {
  readonly name: string;
  /**
   * Bump when `project` changes meaning: at start the server builds the new version from the start
   * beside the serving one and switches to it when it has caught up.
   */
  readonly version: number;
  readonly collections: readonly string[];
  readonly indexes?: readonly IndexSpec[];
  /** The event types this projection reads (a server-side filter). */
  readonly eventTypes: readonly string[];
  /**
   * Of the types named, the only `data` members `project` reads (the store may leave out the rest);
   * types not named are read whole. `project` must give the same changes either way.
   */
  readonly dataMembers?: Readonly<Record<string, readonly string[]>>;
  project(event: RecordedEvent, state: ProjectionState): Promise<Change[]> | Change[];
  /**
   * The documents `project` will `get` for `event`, if it can say: a runner that keeps no documents
   * between batches (a consumer of a partitioned bus) reads those of a whole batch at once, before
   * projecting it. Each `get` otherwise waits for its own answer in turn, and on
   * a read store across the network (MongoDB) a batch's reads then cost a round trip per event.
   */
  reads?(event: RecordedEvent): readonly DocumentKey[];
  /**
   * Whether `change` (as `project` gave it) writes its document for the first time ever: no earlier
   * event can have written that id. A document a batch writes so and deletes again is not stored at
   * all (compact-changes.ts), not even as a tombstone.
   */
  isBirth?(change: Change): boolean;
}

/** A document of a projection's (logical) collection. */
export interface DocumentKey {
  collection: string;
  id: string;
}

/**
 * Physical collection of a logical one in a generation. Each rebuild beside the serving copy writes a
 * new generation; the catalog says which one is served. `chain` in generation 2 → `chain__g2`.
 */
export function physicalCollection(collection: string, generation: number): string {
  return `${collection}__g${generation}`;
}

/** The checkpoint (and lease) name of a projection's generation. */
export function checkpointName(projection: Pick<Projection, 'name'>, generation: number): string {
  return `${projection.name}@g${generation}`;
}
