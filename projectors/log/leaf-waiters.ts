import type { IntegratedLeaf } from '../../ports/log';

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
