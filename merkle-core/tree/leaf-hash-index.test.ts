import { createHash } from 'node:crypto';
import { LeafHashIndex } from './leaf-hash-index';

const hashOf = (i: number) => new Uint8Array(createHash('sha256').update(`leaf ${i}`).digest());

describe('LeafHashIndex', () => {
  it('given leaves indexed as the log grows, then each hash finds its own index and no other', () => {
    const leaves: Uint8Array[] = [];
    const index = new LeafHashIndex((i) => leaves[i]!);
    for (let i = 0; i < 5000; i++) leaves.push(hashOf(i));
    index.extendTo(3000);
    expect(index.size).toBe(3000);
    expect(index.find(leaves[4999]!)).toBeNull();
    index.extendTo(5000);
    for (let i = 0; i < 5000; i++) expect(index.find(leaves[i]!)).toBe(i);
    expect(index.find(hashOf(-1))).toBeNull();
  });

  it('given hashes sharing their first four bytes, then the full hash decides', () => {
    const a = hashOf(1);
    const b = Uint8Array.from(a);
    b[31] = b[31]! ^ 1;
    const leaves = [a, b];
    const index = new LeafHashIndex((i) => leaves[i]!);
    index.extendTo(2);
    expect(index.find(a)).toBe(0);
    expect(index.find(b)).toBe(1);
    const c = Uint8Array.from(a);
    c[20] = c[20]! ^ 4;
    expect(index.find(c)).toBeNull();
  });

  it('given the same hash admitted twice, then the first index is found', () => {
    const leaves = [hashOf(7), hashOf(8), hashOf(7)];
    const index = new LeafHashIndex((i) => leaves[i]!);
    index.extendTo(3);
    expect(index.find(hashOf(7))).toBe(0);
  });
});
