/**
 * What export and import need from an event store, so a store other than the embedded SQLite one
 * (EventStoreDB) can be plugged in by implementing these.
 */
import type { EventStore, RecordedEvent } from '../../ports/event-store';

/** An export reads `$all` in position order up to the head: any event store port will do. */
export type ExportableEventStore = Pick<EventStore, 'readAll' | 'headPosition'>;

/**
 * A store that can take a whole event stream as it was recorded elsewhere: ids, streams, revisions,
 * positions and recorded_at kept exactly (TreeHeadSigned events name admission events by position).
 */
export interface ImportableEventStore {
  /** 0 when the store holds no event: only then may it be imported into. */
  headPosition(): Promise<number>;
  /**
   * Stores every event of `events`, all or nothing: nothing is visible to other readers until the
   * iterable has completed, and when it throws (an integrity error at the trailer, say) or an event
   * breaks the store's rules (positions not increasing, a revision gap, a reused id), nothing is
   * stored and the error is rethrown. Refuses a store that is not empty.
   */
  importEvents(events: AsyncIterable<RecordedEvent>): Promise<{ events: number; last_position: number }>;
}

/** How an import into a store that assigns its own positions follows and adapts the events it appends. */
export interface RecordedAppendHooks {
  /**
   * The event as it is to be stored, called just before it is appended, once every earlier event is
   * appended (tree heads name admissions by position: see projectors/log/leaf-positions.ts).
   */
  translate?: (event: RecordedEvent) => RecordedEvent;
  /** The event as read from the export (before `translate`) and the position this store gave it. */
  onAppended?: (event: RecordedEvent, position: number) => void;
}

/**
 * A store that gives imported events positions of its own (EventStoreDB): each event is appended in
 * the export's order to its stream at its revision, keeping its id, data and recorded_at. Appends are
 * not atomic, so `gov import` verifies the whole export (and `importProblem` of every event) before it
 * appends anything, and can resume an import that failed part way.
 */
export interface RepositioningImportTarget {
  /** 0 when the store holds no event. */
  headPosition(): Promise<number>;
  /** The events already stored, in position order (a resumed import compares them with the export). */
  readAll(): AsyncIterable<RecordedEvent>;
  /** Why this store cannot hold `event` as it is, or null. */
  importProblem(event: RecordedEvent): string | null;
  appendRecorded(
    events: AsyncIterable<RecordedEvent>,
    hooks?: RecordedAppendHooks,
  ): Promise<{ events: number; last_position: number }>;
}
