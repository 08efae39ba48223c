/**
 * MEASURED LOW-LEVEL CODE: SHA-256 (FIPS 180-4) written by hand in plain JavaScript, for Merkle tree
 * hashing only (tree/hash.ts and tiles/tile-log.ts).
 *
 * Why it exists: for the 65-byte messages of RFC 9162 interior nodes, the per-call cost of crossing
 * into C++ dominates: measured on Node 20, `crypto.hash` does ~1.0 M hashes/s and `createHash`
 * ~0.75 M/s, while this code, which hashes straight from and into tile buffers without allocating,
 * does ~1.7 M/s. Native hashing still wins for long inputs, so `tree/hash.ts` switches to node:crypto
 * above a size threshold. Portable (no Node APIs) and synchronous; checked against the NIST SHAVS
 * vectors in hand-written-sha256.test.ts.
 *
 * Do not copy this pattern elsewhere: everywhere else hash with node:crypto (or WebCrypto). It pays
 * only where hashing short messages is nearly all the work, as in building the tree.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

// Scratch state shared by all calls: hashing is synchronous, so no call can interleave with another.
const W = new Int32Array(64);
const H = new Int32Array(8);
let scratch = new Uint8Array(256);

function resetState(): void {
  H[0] = 0x6a09e667;
  H[1] = 0xbb67ae85 | 0;
  H[2] = 0x3c6ef372;
  H[3] = 0xa54ff53a | 0;
  H[4] = 0x510e527f;
  H[5] = 0x9b05688c | 0;
  H[6] = 0x1f83d9ab;
  H[7] = 0x5be0cd19;
}

/** Runs the compression function over the 16 message words already in W[0..15]. */
function compress(): void {
  for (let i = 16; i < 64; i++) {
    const w15 = W[i - 15]!;
    const w2 = W[i - 2]!;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = H[0]!;
  let b = H[1]!;
  let c = H[2]!;
  let d = H[3]!;
  let e = H[4]!;
  let f = H[5]!;
  let g = H[6]!;
  let h = H[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = (H[0]! + a) | 0;
  H[1] = (H[1]! + b) | 0;
  H[2] = (H[2]! + c) | 0;
  H[3] = (H[3]! + d) | 0;
  H[4] = (H[4]! + e) | 0;
  H[5] = (H[5]! + f) | 0;
  H[6] = (H[6]! + g) | 0;
  H[7] = (H[7]! + h) | 0;
}

function writeDigest(out: Uint8Array, offset: number): void {
  for (let i = 0; i < 8; i++) {
    const v = H[i]!;
    const o = offset + 4 * i;
    out[o] = v >>> 24;
    out[o + 1] = v >>> 16;
    out[o + 2] = v >>> 8;
    out[o + 3] = v;
  }
}

/**
 * Writes SHA-256(prefix ‖ data) into `out` at `outOffset`; `prefix` is one byte, or -1 for none.
 * The message is padded in a reusable scratch buffer, so no allocation happens for small inputs.
 */
export function sha256PrefixedInto(
  prefix: number,
  data: Uint8Array,
  out: Uint8Array,
  outOffset: number,
): void {
  const prefixLength = prefix < 0 ? 0 : 1;
  const messageLength = prefixLength + data.length;
  const paddedLength = Math.ceil((messageLength + 9) / 64) * 64;
  if (scratch.length < paddedLength) scratch = new Uint8Array(paddedLength * 2);
  const m = scratch;
  if (prefixLength) m[0] = prefix;
  m.set(data, prefixLength);
  m[messageLength] = 0x80;
  m.fill(0, messageLength + 1, paddedLength - 8);
  const bitLength = messageLength * 8;
  const high = Math.floor(bitLength / 2 ** 32);
  const low = bitLength >>> 0;
  const end = paddedLength;
  m[end - 8] = high >>> 24;
  m[end - 7] = high >>> 16;
  m[end - 6] = high >>> 8;
  m[end - 5] = high;
  m[end - 4] = low >>> 24;
  m[end - 3] = low >>> 16;
  m[end - 2] = low >>> 8;
  m[end - 1] = low;
  resetState();
  for (let block = 0; block < paddedLength; block += 64) {
    for (let w = 0; w < 16; w++) {
      const o = block + 4 * w;
      W[w] = (m[o]! << 24) | (m[o + 1]! << 16) | (m[o + 2]! << 8) | m[o + 3]!;
    }
    compress();
  }
  writeDigest(out, outOffset);
}

/** SHA-256 of `data`, by the hand-written code (its tests use it; the library uses the two below). */
export function handWrittenSha256(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  sha256PrefixedInto(-1, data, out, 0);
  return out;
}

/**
 * Writes the RFC 9162 interior node hash SHA-256(0x01 ‖ left ‖ right) into `out` at `outOffset`,
 * reading the two 32-byte children in place. The 65-byte message spans exactly two blocks; the words
 * are assembled with a one-byte shift instead of copying the children into a buffer.
 */
export function hashChildrenInto(
  left: Uint8Array,
  leftOffset: number,
  right: Uint8Array,
  rightOffset: number,
  out: Uint8Array,
  outOffset: number,
): void {
  resetState();
  let carry = 0x01;
  for (let w = 0; w < 8; w++) {
    const o = leftOffset + 4 * w;
    W[w] = (carry << 24) | (left[o]! << 16) | (left[o + 1]! << 8) | left[o + 2]!;
    carry = left[o + 3]!;
  }
  for (let w = 0; w < 8; w++) {
    const o = rightOffset + 4 * w;
    W[8 + w] = (carry << 24) | (right[o]! << 16) | (right[o + 1]! << 8) | right[o + 2]!;
    carry = right[o + 3]!;
  }
  compress();
  W[0] = (carry << 24) | 0x800000;
  W.fill(0, 1, 15);
  W[15] = 65 * 8;
  compress();
  writeDigest(out, outOffset);
}
