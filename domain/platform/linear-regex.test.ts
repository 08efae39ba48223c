import fc from 'fast-check';
import { compileLinearRegex, type LinearRegex } from './linear-regex';

function compiled(source: string): LinearRegex {
  const result = compileLinearRegex(source);
  if (!result.ok) throw new Error(`${source}: ${result.problem}`);
  return result.regex;
}

describe('linear-time regular expressions for must_not rules', () => {
  it.each([
    ['wire transfer', 'Please make a WIRE TRANSFER today', true],
    ['wire\\s+transfer', 'wire \t transfer', true],
    ['\\bsell\\b', 'we sell stock', true],
    ['\\bsell\\b', 'the seller', false],
    ['\\Bell', 'seller', true],
    ['^hello', 'hello world', true],
    ['^hello', 'say hello', false],
    ['world$', 'hello world', true],
    ['world$', 'world peace', false],
    ['(buy|sell) (stock|bonds)', 'I want to sell bonds', true],
    ['(buy|sell) (stock|bonds)', 'I want to sell cars', false],
    ['colou?r', 'COLOR', true],
    ['a{3}', 'caaab', true],
    ['a{3}', 'caab', false],
    ['a{2,}b', 'xaaaab', true],
    ['x{1,2}y', 'xxxy', true],
    ['[0-9]{4}-[0-9]{2}', 'on 2024-01 we', true],
    ['[A-Z]{3}', 'abc', true],
    ['[^a-z ]', 'only lower case', false],
    ['[^a-z ]', 'with digit 1', true],
    ['\\d+\\.\\d+', 'version 1.25', true],
    ['\\w+@\\w+', 'mail a@b', true],
    ['a.c', 'a\nc', false],
    ['a.c', 'abc', true],
    ['(?:ab)+c', 'abababc', true],
    ['(?<name>ab)c', 'abc', true],
    ['a*', '', true],
    ['x*?y', 'xxy', true],
    ['\\$\\d+', 'costs $40', true],
    ['\\x41\\u0042', 'ab', true],
    ['[\\d.]+%', 'rate 4.5%', true],
    ['[a-c-]', 'x-y', true],
    ['(a|)b', 'b', true],
    ['ß', 'STRASSE', false],
  ])('/%s/i on %j is %s, as JavaScript says', (source, text, expected) => {
    expect(new RegExp(source, 'i').test(text)).toBe(expected);
    expect(compiled(source).test(text)).toBe(expected);
  });

  it.each([
    ['(a', 'a group is not closed with ")"'],
    ['a)', 'unmatched ")" at position 2'],
    ['[abc', 'a character class is not closed with "]"'],
    ['(a)\\1', 'back-references are not supported'],
    ['(?<n>a)\\k<n>', 'back-references are not supported'],
    ['(?=a)b', 'look-ahead and look-behind are not supported'],
    ['(?<!a)b', 'look-ahead and look-behind are not supported'],
    ['*a', 'nothing to repeat at position 1'],
    ['a**', 'nothing to repeat at position 3'],
    ['a{3,1}', 'the quantifier {3,1} has its numbers out of order'],
    ['a{2000}', 'a quantifier may repeat at most 1000 times'],
    ['(a{1000}){10}', 'the pattern is too large once its repetitions are spelled out'],
    ['\\q', '\\q is not a supported escape'],
    ['[z-a]', 'a range in a character class is out of order'],
    ['\\', 'the pattern ends with a lone "\\"'],
    ['^*', 'an anchor or word boundary cannot be repeated'],
  ])('refuses /%s/ because %s', (source, problem) => {
    expect(compileLinearRegex(source)).toEqual({ ok: false, problem });
  });

  it('matches what JavaScript matches, on generated patterns and texts', () => {
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\w', '\\s', ' ', '\\b', '^', '$');
    const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        atom,
        fc.tuple(tie('node'), tie('node')).map(([a, b]) => a + b),
        fc.tuple(tie('node'), tie('node')).map(([a, b]) => `(?:${a}|${b})`),
        fc
          .tuple(tie('node'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '{2,}'))
          .filter(([node]) => !/[\^$]|\\b/.test(node))
          .map(([node, quantifier]) => `(?:${node})${quantifier}`),
      ),
    })).node;
    const text = fc.stringMatching(/^[abAB \n]{0,12}$/);
    fc.assert(
      fc.property(pattern, text, (source, input) => {
        expect(compiled(source).test(input)).toBe(new RegExp(source, 'i').test(input));
      }),
      { numRuns: 3000 },
    );
  });

  it('stays linear where a backtracking engine would not', () => {
    const regex = compiled('(a+)+$');
    const text = `${'a'.repeat(50_000)}!`;
    const started = process.hrtime.bigint();
    expect(regex.test(text)).toBe(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1_000);
  });
});
