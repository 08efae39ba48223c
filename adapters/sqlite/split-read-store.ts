/**
 * Two read stores behind one: the state that `sideOwns` names (by collection or checkpoint name) in
 * a SQLite file of its own, everything else in the main one. SQLite has one writer per file, and a
 * writer that finds the file locked sleeps in SQLite's busy handler (1, 2, 5, 10 ms …): the embedded
 * server keeps webhook delivery's queue and log apart from the read models this way, so that
 * the delivery thread's many small commits never hold up the projections an admission waits for.
 * A projector's changes and checkpoint stay in one file, so `apply` stays one transaction.
 */
import type { LeaseManager } from '../../ports/lease';
import type {
  Change,
  Checkpoint,
  FindQuery,
  IndexSpec,
  Page,
  ReadStore,
  StoredDocument,
} from '../../ports/read-store';
import { moveToSideStore } from './move-to-side-store';
import { SqliteReadStore, type SqliteReadStoreOptions } from './read-store';

export class SplitReadStore implements ReadStore {
  /** One apply goes to one file, in one transaction there. */
  readonly atomicApply = true;

  constructor(
    private readonly main: SqliteReadStore,
    private readonly side: SqliteReadStore,
    /** Whether a collection or checkpoint name belongs to the side file. */
    private readonly sideOwns: (name: string) => boolean,
  ) {}

  /**
   * Opens both files. State of the side's that a main file written before the split holds (a
   * delivery queue, its checkpoints) is moved over first, once, so that none of it is lost.
   */
  static open(
    mainFile: string,
    sideFile: string,
    sideOwns: (name: string) => boolean,
    /** How the side file commits (its one writer may group its commits: see SqliteReadStoreOptions). */
    sideOptions: SqliteReadStoreOptions = {},
  ): SplitReadStore {
    const main = new SqliteReadStore(mainFile);
    const side = new SqliteReadStore(sideFile, sideOptions);
    moveToSideStore(mainFile, sideFile, sideOwns);
    return new SplitReadStore(main, side, sideOwns);
  }

  /** Leases are the main file's: the single writers that take them write there. */
  leases(): LeaseManager {
    return this.main.leases();
  }

  ensureIndex(spec: IndexSpec): Promise<void> {
    return this.storeOf(spec.collection).ensureIndex(spec);
  }

  get<T>(collection: string, id: string): Promise<StoredDocument<T> | null> {
    return this.storeOf(collection).get<T>(collection, id);
  }

  find<T>(collection: string, query: FindQuery): Promise<Page<T>> {
    return this.storeOf(collection).find<T>(collection, query);
  }

  count(collection: string, where?: FindQuery['where'], range?: FindQuery['range']): Promise<number> {
    return this.storeOf(collection).count(collection, where, range);
  }

  apply(changes: readonly Change[], checkpoint?: Checkpoint): Promise<void> {
    const first = checkpoint?.projector ?? changes[0]?.collection;
    if (first === undefined) return Promise.resolve();
    const store = this.storeOf(first);
    const stray = changes.find((change) => this.storeOf(change.collection) !== store);
    if (stray)
      return Promise.reject(
        new Error(
          `one apply cannot span both read-store files: ${stray.collection} is not kept with ${first}; ` +
            'split the batch by owner',
        ),
      );
    return store.apply(changes, checkpoint);
  }

  getCheckpoint(projector: string): Promise<number | null> {
    return this.storeOf(projector).getCheckpoint(projector);
  }

  incrementCounter(collection: string, id: string, by: number): Promise<number> {
    return this.storeOf(collection).incrementCounter(collection, id, by);
  }

  async dropCollections(collections: readonly string[]): Promise<void> {
    await this.side.dropCollections(collections.filter((name) => this.sideOwns(name)));
    await this.main.dropCollections(collections.filter((name) => !this.sideOwns(name)));
  }

  deleteCheckpoint(projector: string): Promise<void> {
    return this.storeOf(projector).deleteCheckpoint(projector);
  }

  async close(): Promise<void> {
    await this.side.close();
    await this.main.close();
  }

  private storeOf(name: string): SqliteReadStore {
    return this.sideOwns(name) ? this.side : this.main;
  }
}
