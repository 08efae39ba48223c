/**
 * Canonical JSON straight from JSON text: exactly canonicalJson(JSON.parse(text)) whenever it answers,
 * it answers for everything JSON.stringify writes from plain data, and it gives up (null) on spellings
 * whose canonical form would differ.
 */
import fc from 'fast-check';
import { canonicalJson } from '../merkle-core';
import { canonicalJsonOfText } from './canonical-text';

const ofText = (text: string) => canonicalJsonOfText(text, 0, text.length);

/** Strings JSON.stringify writes as they are: printable, no quote or backslash. */
const plainString = fc.string({ unit: fc.constantFrom(...Array.from('abcXYZ09 _-:/+=.é€😀')), maxLength: 8 });
const plainKey = fc.string({ unit: fc.constantFrom(...'abcXYZ_-é'.split('')), maxLength: 6 });
const plainJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    plainString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(plainKey, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('canonical JSON from text', () => {
  it('given plain data as JSON.stringify writes it (members in any order), then its canonical JSON', () => {
    fc.assert(
      fc.property(plainJson, (value) => {
        const text = JSON.stringify(value);
        expect(ofText(text)).toBe(canonicalJson(JSON.parse(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it('given any JSON value as JSON.stringify writes it, then its canonical JSON or null', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const canonical = ofText(text);
        if (canonical !== null) expect(canonical).toBe(canonicalJson(JSON.parse(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it('given such a text with one character replaced, inserted or deleted, when it answers, then with the canonical JSON of what JSON.parse reads', () => {
    const edit = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom('replace', 'insert', 'delete'),
      char: fc.constantFrom(...'"\\{}[],: 0-.eEtfnu1b'.split('')),
    });
    fc.assert(
      fc.property(plainJson, edit, (value, { at, kind, char }) => {
        const original = JSON.stringify({ z: value, a: [1, { y: 'x', b: null }] });
        const i = at % original.length;
        const text =
          original.slice(0, i) +
          (kind === 'delete' ? '' : char) +
          original.slice(kind === 'insert' ? i : i + 1);
        const canonical = ofText(text);
        if (canonical !== null) expect(canonical).toBe(canonicalJson(JSON.parse(text)));
      }),
      { numRuns: 4000 },
    );
  });

  it('given objects of one kind one after another, keys written in a few orders and sometimes one repeated (as a store writes record after record), then each one gets its own canonical JSON, and a repeated key null', () => {
    const keys = ['type', 'version', 'artifact_hash', 'payload_uri', 'log_binding', 'z', 'a'];
    const permutation = fc.shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length });
    const record = fc.record({
      // Mostly the orders of the pool, as records of one kind are written alike.
      order: fc.oneof(fc.nat({ max: 1 }), permutation),
      inner: fc.shuffledSubarray(['log_url', 'log_id'], { minLength: 2 }),
      // One key written again in place of another: as many members, one of them repeated.
      repeat: fc.option(
        fc.record({ at: fc.nat({ max: keys.length - 1 }), of: fc.nat({ max: keys.length - 1 }) }),
      ),
    });
    fc.assert(
      fc.property(
        fc.tuple(permutation, permutation),
        fc.array(record, { minLength: 2, maxLength: 12 }),
        (pool, records) => {
          for (const { order, inner, repeat } of records) {
            const base = typeof order === 'number' ? pool[order]! : order;
            const written =
              repeat === null || repeat.at === repeat.of
                ? base
                : base.map((key, i) => (i === repeat.at ? base[repeat.of]! : key));
            const members = written.map(
              (key, i) => `"${key}":${i % 2 ? `{${inner.map((k) => `"${k}":"${k}${i}"`).join(',')}}` : i}`,
            );
            const text = `{${members.join(',')}}`;
            if (written !== base) expect(ofText(text)).toBeNull();
            else expect(ofText(text)).toBe(canonicalJson(JSON.parse(text)));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('given members out of order at every depth, then they are ordered by UTF-16 code units, as RFC 8785 orders them (the empty key first)', () => {
    const text = '{"b":[{"z":1,"a":true}],"a":{"é":"x","e":"y","E":null},"😀":0,"\uFFFF":1,"":2}';
    expect(ofText(text)).toBe(canonicalJson(JSON.parse(text)));
    expect(ofText(text)).toBe(
      '{"":2,"a":{"E":null,"e":"y","é":"x"},"b":[{"a":true,"z":1}],"😀":0,"\uFFFF":1}',
    );
  });

  it('given spellings whose canonical form differs (escapes, whitespace, numbers JCS writes otherwise, repeated or engine-ordered keys, control characters, lone surrogates), then null', () => {
    for (const text of [
      '{"a":"\\u0041"}',
      '{"\\u0061":1}',
      '{"a":"x\\"y"}',
      '{"a": 1}',
      '{"a":1.0}',
      '{"a":1e3}',
      '{"a":-0}',
      '{"a":12345678901234567890}',
      '{"a":1,"a":2}',
      '{"b":1,"a":2,"b":3}',
      '{"1":1}',
      '{"__proto__":1}',
      '{"a":"tab\there"}',
      '{"a":"\uD800"}',
    ])
      expect(ofText(text)).toBeNull();
  });
});
