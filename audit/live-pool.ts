/**
 * Bounded concurrency with backpressure: at most `limit` tasks run at once, and a caller adding a task
 * to a full pool gets a promise to await until the task has started. A producer that awaits it (the
 * audit engine awaits its hooks) therefore never gets more than `limit` tasks ahead, which keeps both
 * the requests in flight and the memory they hold bounded.
 */
export class TaskPool {
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #idle: (() => void)[] = [];
  #failure: { error: unknown } | null = null;

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError(`a pool needs a limit of at least 1, got ${limit}`);
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /**
   * Starts `task` when a slot is free. Returns undefined when it started at once, else a promise that
   * resolves once it has started. Tasks are expected to handle their own errors; one that throws anyway
   * makes `drain` throw.
   */
  start(task: () => Promise<void>): Promise<void> | undefined {
    if (this.#active < this.limit) {
      this.#run(task);
      return undefined;
    }
    return new Promise((resolve) => {
      this.#waiting.push(() => {
        this.#run(task);
        resolve();
      });
    });
  }

  /** Resolves once every task added so far has finished; throws the first error a task threw. */
  async drain(): Promise<void> {
    while (this.#active > 0 || this.#waiting.length > 0) {
      await new Promise<void>((resolve) => this.#idle.push(resolve));
    }
    if (this.#failure) throw this.#failure.error;
  }

  #run(task: () => Promise<void>): void {
    this.#active++;
    let running: Promise<void>;
    try {
      running = task();
    } catch (error) {
      running = Promise.reject(error);
    }
    running
      .catch((error: unknown) => {
        this.#failure ??= { error };
      })
      .finally(() => {
        this.#active--;
        const next = this.#waiting.shift();
        if (next) next();
        else if (this.#active === 0) for (const resolve of this.#idle.splice(0)) resolve();
      });
  }
}
