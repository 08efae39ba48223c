/**
 * The persistent map against a `Map` as the model: any sequence of sets and deletes leaves it with
 * the model's entries, and every earlier version keeps the entries it had (nothing is shared mutably).
 */
import fc from 'fast-check';
import { PersistentMap, stringHash } from './persistent-map';

/** Two keys of equal 32-bit hash, found by brute force (FNV-1a: a few ten thousand tries). */
function collidingPair(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const key = `k${i}`;
    const hash = stringHash(key);
    const other = seen.get(hash);
    if (other !== undefined) return [other, key];
    seen.set(hash, key);
  }
}

const [clashA, clashB] = collidingPair();
const keyArb = fc.oneof(
  fc.constantFrom(clashA, clashB, '', '__proto__', 'constructor'),
  fc.string({ maxLength: 3 }),
  fc.integer({ min: 0, max: 2000 }).map((n) => `wh_${n}`),
);
const opArb = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key: keyArb, value: fc.integer() }),
  fc.record({ op: fc.constant('delete' as const), key: keyArb }),
);

const sorted = (entries: Iterable<[string, number]>) =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('PersistentMap', () => {
  it('given keys whose hashes collide, then both are kept and found', () => {
    expect(stringHash(clashA)).toBe(stringHash(clashB));
    const map = PersistentMap.empty<number>().set(clashA, 1).set(clashB, 2);
    expect([map.get(clashA), map.get(clashB), map.size]).toEqual([1, 2, 2]);
    expect(map.delete(clashA).get(clashB)).toBe(2);
    expect(map.delete(clashA).has(clashA)).toBe(false);
  });

  it('given any sequence of sets and deletes, then every version has the entries the model had at that step', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 300 }), (ops) => {
        const model = new Map<string, number>();
        let map = PersistentMap.empty<number>();
        const versions: Array<[PersistentMap<number>, [string, number][]]> = [];
        for (const step of ops) {
          if (step.op === 'set') {
            model.set(step.key, step.value);
            map = map.set(step.key, step.value);
          } else {
            model.delete(step.key);
            map = map.delete(step.key);
          }
          expect(map.size).toBe(model.size);
          expect(map.has(step.key)).toBe(model.has(step.key));
          expect(map.get(step.key)).toBe(model.get(step.key));
          versions.push([map, sorted(model)]);
        }
        for (const [version, entries] of versions) {
          expect(sorted(version)).toEqual(entries);
          expect(version.size).toBe(entries.length);
          for (const [key, value] of entries) expect(version.get(key)).toBe(value);
        }
      }),
      { seed: 20_261_121, numRuns: 200 },
    );
  });

  it('given a delete of a missing key, then the same map comes back', () => {
    const map = PersistentMap.of([['a', 1]]);
    expect(map.delete('b')).toBe(map);
    expect(PersistentMap.empty().delete('a')).toBe(PersistentMap.empty());
  });

  it('given ten thousand keys, then each is found and keys, values and entries agree', () => {
    const map = PersistentMap.of(Array.from({ length: 10_000 }, (_, i) => [`leaf-${i}`, i] as const));
    expect(map.size).toBe(10_000);
    for (let i = 0; i < 10_000; i += 97) expect(map.get(`leaf-${i}`)).toBe(i);
    expect([...map.keys()].length).toBe(10_000);
    expect([...map.values()].reduce((a, b) => a + b, 0)).toBe((9_999 * 10_000) / 2);
  });
});
