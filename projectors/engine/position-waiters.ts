/** Read-your-write for a follower of the event stream: promises released once it has reached a position. */
export class PositionWaiters {
  private readonly waiting: Array<{ position: number; resolve: () => void }> = [];

  /** Resolves once `release` was called with a position at or past `position`. */
  wait(position: number, reached: number | null): Promise<void> {
    if (position <= 0 || (reached !== null && reached >= position)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ position, resolve }));
  }

  /** The follower has applied everything up to `reached`. */
  release(reached: number): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const waiter = this.waiting[i]!;
      if (waiter.position <= reached) {
        this.waiting.splice(i, 1);
        waiter.resolve();
      }
    }
  }
}

/**
 * How far a follower of the event stream has got (null before it reached anything): it only moves
 * forward, and waits for a position are released as it passes them.
 */
export class FollowedPosition {
  private reached: number | null = null;
  private readonly waiters = new PositionWaiters();

  get position(): number | null {
    return this.reached;
  }

  /** Resolves once the follower has reached `position`. */
  wait(position: number): Promise<void> {
    return this.waiters.wait(position, this.reached);
  }

  /** The follower has reached `position`; an earlier one changes nothing. */
  advance(position: number): void {
    if (this.reached !== null && position <= this.reached) return;
    this.reached = position;
    this.waiters.release(position);
  }
}
