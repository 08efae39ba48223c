import type { Change, ReadStore, StoredDocument } from '../../ports/read-store';
import { type AppliedDocuments, documentKey } from './applied-documents';
import { type DocumentKey, type ProjectionState, physicalCollection } from './projection';

/**
 * The state a projection sees while a batch is projected: the read store overlaid with the changes
 * of the batch's earlier events, which are not stored yet (the batch is applied in one go). With
 * `applied`, the documents the runner stored or read before are taken from there.
 */
/**
 * Reads in flight at once while prefetching: enough to overlap round trips, few enough for a server
 * that serves each connection apart (FerretDB v1 gives each its own SQLite connection: hundreds of
 * reads at once took seconds each).
 */
const PREFETCH_LANES = 8;

export class BatchState implements ProjectionState {
  private readonly overlay = new Map<string, OverlayEntry>();
  /** Documents read ahead for this batch (`prefetch`). */
  private readonly fetched = new Map<string, Overlaid>();

  constructor(
    private readonly readStore: ReadStore,
    private readonly generation: number,
    private readonly applied?: AppliedDocuments,
  ) {}

  async get<T>(collection: string, id: string): Promise<StoredDocument<T> | null> {
    const key = documentKey(collection, id);
    const overlaid = this.overlay.get(key);
    if (overlaid && 'document' in overlaid) return overlaid.document as StoredDocument<T> | null;
    if (overlaid) {
      // Created unless a document was stored: the store says which, once. (A tombstone, which `get`
      // does not tell from nothing, would keep the create from taking effect: see `record`.)
      const stored = await this.readStore.get<T>(physicalCollection(collection, this.generation), id);
      const document = stored ?? (overlaid.created as StoredDocument<T>);
      this.overlay.set(key, { collection, id, document: document as StoredDocument<object> });
      return document;
    }
    const fetched = this.fetched.get(key);
    if (fetched !== undefined) return fetched as StoredDocument<T> | null;
    const known = this.applied?.get(collection, id);
    if (known !== undefined) return known as StoredDocument<T> | null;
    const stored = await this.readStore.get<T>(physicalCollection(collection, this.generation), id);
    this.applied?.remember(collection, id, stored as StoredDocument<object> | null);
    return stored;
  }

  /** Whether documents are kept between batches (the runner's `AppliedDocuments`). */
  get keepsApplied(): boolean {
    return this.applied !== undefined;
  }

  /** Reads the documents of `keys` not known here yet, all at once (see `Projection.reads`). */
  async prefetch(keys: readonly DocumentKey[]): Promise<void> {
    const wanted = new Map<string, DocumentKey>();
    for (const key of keys) {
      const name = documentKey(key.collection, key.id);
      if (this.overlay.has(name) || this.fetched.has(name) || wanted.has(name)) continue;
      if (this.applied?.get(key.collection, key.id) !== undefined) continue;
      wanted.set(name, key);
    }
    const queue = [...wanted];
    const lane = async () => {
      for (let next = queue.pop(); next; next = queue.pop()) {
        const [name, { collection, id }] = next;
        const stored = await this.readStore.get<object>(physicalCollection(collection, this.generation), id);
        this.fetched.set(name, stored);
        this.applied?.remember(collection, id, stored);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PREFETCH_LANES, queue.length) }, lane));
  }

  /**
   * The document as the batch's changes so far leave it (null: deleted), or undefined when the batch
   * has not changed it.
   */
  changed(collection: string, id: string): StoredDocument<object> | null | undefined {
    const overlaid = this.overlay.get(documentKey(collection, id));
    return overlaid && 'document' in overlaid ? overlaid.document : undefined;
  }

  /**
   * The batch's changes are stored: its documents are what the store holds now. A create nothing
   * resolved is left out: whether it took effect is not known here.
   */
  stored(): void {
    if (!this.applied) return;
    for (const entry of this.overlay.values())
      if ('document' in entry) this.applied.remember(entry.collection, entry.id, entry.document);
  }

  /**
   * Records a change so later events of the batch see it. Upserts and deletes need no read: events
   * arrive in position order and the store applies its own position guard. Only an increment needs
   * the current value. A create needs none either: the document is known, or the batch records it
   * as "created unless stored", which a later `get` of it in the batch resolves by reading the store.
   *
   * A create known to meet nothing (`get` gave null) counts as taking effect, though the store keeps
   * a tombstone instead: `get` does not tell the two apart. So a create suits documents that are
   * never deleted (write-once lookups); one a batch deletes first is seen deleted, as stored.
   */
  async record(change: Change): Promise<void> {
    const { collection, id } = change;
    const key = documentKey(collection, id);
    let document: Overlaid;
    if (change.kind === 'upsert') {
      document = { id, position: change.position, data: change.data };
    } else if (change.kind === 'delete') {
      document = null;
    } else if (change.kind === 'create') {
      // Written (or created first) earlier in the batch, a deletion included: the create does nothing.
      if (this.overlay.has(key)) return;
      const known = this.known(collection, id);
      if (known) return; // a stored document stays
      const created = { id, position: change.position, data: change.data };
      if (known === undefined) {
        this.overlay.set(key, { collection, id, created });
        return;
      }
      document = created;
    } else {
      const current = await this.get<Record<string, unknown>>(collection, id);
      if (current && current.position >= change.position) return;
      const data = { ...(current?.data ?? {}) };
      data[change.field] = Number(data[change.field] ?? 0) + change.by;
      document = { id, position: change.position, data };
    }
    this.overlay.set(key, { collection, id, document });
  }

  /** The document as read for this batch or kept from earlier ones (null: absent), else undefined. */
  private known(collection: string, id: string): Overlaid | undefined {
    const fetched = this.fetched.get(documentKey(collection, id));
    return fetched !== undefined ? fetched : this.applied?.get(collection, id);
  }
}

type Overlaid = StoredDocument<object> | null;

/** A document as the batch leaves it, or one it created unless the store already held one. */
type OverlayEntry =
  | { collection: string; id: string; document: Overlaid }
  | { collection: string; id: string; created: StoredDocument<object> };
