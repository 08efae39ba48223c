/**
 * Caps attempts in flight: at most `perKey` per webhook endpoint (keyed by webhook id) and `global` in
 * all. Waiters start first come, first served: a task takes its endpoint's slot (FIFO per endpoint),
 * then a global slot (FIFO across endpoints), so a busy endpoint holds at most `perKey` global slots.
 */

const DEFAULT_PER_ENDPOINT = 4;
const DEFAULT_GLOBAL = 256;

export interface EndpointLimiterOptions {
  perKey?: number;
  global?: number;
}

export class EndpointLimiter {
  private readonly perKey: number;
  private readonly global: Semaphore;
  private readonly keys = new Map<string, Semaphore>();
  private queued = 0;

  constructor(options: EndpointLimiterOptions = {}) {
    this.perKey = positive('perKey', options.perKey ?? DEFAULT_PER_ENDPOINT);
    this.global = new Semaphore(positive('global', options.global ?? DEFAULT_GLOBAL));
  }

  /** Tasks running now. */
  get inFlight(): number {
    return this.global.active;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.queued;
  }

  /** Runs `fn` once `key` and the whole limiter both have a free slot; settles as `fn` does. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let slot = this.keys.get(key);
    if (!slot) {
      slot = new Semaphore(this.perKey);
      this.keys.set(key, slot);
    }
    this.queued++;
    await slot.acquire();
    try {
      await this.global.acquire();
      this.queued--;
      try {
        return await fn();
      } finally {
        this.global.release();
      }
    } finally {
      slot.release();
      if (slot.idle) this.keys.delete(key);
    }
  }
}

/** Counting semaphore whose waiters are served in arrival order. */
class Semaphore {
  active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get idle(): boolean {
    return this.active === 0 && this.waiters.length === 0;
  }

  acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hands the slot straight to the next waiter, so a newcomer cannot overtake it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.active--;
  }
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
