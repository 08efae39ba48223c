/**
 * A TreeHeadSigned names the admissions it integrates by their event-store positions
 * (`leaf_positions`), the one place where event data holds a position. A store that gives imported
 * events positions of its own (EventStoreDB) gives the admissions new ones, so each tree head's
 * leaf_positions are translated, as it is imported, to the new positions of the same admission events;
 * everything signed (checkpoint, root, size, timestamp) stays as it was. Without the translation the
 * sequencer could not rebuild its tree on the imported store, and the audit would find no admission at
 * the positions the heads name.
 *
 * Memory: the admissions not integrated yet (one sequencer batch, as a rule), never every leaf.
 */
import type { TreeHeadSigned } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import { ADMISSION_EVENT_TYPES } from './log-sequencer';

const ADMISSIONS: ReadonlySet<string> = new Set(ADMISSION_EVENT_TYPES);

/** An export whose tree heads do not name pending admissions: it is not a log the sequencer wrote. */
export class LeafPositionError extends Error {
  override readonly name = 'LeafPositionError';
}

export class LeafPositionMap {
  /** Admissions read and not integrated yet: their position in the export → their position here. */
  private readonly pending = new Map<number, number>();

  /** Records the position the target store gave `event` (read from the export at `event.position`). */
  appended(event: RecordedEvent, position: number): void {
    if (ADMISSIONS.has(event.type)) this.pending.set(event.position, position);
  }

  /**
   * The event as the target store must hold it: a TreeHeadSigned with the new positions of the
   * admissions it integrates (each of them imported before it); any other event unchanged.
   */
  translate(event: RecordedEvent): RecordedEvent {
    if (event.type !== 'TreeHeadSigned') return event;
    const data = event.data as TreeHeadSigned;
    const positions = Array.isArray(data?.leaf_positions) ? data.leaf_positions : null;
    if (positions === null)
      throw new LeafPositionError(
        `the tree head at position ${event.position} has no leaf_positions list: it is not a TreeHeadSigned this service wrote`,
      );
    const translated = positions.map((position) => {
      const target = this.pending.get(position);
      if (target === undefined)
        throw new LeafPositionError(
          `the tree head at position ${event.position} (tree size ${data.tree_size}) integrates position ${position}, ` +
            'which is not an admission event imported before it and not integrated yet: the export is not a consistent log ' +
            '(`gov audit --export FILE` says what is wrong)',
        );
      this.pending.delete(position);
      return target;
    });
    return { ...event, data: { ...data, leaf_positions: translated } };
  }

  /** Admissions no tree head integrated (yet): a live store's newest, waiting for the sequencer. */
  get unintegrated(): number {
    return this.pending.size;
  }
}
