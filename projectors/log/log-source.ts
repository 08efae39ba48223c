import type { JsonSth } from '../../domain/log';
import type { TileLog } from '../../merkle-core';
import type { PublishedTreeHead } from '../../read-api/governance/log/published-log';
import type { IntegratedLeaf } from './log-sequencer';

export { ADMISSION_EVENT_TYPES, type IntegratedLeaf } from './log-sequencer';

/**
 * Where a process gets the Merkle log it serves: the sequencer itself (embedded, or the writing
 * sequencer process) or a follower of the sequencer's events (every other process).
 */
export interface LogSource {
  /** The log's current verifier key (note format). */
  readonly verifierKey: string;
  /** The tree; sizes beyond `latest().sth.tree_size` are not signed yet. */
  readonly log: TileLog;
  latest(): PublishedTreeHead;
  /** Event-store position of the latest head's `TreeHeadSigned` event. */
  latestPosition(): number;
  /**
   * Resolves once this source holds every tree head the event store held when it was called: at once
   * for the sequencer (it appends them), once it has read them for a follower (which may trail the
   * sequencer, in another process, by a poll of the store).
   */
  catchUp(): Promise<void>;
  /** The JSON STH of a checkpoint this log signed, under whichever of its keys. */
  sthOf(checkpoint: string): JsonSth;
  /** Resolves when the admission event `eventId` is a leaf under a signed tree head. */
  waitForEvent(eventId: string): Promise<IntegratedLeaf>;
}

/**
 * How many recently integrated admissions are remembered for `wait` (by event id). A caller asks right
 * after its append returns, so a few seconds of admissions is plenty (20,000 is 7 s at 3,000/s); each
 * entry also holds its tree head, and 200,000 of them grew a 10-minute soak's heap by ~60 MB.
 */
const RECENT_LIMIT = 20_000;

/**
 * Callers waiting for an admission to become a leaf. Recent leaves are remembered, so a caller that
 * asks just after the integration still gets its answer.
 */
export class LeafWaiters {
  private readonly recent = new Map<string, IntegratedLeaf>();
  private readonly waiters = new Map<string, Array<(leaf: IntegratedLeaf) => void>>();

  wait(eventId: string): Promise<IntegratedLeaf> {
    const done = this.recent.get(eventId);
    if (done) return Promise.resolve(done);
    return new Promise((resolve) => {
      const list = this.waiters.get(eventId);
      if (list) list.push(resolve);
      else this.waiters.set(eventId, [resolve]);
    });
  }

  settle(eventId: string, leaf: IntegratedLeaf): void {
    this.recent.set(eventId, leaf);
    if (this.recent.size > RECENT_LIMIT) this.recent.delete(this.recent.keys().next().value!);
    const list = this.waiters.get(eventId);
    if (!list) return;
    this.waiters.delete(eventId);
    for (const resolve of list) resolve(leaf);
  }
}
