/**
 * The sequential replay of the Merkle log: admissions wait in a pending map (memory: pending admissions
 * only) until a TreeHeadSigned integrates them, in the order its leaf_positions give, into one
 * CompactRange (O(log n) state); the recomputed root must equal the signed root_hash.
 *
 * Consistency between signed tree heads is checked by construction: every root is compared with the
 * root of the same CompactRange, only ever extended leaf by leaf. A matching root at size n2 is
 * therefore the root of a tree whose first n1 leaves are exactly those that matched the previous head
 * at n1 — which is what an RFC 9162 consistency proof between the two heads would establish.
 */

import { CompactRange, toHex } from '../merkle-core';
import type { TreeHeadFacts } from './event-facts';
import type { Finding } from './report';

export interface ReplayHooks {
  /**
   * Called for every leaf in leaf-index order with its recomputed RFC 9162 leaf hash: 0, 1, 2… without
   * a gap, up to the first leaf that cannot be recomputed (unreadable or missing), where the replayed
   * tree ends.
   */
  onLeaf?: (leafIndex: number, leafHash: Uint8Array) => void | Promise<void>;
  /**
   * Called after each TreeHeadSigned is checked, with the recomputed root at its size (for the heads
   * before that first unrecomputable leaf, whose size agrees with their own leaf count).
   */
  onTreeHead?: (treeSize: number, rootHash: Uint8Array, checkpoint: string) => void | Promise<void>;
}

export interface ReplayOutcome {
  treeSize: number;
  /** The recomputed root at treeSize; null when a leaf could not be recomputed. */
  rootHash: string | null;
  notices: string[];
}

/** The first leaf that could not be recomputed: the tree (and every later root) is unknown from there. */
interface Break {
  leafIndex: number;
  reason: string;
}

export class LogReplay {
  private readonly tree = new CompactRange();
  /** Admissions read and not yet integrated, by position; a Map keeps them in position order. */
  private readonly pending = new Map<number, Uint8Array | null>();
  /** Leaves integrated so far, as the tree heads count them (equals tree.size until a break). */
  private integrated = 0;
  private lastIntegratedPosition = 0;
  private lastTimestamp: number | null = null;
  private broken: Break | null = null;
  private brokenReported = false;
  private uncheckedHeads = 0;

  constructor(private readonly hooks: ReplayHooks = {}) {}

  /** An admission event read at `position`; `hash` is null when its record cannot be read. */
  admit(position: number, hash: Uint8Array | null): void {
    this.pending.set(position, hash);
  }

  /** Checks a TreeHeadSigned read at `position` against the replayed tree, and extends the tree. */
  async treeHead(position: number, head: TreeHeadFacts): Promise<Finding[]> {
    const findings: Finding[] = [];
    const at = { tree_size: head.treeSize };
    const time = Date.parse(head.timestamp);
    if (this.lastTimestamp !== null && time < this.lastTimestamp)
      findings.push({
        check: 'sth-timestamp',
        ...at,
        message: `timestamp ${head.timestamp} is older than the previous tree head's ${new Date(this.lastTimestamp).toISOString()}: tree heads never go back in time`,
      });
    if (!Number.isNaN(time)) this.lastTimestamp = Math.max(this.lastTimestamp ?? time, time);

    const start = head.firstLeafIndex;
    if (start !== this.integrated) findings.push({ ...(await this.realign(start, head, position)), ...at });

    let orderReported = false;
    const { leafPositions } = head;
    for (let i = 0; i < leafPositions.length; i++) {
      const leafPosition = leafPositions[i]!;
      const leafIndex = start + i;
      // A pending admission's hash is bytes or null (unreadable); undefined: none pending there.
      const hash = this.pending.get(leafPosition);
      if (hash === undefined) {
        findings.push({
          check: 'leaf-position',
          leaf_index: leafIndex,
          ...at,
          message: `leaf ${leafIndex} ${this.describeMissing(leafPosition, position)}`,
        });
        this.breakAt(
          leafIndex,
          `leaf ${leafIndex} (position ${leafPosition}) is not an admission read from the stream`,
        );
        this.integrated++;
        continue;
      }
      const oldest = this.pending.keys().next().value as number;
      if (oldest < leafPosition && !orderReported) {
        orderReported = true;
        findings.push({
          check: 'leaf-order',
          leaf_index: leafIndex,
          ...at,
          message: `leaf ${leafIndex} integrates position ${leafPosition} while the older admission at position ${oldest} is still pending: the sequencer integrates admissions in event order`,
        });
      }
      this.pending.delete(leafPosition);
      this.lastIntegratedPosition = Math.max(this.lastIntegratedPosition, leafPosition);
      const hooked = this.integrate(leafIndex, leafPosition, hash);
      if (hooked) await hooked;
    }

    if (this.broken) {
      if (this.brokenReported) this.uncheckedHeads++;
      else {
        this.brokenReported = true;
        findings.push({
          check: 'root-unverifiable',
          ...at,
          message: `the root cannot be recomputed: ${this.broken.reason}; this and every later tree head are checked for signatures and sizes only`,
        });
      }
    } else if (this.tree.size === head.treeSize) {
      const root = this.tree.root();
      const recomputed = toHex(root);
      if (recomputed !== head.rootHash)
        findings.push({
          check: 'root-mismatch',
          ...at,
          message: `root_hash ${head.rootHash} is not the root of the ${head.treeSize} leaves recomputed from the admitted records (${recomputed}): the tree head does not commit to these events`,
        });
      await this.hooks.onTreeHead?.(head.treeSize, root, head.checkpoint);
    }
    // Otherwise tree_size contradicts the head's own leaf count ('sth-size', reported with the event).
    return findings;
  }

  finish(): ReplayOutcome {
    const notices: string[] = [];
    if (this.pending.size > 0) {
      const positions = [...this.pending.keys()];
      notices.push(
        `${positions.length} admission event(s) (positions ${positions[0]}…${positions[positions.length - 1]}) are not integrated by any tree head yet: the sequencer had not caught up when the stream was read, or the newest tree heads are missing`,
      );
    }
    if (this.uncheckedHeads > 0)
      notices.push(
        `${this.uncheckedHeads} more tree head(s) after leaf ${this.broken!.leafIndex} could not be checked against a recomputed root (see 'root-unverifiable')`,
      );
    return {
      treeSize: this.integrated,
      rootHash: this.broken ? null : toHex(this.tree.root()),
      notices,
    };
  }

  /**
   * A head that does not start where the previous one ended. Ahead: a tree head is missing, and since
   * the sequencer integrates in event order, its leaves are the oldest pending admissions — taking them
   * keeps the later roots checkable. Behind: leaves would be integrated twice; the tree cannot follow.
   */
  private async realign(start: number, head: TreeHeadFacts, position: number): Promise<Finding> {
    const previous = this.integrated;
    if (start < previous) {
      this.breakAt(start, `the tree head at position ${position} re-integrates leaves from ${start}`);
      this.integrated = start;
      return {
        check: 'first-leaf-index',
        message: `first_leaf_index ${start} is behind the ${previous} leaves the earlier tree heads integrate: a tree head was duplicated or reordered`,
      };
    }
    const missing = start - previous;
    const before = head.leafPositions[0] ?? position;
    const taken: [number, Uint8Array | null][] = [];
    for (const entry of this.pending) {
      if (taken.length === missing || entry[0] >= before) break;
      taken.push(entry);
    }
    for (const [i, [leafPosition, hash]] of taken.entries()) {
      this.pending.delete(leafPosition);
      this.lastIntegratedPosition = Math.max(this.lastIntegratedPosition, leafPosition);
      await this.integrate(previous + i, leafPosition, hash);
    }
    if (taken.length < missing) {
      this.breakAt(this.integrated, `leaves ${this.integrated}…${start - 1} are in no tree head read`);
      this.integrated = start;
    }
    return {
      check: 'first-leaf-index',
      message:
        `first_leaf_index ${start} is ahead of the ${previous} leaves the earlier tree heads integrate: a tree head is missing (dropped, unreadable or reordered)` +
        (taken.length === missing
          ? `; its ${missing} leaves are taken to be the oldest pending admissions, as the sequencer integrates in event order`
          : `; only ${taken.length} pending admission(s) can fill the gap of ${missing}`),
    };
  }

  /**
   * Appends a leaf to the tree; what the onLeaf hook returns, to be awaited when it is a promise. Not
   * an async function: a million leaves would each make a promise the audit then waits a turn for.
   */
  private integrate(leafIndex: number, position: number, hash: Uint8Array | null): void | Promise<void> {
    this.integrated++;
    if (hash === null) {
      this.breakAt(leafIndex, `leaf ${leafIndex} (position ${position}) cannot be read`);
      return;
    }
    if (this.broken) return;
    this.tree.append(hash);
    return this.hooks.onLeaf?.(leafIndex, hash);
  }

  private breakAt(leafIndex: number, reason: string): void {
    this.broken ??= { leafIndex, reason };
  }

  private describeMissing(leafPosition: number, headPosition: number): string {
    if (leafPosition >= headPosition)
      return `names position ${leafPosition}, which is not before the tree head (position ${headPosition})`;
    if (leafPosition <= this.lastIntegratedPosition)
      return `names position ${leafPosition}, at or before the last integrated admission (position ${this.lastIntegratedPosition}): a leaf integrated twice, or out of order`;
    return `names position ${leafPosition}, where no admission event was read: the event was dropped, or is not an admission`;
  }
}
