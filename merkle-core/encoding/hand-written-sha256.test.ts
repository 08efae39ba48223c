/**
 * The hand-written SHA-256 against the NIST SHAVS byte-oriented vectors (every short and long message,
 * kept in merkle-core/testdata/nist-shavs), the FIPS 180-4 examples, and node:crypto on random input,
 * through each of its three entry points: whole messages, a one-byte prefix, and RFC 9162 node hashing.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { fromHex, toHex } from './bytes';
import { handWrittenSha256, hashChildrenInto, sha256PrefixedInto } from './hand-written-sha256';

interface NistVector {
  bits: number;
  message: Uint8Array;
  digest: string;
}

/** Reads a SHAVS .rsp file: `Len` in bits, `Msg` in hex (`00` standing for the empty message), `MD`. */
function readRsp(name: string): NistVector[] {
  const text = readFileSync(path.resolve(__dirname, '../testdata/nist-shavs', name), 'latin1');
  const vectors: NistVector[] = [];
  let bits = -1;
  let message: Uint8Array = new Uint8Array(0);
  for (const line of text.split(/\r?\n/)) {
    const [key, value = ''] = line.split(' = ');
    if (key === 'Len') bits = Number(value);
    else if (key === 'Msg') message = fromHex(value).subarray(0, bits / 8);
    else if (key === 'MD') vectors.push({ bits, message, digest: value });
  }
  return vectors;
}

const SHORT = readRsp('SHA256ShortMsg.rsp');
const LONG = readRsp('SHA256LongMsg.rsp');
const nodeSha256 = (...parts: Uint8Array[]): string => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

describe('the NIST SHAVS vector files', () => {
  it('hold every byte-oriented short (0 to 512 bits) and long message', () => {
    expect(SHORT.map((v) => v.bits)).toEqual(Array.from({ length: 65 }, (_, i) => 8 * i));
    expect(LONG).toHaveLength(64);
    for (const v of [...SHORT, ...LONG]) {
      expect(v.message.length * 8).toBe(v.bits);
      expect(v.digest).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});

describe.each([
  ['SHA256ShortMsg', SHORT],
  ['SHA256LongMsg', LONG],
])('hand-written SHA-256 on %s', (_name, vectors) => {
  it.each(vectors.map((v) => [v.bits, v] as const))('Len = %i: handWrittenSha256(Msg) = MD', (_bits, v) => {
    expect(toHex(handWrittenSha256(v.message))).toBe(v.digest);
  });

  it('gives each MD when the first byte is passed as the prefix, written at an offset', () => {
    for (const v of vectors.filter((x) => x.bits > 0)) {
      const out = new Uint8Array(40).fill(0xee);
      sha256PrefixedInto(v.message[0]!, v.message.subarray(1), out, 5);
      expect(toHex(out.subarray(5, 37))).toBe(v.digest);
      expect([...out.subarray(0, 5), ...out.subarray(37)]).toEqual(new Array(8).fill(0xee));
    }
  });
});

describe('hand-written SHA-256 on the FIPS 180-4 examples', () => {
  const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

  it.each([
    ['"abc"', ascii('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'the 448-bit message',
      ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'),
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
    [
      "one million 'a'",
      new Uint8Array(1_000_000).fill(0x61),
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    ],
  ])('%s', (_name, message, digest) => {
    expect(toHex(handWrittenSha256(message))).toBe(digest);
  });
});

describe('hand-written SHA-256 against node:crypto', () => {
  it('given any message of 0 to 300 bytes and any prefix, then the same digest', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: -1, max: 255 }), (data, prefix) => {
        const out = new Uint8Array(32);
        sha256PrefixedInto(prefix, data, out, 0);
        const expected = prefix < 0 ? nodeSha256(data) : nodeSha256(Uint8Array.of(prefix), data);
        expect(toHex(out)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('given two children anywhere in their buffers, then the RFC 9162 node hash SHA-256(0x01 ‖ l ‖ r)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 96 }),
        fc.uint8Array({ minLength: 32, maxLength: 96 }),
        fc.nat(),
        fc.nat(),
        fc.nat(40),
        (left, right, l, r, o) => {
          const leftOffset = l % (left.length - 31);
          const rightOffset = r % (right.length - 31);
          const out = new Uint8Array(o + 32);
          hashChildrenInto(left, leftOffset, right, rightOffset, out, o);
          const expected = nodeSha256(
            Uint8Array.of(0x01),
            left.subarray(leftOffset, leftOffset + 32),
            right.subarray(rightOffset, rightOffset + 32),
          );
          expect(toHex(out.subarray(o))).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
