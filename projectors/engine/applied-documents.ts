/**
 * Documents of a projection as its runner last stored or read them, kept between batches. A runner is
 * the one writer of its generation's collections (the single-writer lease fences any other), so what
 * it stored is what the store holds, absent documents included, until it stops consuming. A get of a
 * hot document (a tenant's counters, a subject's lifecycle) then skips the read store: its reads cost
 * ~17-21 µs each on the projection thread, ~3 per admission. Bounded: the least recently used go
 * first. Projections never change a document they were given (they return new ones), so the
 * documents are shared as they are.
 */
import type { StoredDocument } from '../../ports/read-store';

export class AppliedDocuments {
  private readonly documents = new Map<string, StoredDocument<object> | null>();

  /** @param keeps which collections' documents are kept (all by default) */
  constructor(
    private readonly maxDocuments = 4096,
    private readonly keeps: (collection: string) => boolean = () => true,
  ) {}

  /** The document as stored (null: absent), or undefined when not known here. */
  get(collection: string, id: string): StoredDocument<object> | null | undefined {
    const key = documentKey(collection, id);
    const document = this.documents.get(key);
    if (document === undefined) return undefined;
    // Map order is insertion order: moving it to the end keeps the order by last use.
    this.documents.delete(key);
    this.documents.set(key, document);
    return document;
  }

  /** `document` (null: absent) is what the store holds now. */
  remember(collection: string, id: string, document: StoredDocument<object> | null): void {
    if (!this.keeps(collection)) return;
    const key = documentKey(collection, id);
    this.documents.delete(key);
    this.documents.set(key, document);
    if (this.documents.size > this.maxDocuments)
      this.documents.delete(this.documents.keys().next().value as string);
  }

  /** Forget everything (the store may hold something else now: a failed batch, a lost lease). */
  clear(): void {
    this.documents.clear();
  }
}

export function documentKey(collection: string, id: string): string {
  return `${collection}\u0000${id}`;
}
