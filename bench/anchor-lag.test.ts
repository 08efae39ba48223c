import { anchorLags } from './anchor-lag';

describe('anchorLags', () => {
  // Shared heads: signed at 1 s covering store positions up to 10, at 12 s up to 20, at 25 s up to 30.
  const shared = [
    { signedAt: 1_000, lastLeafPosition: 10 },
    { signedAt: 12_000, lastLeafPosition: 20 },
    { signedAt: 25_000, lastLeafPosition: 30 },
  ];

  it('given heads, anchors and shared heads, then each head waits for the first shared head covering the first anchor at or above its size', () => {
    const heads = [
      { tree_size: 3, signedAt: 500 },
      { tree_size: 5, signedAt: 2_000 }, // anchored by the anchor of size 7, not the one of size 3
      { tree_size: 7, signedAt: 4_000 },
    ];
    const anchors = [
      { tree_size: 7, position: 15 }, // covered by the head at 12 s
      { tree_size: 3, position: 9 }, // covered by the head at 1 s
    ];
    expect(anchorLags(heads, anchors, shared)).toEqual({ lags: [0.5, 10, 8], uncovered: 0 });
  });

  it('given a head above the last anchor, or an anchor no shared head covers yet, then the head is counted as never anchored', () => {
    const heads = [
      { tree_size: 4, signedAt: 0 },
      { tree_size: 9, signedAt: 0 },
    ];
    expect(anchorLags(heads, [{ tree_size: 4, position: 31 }], shared)).toEqual({ lags: [], uncovered: 2 });
    expect(anchorLags(heads, [{ tree_size: 4, position: 30 }], shared)).toEqual({ lags: [25], uncovered: 1 });
  });

  it('given the empty tree’s head, then it has no lag (an empty tree is never anchored)', () => {
    expect(anchorLags([{ tree_size: 0, signedAt: 0 }], [], shared)).toEqual({ lags: [], uncovered: 0 });
  });
});
