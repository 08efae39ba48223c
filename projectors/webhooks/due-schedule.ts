/**
 * When the delivery worker has to ask the store for due retries. Only the worker writes the delivery
 * log (one dispatcher runs), so after one look at the store it knows every pending entry's due time:
 * the earliest pending entry the look left in the store, and the entries it has recorded as pending
 * since. Until one of those comes due, the poll does not query. A query for due entries sorts the
 * log on an index in SQLite and MongoDB, but FerretDB v1 answers it by decoding every document of
 * the log: a query each second cost it seconds of CPU per second once the log held ~20,000 entries.
 */

/** Pending entries tracked at most; past that the worker queries on every poll, as without tracking. */
const MAX_TRACKED = 100_000;

export class DueSchedule {
  /**
   * As of the last look: the store held no pending entry due before this time (ms) other than the
   * ones tracked or in flight; null before the first look, or when a look could not tell.
   */
  private storeDueAt: number | null = null;
  /** Pending entries recorded since, by delivery id: when each is due (ms). */
  private readonly recorded = new Map<string, number>();
  private tracking = true;

  /** Whether a due entry may be waiting at `now` (ms): the poll queries only then. */
  mayBeDue(now: number): boolean {
    if (!this.tracking || this.storeDueAt === null || now >= this.storeDueAt) return true;
    for (const at of this.recorded.values()) if (at <= now) return true;
    return false;
  }

  /**
   * A look at the store: `nextAt` is the due time of the earliest pending entry it saw that is not
   * due yet; null when the look could not see that far (a full page of due entries), Infinity when
   * no pending entry is left past the due ones.
   */
  looked(nextAt: number | null): void {
    this.storeDueAt = nextAt;
  }

  /** The worker wrote (or is writing) an entry: pending until `dueAt` (ms), or settled (null). */
  recordedEntry(deliveryId: string, dueAt: number | null): void {
    if (dueAt === null) {
      this.recorded.delete(deliveryId);
      return;
    }
    if (!this.tracking) return;
    this.recorded.set(deliveryId, dueAt);
    if (this.recorded.size > MAX_TRACKED) {
      this.tracking = false;
      this.recorded.clear();
    }
  }

  /** An attempt of the entry began: it is tracked again only if it is recorded pending again. */
  begun(deliveryId: string): void {
    this.recorded.delete(deliveryId);
  }
}
