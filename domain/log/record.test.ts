/** Records are hashed as the RFC 8785 canonical JSON of the record, so key order does not matter. */
import { createHash } from 'node:crypto';
import { canonicalJson, toHex } from '../../merkle-core';
import { leafHashOfRecord } from './record';

describe('leafHashOfRecord', () => {
  it('hashes SHA-256(0x00 ‖ canonical JSON)', () => {
    const record = { b: [1, 2.5, 'x'], a: { d: null, c: true } };
    expect(canonicalJson(record)).toBe('{"a":{"c":true,"d":null},"b":[1,2.5,"x"]}');
    const expected = createHash('sha256')
      .update(Buffer.from([0]))
      .update(canonicalJson(record))
      .digest('hex');
    expect(toHex(leafHashOfRecord(record))).toBe(expected);
    expect(toHex(leafHashOfRecord({ a: { c: true, d: null }, b: [1, 2.5, 'x'] }))).toBe(expected);
  });

  it('hashes long records natively and identically', () => {
    const record = { text: 'x'.repeat(5000) };
    const expected = createHash('sha256')
      .update(Buffer.from([0]))
      .update(canonicalJson(record))
      .digest('hex');
    expect(toHex(leafHashOfRecord(record))).toBe(expected);
  });

  it('refuses values without a JSON representation', () => {
    expect(() => leafHashOfRecord(undefined)).toThrow(TypeError);
  });
});
