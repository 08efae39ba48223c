/** What is used of an object-mode Readable (the client's subscriptions are ones). */
export interface PullSource {
  read(): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

export interface BatchOptions {
  /** Largest batch handed out at once. */
  maxBatchSize: number;
  /** Ends the iteration, also while it waits for the source. */
  signal: AbortSignal;
}

/**
 * Reads an object-mode stream (a catch-up subscription) as batches: each batch holds what the stream
 * has buffered right now, up to `maxBatchSize` accepted items, and is never empty. Items `accept` maps
 * to null are left out. Ends when the stream ends or `signal` aborts; rethrows the stream's error.
 */
export async function* readBatches<T>(
  source: PullSource,
  accept: (item: unknown) => T | null,
  options: BatchOptions,
): AsyncGenerator<T[]> {
  const wakeup = new Wakeup();
  let failure: unknown = null;
  let ended = false;
  const onData = () => wakeup.signal();
  const onError = (error: unknown) => {
    failure ??= error;
    wakeup.signal();
  };
  const onEnd = () => {
    ended = true;
    wakeup.signal();
  };
  source.on('readable', onData);
  source.on('error', onError);
  source.on('end', onEnd);
  source.on('close', onEnd);
  options.signal.addEventListener('abort', onData);
  try {
    while (!options.signal.aborted) {
      const batch: T[] = [];
      let item: unknown = source.read();
      while (item !== null) {
        const accepted = accept(item);
        if (accepted !== null) batch.push(accepted);
        if (batch.length >= options.maxBatchSize) break;
        item = source.read();
      }
      if (batch.length > 0) {
        yield batch;
        continue;
      }
      if (failure !== null) throw failure;
      if (ended) return;
      await wakeup.wait();
    }
  } finally {
    source.off('readable', onData);
    source.off('error', onError);
    source.off('end', onEnd);
    source.off('close', onEnd);
    options.signal.removeEventListener('abort', onData);
  }
}

/** A signal that is never lost: one given before `wait` makes the next `wait` return at once. */
class Wakeup {
  private pending = false;
  private resolve: (() => void) | null = null;

  signal(): void {
    this.pending = true;
    const resolve = this.resolve;
    this.resolve = null;
    resolve?.();
  }

  wait(): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.resolve = () => {
        this.pending = false;
        resolve();
      };
    });
  }
}
