/**
 * Anchor lag (issue 32): for each tree head a log other than the shared one signed, the time from its
 * signing to the signing of the first shared-log tree head that covers a `LogAnchored` leaf anchoring
 * that size or later. Pure: the bench reads the events from the store the server wrote.
 */

/** A tree head of an anchored log: its size and when it was signed (ms since the epoch). */
export interface SignedAt {
  tree_size: number;
  signedAt: number;
}

/** A `LogAnchored` event of the log: the size it anchors and its position in the store. */
export interface AnchorEvent {
  tree_size: number;
  position: number;
}

/** A shared-log tree head: when it was signed, and the store position of the last leaf it integrated. */
export interface SharedHead {
  signedAt: number;
  lastLeafPosition: number;
}

export interface AnchorLags {
  /** Seconds, one per head of size > 0 that an anchor covered. */
  lags: number[];
  /** Heads no covered anchor reached (no anchor yet at that size, or none under a shared head). */
  uncovered: number;
}

/**
 * The lag of each head of one log. The shared log integrates admissions in store order, so the first
 * shared head whose last leaf comes at or after an anchor's event is the first to cover it; and a log
 * only grows, so the first anchor at or above a head's size is the earliest that anchors it.
 */
export function anchorLags(
  heads: readonly SignedAt[],
  anchors: readonly AnchorEvent[],
  sharedHeads: readonly SharedHead[],
): AnchorLags {
  const byPosition = [...sharedHeads].sort((a, b) => a.lastLeafPosition - b.lastLeafPosition);
  const coveredAt = (position: number) =>
    byPosition.find((head) => head.lastLeafPosition >= position)?.signedAt;
  const covers = [...anchors]
    .sort((a, b) => a.tree_size - b.tree_size)
    .map((anchor) => ({ tree_size: anchor.tree_size, at: coveredAt(anchor.position) }));
  const lags: number[] = [];
  let uncovered = 0;
  for (const head of heads) {
    if (head.tree_size === 0) continue; // an empty tree commits to nothing and is never anchored
    const at = covers.find((cover) => cover.tree_size >= head.tree_size && cover.at !== undefined)?.at;
    if (at === undefined) uncovered++;
    else lags.push(Math.max(0, at - head.signedAt) / 1000);
  }
  return { lags, uncovered };
}
