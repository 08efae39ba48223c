/**
 * The fast canonical JSON writer gives, for every value, exactly what the `canonicalize` package (the
 * RFC 8785 reference the service has always hashed with) gives, or throws what it throws: a leaf hash
 * never changes with the writer.
 */
import reference from 'canonicalize';
import fc from 'fast-check';
import { fastCanonicalize } from './fast-canonical-json';

/** The reference's outcome: its text, or the error it throws. */
function outcome(write: (value: unknown) => string | undefined, value: unknown) {
  try {
    return { text: write(value) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const keys = fc.oneof(
  fc.string(),
  fc.constantFrom(
    'a',
    'b',
    'B',
    '_',
    'é',
    '\u{1F600}',
    '\uFFFF',
    '10',
    '9',
    '0',
    '01',
    '__proto__',
    'toJSON',
  ),
);

describe('canonical JSON', () => {
  it('given any JSON value (as JSON.parse returns them), then the same text as the reference', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(fastCanonicalize(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('given objects with awkward keys (integer-like, __proto__, non-ASCII, astral, toJSON), then the same text as the reference', () => {
    const awkward = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(
          fc.string(),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.boolean(),
          fc.constant(null),
        ),
        fc.array(tie('value')),
        fc.dictionary(keys, tie('value')),
      ),
    })).value;
    fc.assert(
      fc.property(awkward, (value) => {
        // Through JSON.parse, as stored events are read: "__proto__" is then an own member.
        const parsed = JSON.parse(JSON.stringify(value));
        expect(fastCanonicalize(parsed)).toBe(reference(parsed));
      }),
      { numRuns: 2000 },
    );
  });

  it('given values that are not plain JSON data, then what the reference writes or throws', () => {
    const sparse: unknown[] = [1];
    sparse[2] = 3; // index 1 is a hole
    const cases: unknown[] = [
      undefined,
      Symbol('s'),
      () => 1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      { nested: [Number.NEGATIVE_INFINITY] },
      10n,
      -0,
      new Date('2024-02-29T12:00:00.000Z'),
      { when: new Date(0), toJSONLike: { toJSON: () => ({ b: 1, a: 2 }) } },
      sparse,
      [undefined, Symbol('x'), () => 2],
      { a: undefined, b: Symbol('y'), c: () => 3, d: 1 },
      Object.assign(Object.create(null), { z: 1, a: 2 }),
      new Map([['a', 1]]),
      new String('ab'),
      { 1: 'one', 10: 'ten', 2: 'two', b: 'b', a: 'a' },
      JSON.parse('{"__proto__":{"x":1},"a":2}'),
      '\ud800 lone surrogate',
    ];
    for (const value of cases) expect(outcome(fastCanonicalize, value)).toEqual(outcome(reference, value));
  });
});
