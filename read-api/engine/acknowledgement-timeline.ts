/**
 * When positions were acknowledged, for a bound on a follower's lag in time rather than in positions:
 * "the follower has applied everything acknowledged more than T ago". Positions are noted in
 * ascending order with a monotonic clock, and asked about with cut-offs that never move back, so the
 * entries older than the newest one at or before a cut-off are never needed again and are dropped.
 */
export class AcknowledgementTimeline {
  private times: number[] = [];
  private positions: number[] = [];
  /** Index of the oldest entry still kept. */
  private head = 0;

  /**
   * `position` was acknowledged at `at`. An older or equal position adds nothing; one noted within
   * the same millisecond as the last entry replaces its position (the entries stay one a
   * millisecond, and that position counts as acknowledged up to 1 ms early: a bound only tighter).
   */
  note(at: number, position: number): void {
    const last = this.positions.length - 1;
    if (last >= this.head && position <= this.positions[last]!) return;
    if (last >= this.head && at - this.times[last]! < 1) {
      this.positions[last] = position;
      return;
    }
    this.times.push(at);
    this.positions.push(position);
  }

  /** The newest position acknowledged at or before `cutoff`; null when none was. */
  newestAtOrBefore(cutoff: number): number | null {
    const { times } = this;
    while (this.head + 1 < times.length && times[this.head + 1]! <= cutoff) this.head += 1;
    this.compact();
    if (this.head >= times.length || times[this.head]! > cutoff) return null;
    return this.positions[this.head]!;
  }

  /** Entries kept (for tests of the memory bound). */
  get size(): number {
    return this.times.length - this.head;
  }

  /** Drops the entries before `head` once they are most of the arrays. */
  private compact(): void {
    if (this.head < 1024 || this.head * 2 < this.times.length) return;
    this.times = this.times.slice(this.head);
    this.positions = this.positions.slice(this.head);
    this.head = 0;
  }
}
