/**
 * A read whose every caller gets a result read after it asked, shared between callers: those arriving
 * while a read runs share the next one (a read begun before a caller asked may miss what it was told
 * about), so however many ask, at most one read runs and one waits.
 */
export class FreshRead<T> {
  private current: { running: Promise<T>; next: Promise<T> | null } | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    const current = this.current;
    if (!current) return this.start();
    current.next ??= current.running.then(
      () => this.start(),
      () => this.start(),
    );
    return current.next;
  }

  private start(): Promise<T> {
    const running = this.read().finally(() => {
      if (this.current?.running === running) this.current = null;
    });
    this.current = { running, next: null };
    return running;
  }
}
