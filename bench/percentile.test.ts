import { percentile } from './percentile';

describe('percentile', () => {
  it('given 100 values 1..100, then p50 is 50, p99 is 99 and p100 is 100 (nearest rank)', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
  });

  it('given numbers that sort differently as text, then they are ranked as numbers', () => {
    expect(percentile([9, 10, 100, 2], 100)).toBe(100);
    expect(percentile([9, 10, 100, 2], 25)).toBe(2);
  });

  it('given no values, then it is NaN', () => {
    expect(percentile([], 99)).toBeNaN();
  });
});
