/**
 * A page of newly queued deliveries the worker has taken in and begun sending, not yet in the delivery
 * log. Each entry is held at its newest state (its first attempt's outcome folds in) until every first
 * attempt begun from the page has ended, or the hold time is up; then the page is written in one go,
 * with the rendered bodies it keeps: one log write per delivery instead of an intake write followed by
 * an attempt write.
 */
import type { Change, StoredDocument } from '../../ports/read-store';
import { DELIVERY_LOG, type DeliveryLogEntry } from './delivery-log';

/** A log document; `position` 0 while it is held by a page and not yet written. */
export type LogDocument = StoredDocument<DeliveryLogEntry>;

export class IntakePage {
  private readonly held: LogDocument[] = [];
  private readonly kept: Change[] = [];
  private outstanding = 0;
  private closed = false;
  private written = false;
  private timer: NodeJS.Timeout | null = null;
  private release!: () => void;
  /** Resolves once the page should be written: its first attempts have all ended, or the hold is up. */
  readonly ready = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  /** @param lastSeq the seq of the newest delivery of the page: the intake checkpoint it moves to. */
  constructor(readonly lastSeq: number) {}

  /** Holds a taken delivery's entry, and the change that keeps its body when it was rendered here. */
  hold(document: LogDocument, keep: Change | null): void {
    this.held.push(document);
    if (keep) this.kept.push(keep);
  }

  /** The held documents, in seq order. */
  documents(): readonly LogDocument[] {
    return this.held;
  }

  attemptBegun(): void {
    this.outstanding++;
  }

  attemptEnded(): void {
    this.outstanding--;
    this.releaseIfDone();
  }

  /** Nothing more is begun from the page: it is ready when its attempts end, at the latest after `holdMs`. */
  close(holdMs: number): void {
    this.closed = true;
    this.timer = setTimeout(() => this.release(), holdMs);
    this.timer.unref();
    this.releaseIfDone();
  }

  /**
   * A held entry's new state (its first attempt's outcome): folded into the page unless the page was
   * written already, in which case the caller records it on its own (false).
   */
  fold(document: LogDocument, data: DeliveryLogEntry): boolean {
    if (this.written) return false;
    document.data = data;
    return true;
  }

  /** The page's write: kept bodies first, then every held entry at its first log position. */
  seal(): Change[] {
    this.written = true;
    if (this.timer) clearTimeout(this.timer);
    const entries: Change[] = this.held.map((document) => {
      document.position = 1;
      return { kind: 'upsert', collection: DELIVERY_LOG, id: document.id, position: 1, data: document.data };
    });
    return [...this.kept, ...entries];
  }

  /** Not written (an earlier page's write failed and the intake starts again from its checkpoint). */
  discard(): void {
    this.written = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private releaseIfDone(): void {
    if (this.closed && this.outstanding === 0) this.release();
  }
}
