/**
 * Which log each leaf hash was first seen in, to find a leaf in two logs. An open-addressing table in
 * typed arrays keyed by the hash's first 16 bytes: 18 bytes a slot, at most half full (some 36 MB per
 * million leaves), a few nanoseconds a leaf, and no object per leaf for the collector to trace (a Map
 * of a million strings took three times the memory). 128 bits of SHA-256 do not collide by chance; a
 * forged collision could only make the audit report a leaf in two logs that is not.
 */
const WORDS = 4;

export class LeafLogs {
  private keys = new Uint32Array(1024 * WORDS);
  /** Log code + 1 per slot; 0: empty. */
  private codes = new Uint16Array(1024);
  private count = 0;

  /**
   * Records that `hash` is a leaf of log `code`: the code of the log it was already a leaf of when that
   * is another log, else null (first seen, or seen again in the same log).
   */
  add(hash: Uint8Array, code: number): number | null {
    const w0 = wordAt(hash, 0);
    const w1 = wordAt(hash, 4);
    const w2 = wordAt(hash, 8);
    const w3 = wordAt(hash, 12);
    const mask = this.codes.length - 1;
    for (let slot = w0 & mask; ; slot = (slot + 1) & mask) {
      const stored = this.codes[slot]!;
      if (stored === 0) {
        this.put(slot, w0, w1, w2, w3, code);
        return null;
      }
      const k = slot * WORDS;
      const keys = this.keys;
      if (keys[k] === w0 && keys[k + 1] === w1 && keys[k + 2] === w2 && keys[k + 3] === w3)
        return stored - 1 === code ? null : stored - 1;
    }
  }

  private put(slot: number, w0: number, w1: number, w2: number, w3: number, code: number): void {
    const k = slot * WORDS;
    this.keys[k] = w0;
    this.keys[k + 1] = w1;
    this.keys[k + 2] = w2;
    this.keys[k + 3] = w3;
    this.codes[slot] = code + 1;
    if (++this.count * 2 > this.codes.length) this.grow();
  }

  private grow(): void {
    const { keys, codes } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.codes = new Uint16Array(codes.length * 2);
    this.count = 0;
    const mask = this.codes.length - 1;
    for (let old = 0; old < codes.length; old++) {
      if (codes[old] === 0) continue;
      const k = old * WORDS;
      let slot = keys[k]! & mask;
      while (this.codes[slot] !== 0) slot = (slot + 1) & mask;
      const n = slot * WORDS;
      this.keys.set(keys.subarray(k, k + WORDS), n);
      this.codes[slot] = codes[old]!;
      this.count++;
    }
  }
}

function wordAt(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}
