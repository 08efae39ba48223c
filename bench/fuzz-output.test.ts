import { plainFuzzLine } from './fuzz-output';

describe('plainFuzzLine', () => {
  it('rewrites the closing banner so that no pytest summary line is left', () => {
    const line = plainFuzzLine(
      '============================= 2 warnings in 19.55s =============================',
    );
    expect(line).toBe('schemathesis -- 2 warnings (after 19.55 s) --');
    expect(line).not.toMatch(/^=+ .* in [\d.]+s =+$/);
  });

  it('rewrites section banners too', () => {
    expect(
      plainFuzzLine('=================================== SUMMARY ===================================='),
    ).toBe('schemathesis -- SUMMARY --');
  });

  it('leaves every other line as it is', () => {
    for (const line of ['  2238 generated, 2238 passed, 28 skipped', '', 'Seed: 8', '== not a banner'])
      expect(plainFuzzLine(line)).toBe(line);
  });
});
