import { EndpointLimiter } from './endpoint-limiter';

/** A task that runs until `release` is called, recording when it started. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    release: () => release(),
    task: async () => {
      log.push(name);
      await done;
      return name;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('endpoint limiter', () => {
  it('given 6 attempts for one endpoint with a per-endpoint cap of 4, then 4 run and the rest wait in order', async () => {
    const limiter = new EndpointLimiter({ perKey: 4, global: 256 });
    const started: string[] = [];
    const gates = Array.from({ length: 6 }, (_, i) => gate(started, `t${i}`));
    const results = gates.map((g) => limiter.run('wh_1', g.task));
    await settle();
    expect(started).toEqual(['t0', 't1', 't2', 't3']);
    expect(limiter.inFlight).toBe(4);
    expect(limiter.waiting).toBe(2);

    gates[2]!.release();
    await settle();
    expect(started).toEqual(['t0', 't1', 't2', 't3', 't4']);

    for (const g of gates) g.release();
    await expect(Promise.all(results)).resolves.toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    expect(limiter.inFlight).toBe(0);
    expect(limiter.waiting).toBe(0);
  });

  it('given a busy endpoint, then another endpoint is not held up by it', async () => {
    const limiter = new EndpointLimiter({ perKey: 1 });
    const started: string[] = [];
    const a1 = gate(started, 'a1');
    const a2 = gate(started, 'a2');
    const b1 = gate(started, 'b1');
    const runs = [limiter.run('a', a1.task), limiter.run('a', a2.task), limiter.run('b', b1.task)];
    await settle();
    expect(started).toEqual(['a1', 'b1']);
    for (const g of [a1, a2, b1]) g.release();
    await Promise.all(runs);
    expect(started).toEqual(['a1', 'b1', 'a2']);
  });

  it('given a global cap of 2 across endpoints, then at most 2 run and waiters start first come, first served', async () => {
    const limiter = new EndpointLimiter({ perKey: 4, global: 2 });
    const started: string[] = [];
    const order = ['a', 'b', 'c', 'a', 'd', 'b'];
    const gates = order.map((key, i) => ({ key, ...gate(started, `${key}${i}`) }));
    const runs = gates.map((g) => limiter.run(g.key, g.task));
    await settle();
    expect(started).toEqual(['a0', 'b1']);

    for (const expected of [['c2'], ['a3'], ['d4'], ['b5']]) {
      gates[started.length - 2]!.release();
      await settle();
      expect(limiter.inFlight).toBeLessThanOrEqual(2);
      expect(started.slice(-1)).toEqual(expected);
    }
    for (const g of gates) g.release();
    await Promise.all(runs);
    expect(started).toEqual(['a0', 'b1', 'c2', 'a3', 'd4', 'b5']);
  });

  it('given many concurrent attempts, then neither cap is ever exceeded', async () => {
    const limiter = new EndpointLimiter({ perKey: 3, global: 5 });
    const active = new Map<string, number>();
    let total = 0;
    let maxTotal = 0;
    let maxPerKey = 0;
    const runs = Array.from({ length: 60 }, (_, i) => {
      const key = `wh_${i % 4}`;
      return limiter.run(key, async () => {
        total++;
        active.set(key, (active.get(key) ?? 0) + 1);
        maxTotal = Math.max(maxTotal, total);
        maxPerKey = Math.max(maxPerKey, active.get(key)!);
        await new Promise((resolve) => setTimeout(resolve, i % 3));
        total--;
        active.set(key, active.get(key)! - 1);
      });
    });
    await Promise.all(runs);
    expect(maxTotal).toBe(5);
    // Whether one endpoint ever holds all 3 of its slots depends on timer order; the cap is what counts
    // here (reaching it is the 6-attempts test above).
    expect(maxPerKey).toBeLessThanOrEqual(3);
  });

  it('given a task that fails, then its error reaches the caller and its slots are freed', async () => {
    const limiter = new EndpointLimiter({ perKey: 1, global: 1 });
    await expect(limiter.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run('a', async () => 'next')).resolves.toBe('next');
    expect(limiter.inFlight).toBe(0);
  });

  it('given no options, then the defaults are 4 per endpoint and 256 in all', async () => {
    const limiter = new EndpointLimiter();
    const started: string[] = [];
    const gates = Array.from({ length: 5 }, (_, i) => gate(started, `t${i}`));
    const runs = gates.map((g) => limiter.run('wh_1', g.task));
    const many = Array.from({ length: 300 }, (_, i) => gate(started, `k${i}`));
    const manyRuns = many.map((g, i) => limiter.run(`wh_k${i}`, g.task));
    await settle();
    expect(started).toHaveLength(4 + 252);
    for (const g of [...gates, ...many]) g.release();
    await Promise.all([...runs, ...manyRuns]);
    expect(started).toHaveLength(305);
  });

  it('given a cap that is not a positive integer, then the limiter refuses it', () => {
    expect(() => new EndpointLimiter({ perKey: 0 })).toThrow(RangeError);
    expect(() => new EndpointLimiter({ global: 1.5 })).toThrow(RangeError);
  });
});
