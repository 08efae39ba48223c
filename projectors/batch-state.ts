import type { Change, ReadStore, StoredDocument } from '../ports/read-store';
import { type ProjectionState, physicalCollection } from './projection';

/**
 * The state a projection sees while a batch is projected: the read store overlaid with the changes
 * of the batch's earlier events, which are not stored yet (the batch is applied in one go).
 */
export class BatchState implements ProjectionState {
  private readonly overlay = new Map<string, StoredDocument<object> | null>();

  constructor(
    private readonly readStore: ReadStore,
    private readonly generation: number,
  ) {}

  async get<T>(collection: string, id: string): Promise<StoredDocument<T> | null> {
    const key = overlayKey(collection, id);
    if (this.overlay.has(key)) return this.overlay.get(key) as StoredDocument<T> | null;
    return this.readStore.get<T>(physicalCollection(collection, this.generation), id);
  }

  /**
   * Records a change so later events of the batch see it. Upserts and deletes need no read: events
   * arrive in position order and the store applies its own position guard. Only an increment needs
   * the current value.
   */
  async record(change: Change): Promise<void> {
    const key = overlayKey(change.collection, change.id);
    if (change.kind === 'upsert') {
      this.overlay.set(key, { id: change.id, position: change.position, data: change.data });
    } else if (change.kind === 'delete') {
      this.overlay.set(key, null);
    } else {
      const current = await this.get<Record<string, unknown>>(change.collection, change.id);
      if (current && current.position >= change.position) return;
      const data = { ...(current?.data ?? {}) };
      data[change.field] = Number(data[change.field] ?? 0) + change.by;
      this.overlay.set(key, { id: change.id, position: change.position, data });
    }
  }
}

function overlayKey(collection: string, id: string): string {
  return `${collection}\u0000${id}`;
}
