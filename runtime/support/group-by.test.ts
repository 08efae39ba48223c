import { groupBy } from './group-by';

describe('groupBy', () => {
  it('given items, then lists by key, keys in first-seen order and items in their order', () => {
    const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (item) => item[0]);
    expect([...groups]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
  });

  it('given no items, then no groups', () => {
    expect(groupBy([], String).size).toBe(0);
  });
});
