/**
 * Leaf hash → leaf index, in memory, for logs whose leaf hashes are already held (TileLog): an
 * open-addressing table of leaf indexes keyed by the hash's first four bytes, each hit confirmed
 * against the full hash the log holds. Four bytes of memory per slot (about 8 MB per million leaves)
 * instead of a string map's hundreds of bytes per entry.
 */
import { bytesEqual } from '../encoding/bytes';

const EMPTY = -1;

export class LeafHashIndex {
  private slots = new Int32Array(1024).fill(EMPTY);
  private count = 0;

  /** `leafHash(i)`: the hash of leaf `i` (`i` < every size added so far). */
  constructor(private readonly leafHash: (index: number) => Uint8Array) {}

  /** How many leaves are indexed (leaves 0 … size - 1). */
  get size(): number {
    return this.count;
  }

  /** Indexes leaves `size` … `upTo - 1` (they must exist in the log). */
  extendTo(upTo: number): void {
    while (this.count < upTo) {
      if ((this.count + 1) * 2 > this.slots.length) this.grow();
      this.place(this.slots, this.count, this.leafHash(this.count));
      this.count++;
    }
  }

  /** The index of the leaf with this 32-byte hash, or null. */
  find(hash: Uint8Array): number | null {
    const mask = this.slots.length - 1;
    for (let slot = prefix(hash) & mask; ; slot = (slot + 1) & mask) {
      const index = this.slots[slot]!;
      if (index === EMPTY) return null;
      if (bytesEqual(this.leafHash(index), hash)) return index;
    }
  }

  private place(slots: Int32Array, index: number, hash: Uint8Array): void {
    const mask = slots.length - 1;
    let slot = prefix(hash) & mask;
    while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    slots[slot] = index;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    for (let index = 0; index < this.count; index++) this.place(slots, index, this.leafHash(index));
    this.slots = slots;
  }
}

/** Leaf hashes are SHA-256 outputs: their first bytes are already uniformly spread. */
function prefix(hash: Uint8Array): number {
  return ((hash[0]! << 24) | (hash[1]! << 16) | (hash[2]! << 8) | hash[3]!) >>> 0;
}
