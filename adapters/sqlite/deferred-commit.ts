/**
 * Commits a connection's writes together, at most once per interval. A connection that commits many
 * small transactions (the delivery thread's: a queue write per bus batch, its checkpoint, a delivery
 * log write per page of attempts, ~150 a second under load) writes the same hot pages into the WAL
 * again at every commit and checkpoints them again; grouped, they are written once per group.
 *
 * The first write opens an IMMEDIATE transaction and runs at once; the writes after it run in the same
 * transaction. Reads on the connection see them at once (read-your-writes holds); other connections
 * see them, and they are durable, from the commit on. Each write's promise settles only then: a caller
 * that waits for it (a projector moving its checkpoint, a bus moving its offset) never gets ahead of
 * what is committed. The price is up to one interval of latency per write, and the file's write lock
 * held for that long.
 *
 * A write that throws is undone alone: the group is rolled back and the writes before it are run
 * again. (Savepoints would undo it too, but a savepoint copies every page it changes that the group
 * changed before into its journal: hot pages, at every write, would cost more than grouping saves.)
 */
import type { SqliteDatabase } from './open';

interface Write {
  run(): void;
  resolve(): void;
  reject(error: unknown): void;
}

export class DeferredCommit {
  /** The writes of the open group, in order. */
  private group: Write[] = [];
  private timer: NodeJS.Timeout | null = null;
  private lastCommitAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SqliteDatabase,
    /** The least time between two commits. */
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Runs `write` (plain statements, no transaction of its own) in the open group; resolves once the
   * group is committed, rejects if `write` throws or the group cannot be committed.
   */
  run(write: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry: Write = { run: write, resolve, reject };
      try {
        if (!this.db.inTransaction) this.open();
      } catch (error) {
        reject(error); // the write lock could not be had (busy past the timeout)
        return;
      }
      try {
        write();
        this.group.push(entry);
      } catch (error) {
        reject(error);
        this.redo(this.group);
      }
    });
  }

  /** Commits the open group now (before a write that must not wait, or a close). */
  flush(): void {
    this.stopTimer();
    if (!this.db.inTransaction) return;
    const group = this.group;
    this.group = [];
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const write of group) write.reject(error);
      return;
    } finally {
      this.lastCommitAt = this.now();
    }
    for (const write of group) write.resolve();
  }

  private open(): void {
    this.db.exec('BEGIN IMMEDIATE');
    const wait = Math.max(0, this.lastCommitAt + this.intervalMs - this.now());
    this.timer ??= setTimeout(() => this.flush(), wait);
  }

  /**
   * A write failed, leaving part of itself in the transaction (or SQLite rolled all of it back): roll
   * the group back and run `writes` again, dropping (and rejecting) any that fails this time.
   */
  private redo(writes: readonly Write[]): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    this.group = [];
    let pending = writes;
    while (pending.length > 0) {
      try {
        this.open();
      } catch (error) {
        for (const write of pending) write.reject(error);
        break;
      }
      const failed = pending.findIndex((write) => !this.tryRun(write));
      if (failed < 0) return;
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.group = [];
      pending = pending.filter((_, i) => i !== failed);
    }
    this.stopTimer();
  }

  /** Runs a write again; on success it joins the group, on failure it is rejected. */
  private tryRun(write: Write): boolean {
    try {
      write.run();
      this.group.push(write);
      return true;
    } catch (error) {
      write.reject(error);
      return false;
    }
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
