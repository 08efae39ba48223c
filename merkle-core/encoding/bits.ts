/**
 * Integer helpers that stay exact for every tree size and index up to 2^53 - 1.
 * JavaScript's bitwise operators truncate to 32 bits, so each helper takes a fast path below 2^31
 * and falls back to division above it.
 */

const TWO_POW_31 = 2 ** 31;
const TWO_POW_32 = 2 ** 32;

/** Whether `x` is a usable tree size or index: a non-negative safe integer. */
export function isIndex(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}

/** `x >> k` for non-negative safe integers. */
export function shiftRight(x: number, k: number): number {
  if (x < TWO_POW_31 && k < 31) return x >> k;
  return Math.floor(x / 2 ** k);
}

/** Bit `k` of `x` (0 or 1). */
export function bitAt(x: number, k: number): number {
  return shiftRight(x, k) % 2;
}

/** Number of bits needed to write `x` (0 for 0): Go's bits.Len64. */
export function bitLength(x: number): number {
  if (x < TWO_POW_32) return 32 - Math.clz32(x);
  return 32 + bitLength(Math.floor(x / TWO_POW_32));
}

/** Number of set bits in `x`. */
export function popCount(x: number): number {
  let count = 0;
  let rest = x;
  while (rest > 0) {
    if (rest < TWO_POW_32) {
      let v = rest >>> 0;
      v -= (v >>> 1) & 0x55555555;
      v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
      return count + ((((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24);
    }
    count += rest % 2;
    rest = Math.floor(rest / 2);
  }
  return count;
}

/** Number of trailing zero bits of `x` (x > 0). */
export function trailingZeros(x: number): number {
  if (x % TWO_POW_32 !== 0) {
    const low = (x % TWO_POW_32) >>> 0;
    return 31 - Math.clz32(low & -low);
  }
  return 32 + trailingZeros(Math.floor(x / TWO_POW_32));
}

/** Smallest power of two greater than or equal to `x` (1 for 0). */
export function bitCeil(x: number): number {
  return x <= 1 ? 1 : 2 ** bitLength(x - 1);
}

/** Go's bits.Len64(a ^ b): one more than the highest bit where `a` and `b` differ (0 when equal). */
export function xorBitLength(a: number, b: number): number {
  if (a < TWO_POW_32 && b < TWO_POW_32) return 32 - Math.clz32((a ^ b) >>> 0);
  const highA = Math.floor(a / TWO_POW_32);
  const highB = Math.floor(b / TWO_POW_32);
  if (highA !== highB) return 32 + (32 - Math.clz32((highA ^ highB) >>> 0));
  return 32 - Math.clz32(((a % TWO_POW_32) ^ (b % TWO_POW_32)) >>> 0);
}
