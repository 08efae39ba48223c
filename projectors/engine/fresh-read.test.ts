import { FreshRead } from './fresh-read';

/** A read whose every call is held until the test releases it, answering the value at release. */
function heldReads() {
  const pending: Array<() => void> = [];
  let value = 0;
  const read = new FreshRead(
    () =>
      new Promise<number>((resolve) => {
        pending.push(() => resolve(value));
      }),
  );
  return {
    read,
    pending,
    set: (next: number) => {
      value = next;
    },
    releaseFirst: async () => {
      pending.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('FreshRead', () => {
  it('given a read running when a caller asks, when it answers, then that caller gets the next read, begun after it asked', async () => {
    const h = heldReads();
    const early = h.read.get();
    h.set(1); // what the store holds changes after the first read began
    const late = h.read.get();
    expect(h.pending).toHaveLength(1);
    await h.releaseFirst();
    await expect(early).resolves.toBe(1);
    expect(h.pending).toHaveLength(1); // the second read began only now
    h.set(2);
    await h.releaseFirst();
    await expect(late).resolves.toBe(2);
  });

  it('given many callers while a read runs, when it answers, then they share one further read', async () => {
    const h = heldReads();
    const first = h.read.get();
    const waiting = Array.from({ length: 50 }, () => h.read.get());
    expect(h.pending).toHaveLength(1);
    await h.releaseFirst();
    await first;
    expect(h.pending).toHaveLength(1);
    h.set(7);
    await h.releaseFirst();
    expect(await Promise.all(waiting)).toEqual(Array(50).fill(7));
    expect(h.pending).toHaveLength(0);
  });

  it('given a read that fails, when callers wait for the next, then the next still runs and the failure reaches only its own callers', async () => {
    let calls = 0;
    const read = new FreshRead(async () => {
      calls++;
      if (calls === 1) throw new Error('store unreachable');
      return calls;
    });
    const failing = read.get();
    const next = read.get();
    await expect(failing).rejects.toThrow('store unreachable');
    await expect(next).resolves.toBe(2);
    await expect(read.get()).resolves.toBe(3);
  });
});
