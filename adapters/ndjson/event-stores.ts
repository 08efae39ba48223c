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
