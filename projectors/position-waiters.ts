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
