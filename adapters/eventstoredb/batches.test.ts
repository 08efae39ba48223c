import { PassThrough } from 'node:stream';
import { readBatches } from './batches';

const source = () => new PassThrough({ objectMode: true, highWaterMark: 1024 });
const keep = (item: unknown) => item as number;

async function next<T>(iterator: AsyncIterator<T>): Promise<T> {
  const result = await iterator.next();
  if (result.done) throw new Error('the iteration ended');
  return result.value;
}

describe('reading a subscription as batches', () => {
  it('given items already buffered, then one batch holds them all, up to the largest batch size', async () => {
    const stream = source();
    for (let i = 1; i <= 5; i++) stream.write(i);
    const batches = readBatches(stream, keep, { maxBatchSize: 3, signal: new AbortController().signal });
    expect(await next(batches)).toEqual([1, 2, 3]);
    expect(await next(batches)).toEqual([4, 5]);
    await batches.return(undefined);
  });

  it('given nothing buffered, then it waits for the next item instead of yielding an empty batch', async () => {
    const stream = source();
    const batches = readBatches(stream, keep, { maxBatchSize: 10, signal: new AbortController().signal });
    const first = next(batches);
    await new Promise((resolve) => setTimeout(resolve, 20));
    stream.write(7);
    expect(await first).toEqual([7]);
    await batches.return(undefined);
  });

  it('leaves out the items accept maps to null, and never yields a batch that would be empty', async () => {
    const stream = source();
    for (const i of [1, 2, 3, 4]) stream.write(i);
    const evenOnly = (item: unknown) => ((item as number) % 2 === 0 ? (item as number) : null);
    const batches = readBatches(stream, evenOnly, { maxBatchSize: 10, signal: new AbortController().signal });
    expect(await next(batches)).toEqual([2, 4]);
    stream.write(5);
    stream.write(6);
    expect(await next(batches)).toEqual([6]);
    await batches.return(undefined);
  });

  it('when the signal aborts while it waits, then the iteration ends', async () => {
    const stream = source();
    const closing = new AbortController();
    const batches = readBatches(stream, keep, { maxBatchSize: 10, signal: closing.signal });
    const pending = batches.next();
    setTimeout(() => closing.abort(), 20);
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
  });

  it('when the stream fails, then the items before the failure are handed out, then the error is thrown', async () => {
    const stream = source();
    const batches = readBatches(stream, keep, { maxBatchSize: 10, signal: new AbortController().signal });
    stream.write(1);
    expect(await next(batches)).toEqual([1]);
    stream.destroy(new Error('connection lost'));
    await expect(batches.next()).rejects.toThrow('connection lost');
  });

  it('when the stream ends, then the iteration ends after the last items', async () => {
    const stream = source();
    stream.end(9);
    const batches = readBatches(stream, keep, { maxBatchSize: 10, signal: new AbortController().signal });
    expect(await next(batches)).toEqual([9]);
    await expect(batches.next()).resolves.toMatchObject({ done: true });
  });

  it('given items arriving while a batch is consumed, then none is lost or repeated', async () => {
    const stream = source();
    const batches = readBatches(stream, keep, { maxBatchSize: 7, signal: new AbortController().signal });
    const received: number[] = [];
    const writing = (async () => {
      for (let i = 0; i < 500; i++) {
        stream.write(i);
        if (i % 13 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    while (received.length < 500) {
      const batch = await next(batches);
      expect(batch.length).toBeGreaterThan(0);
      expect(batch.length).toBeLessThanOrEqual(7);
      received.push(...batch);
    }
    await writing;
    await batches.return(undefined);
    expect(received).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });
});
