import { countFindings, detectProtectedData, type Finding, redact } from '.';
import { withoutOverlaps } from './finding';

const at = (kind: string, start: number, end: number, category: Finding['category'] = 'secret'): Finding => ({
  kind,
  category,
  start,
  end,
});

describe('G3 findings', () => {
  it.each([
    ['nothing', [], []],
    ['disjoint findings, sorted', [at('b', 5, 7), at('a', 0, 2)], [at('a', 0, 2), at('b', 5, 7)]],
    ['touching findings, both kept', [at('a', 0, 2), at('b', 2, 4)], [at('a', 0, 2), at('b', 2, 4)]],
    ['an overlap: the earlier start wins', [at('b', 1, 9), at('a', 0, 3)], [at('a', 0, 3)]],
    ['the same start: the longer wins', [at('short', 0, 3), at('long', 0, 8)], [at('long', 0, 8)]],
    [
      'the same span: the one listed first wins',
      [at('first', 0, 3), at('second', 0, 3)],
      [at('first', 0, 3)],
    ],
    ['one inside another', [at('outer', 0, 10), at('inner', 2, 4)], [at('outer', 0, 10)]],
  ])('withoutOverlaps: %s', (_name, input, expected) => {
    expect(withoutOverlaps(input)).toEqual(expected);
  });

  it.each([
    ['no findings', 'plain text', [], 'plain text'],
    [
      'one finding',
      'key: abc123 ok',
      [at('password_assignment', 5, 11)],
      'key: [REDACTED:password_assignment] ok',
    ],
    [
      'two findings, given out of order',
      'a@b.io and 4111 1111 1111 1111',
      [at('card_number', 11, 30, 'personal'), at('email', 0, 6, 'personal')],
      '[REDACTED:email] and [REDACTED:card_number]',
    ],
    ['overlapping findings merged', 'abcdefgh', [at('x', 0, 4), at('y', 2, 6)], '[REDACTED:x]efgh'],
    ['a finding past the end of the text', 'abc', [at('x', 1, 99)], 'a[REDACTED:x]'],
  ])('redact: %s', (_name, text, findings, expected) => {
    expect(redact(text, findings)).toBe(expected);
  });

  it('counts findings by category and by kind', () => {
    expect(
      countFindings([at('jwt', 0, 1), at('email', 2, 3, 'personal'), at('email', 4, 5, 'personal')]),
    ).toEqual({ secret: 1, personal: 2, kinds: { secret: { jwt: 1 }, personal: { email: 2 } } });
  });

  it('detects secrets and personal data together, in text order, a secret winning a tie', () => {
    const text =
      'mail ada@example.com, db postgres://ada:pa55word@db.example.com/x, card 4111 1111 1111 1111.';
    const findings = detectProtectedData(text);
    expect(findings.map((f) => [f.kind, f.category, text.slice(f.start, f.end)])).toEqual([
      ['email', 'personal', 'ada@example.com'],
      // `pa55word@db.example.com` also looks like an address; the password covers its start.
      ['url_password', 'secret', 'ada:pa55word'],
      ['card_number', 'personal', '4111 1111 1111 1111'],
    ]);
    expect(redact(text, findings)).toBe(
      'mail [REDACTED:email], db postgres://[REDACTED:url_password]@db.example.com/x, card [REDACTED:card_number].',
    );
  });

  it('a finding carries a kind and offsets only, never the text it found', () => {
    const marker = 'hunter2-UNIQUE-MARKER-42';
    const findings = detectProtectedData(`password=${marker}`);
    expect(findings).toHaveLength(1);
    expect(JSON.stringify(findings)).not.toContain('UNIQUE-MARKER');
  });
});
