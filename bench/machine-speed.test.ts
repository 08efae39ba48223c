import { describeMachineSpeed, REFERENCE_SHA256_PER_SECOND, sha256PerSecond } from './machine-speed';

describe('machine speed', () => {
  it('when measured, then it is a plausible single-thread SHA-256 rate', () => {
    const rate = sha256PerSecond();
    // Any core of the last decade hashes 65 bytes between ~0.1 and ~20 million times a second.
    expect(rate).toBeGreaterThan(1e5);
    expect(rate).toBeLessThan(2e7);
  });

  it('given the start and end rates, then it states both and their share of the reference', () => {
    expect(describeMachineSpeed({ start: 1_300_000, end: 1_300_000 })).toBe(
      "1.30 M/s at the start, 1.30 M/s at the end (1.00× the targets' machine)",
    );
    expect(
      describeMachineSpeed({ start: REFERENCE_SHA256_PER_SECOND / 2, end: REFERENCE_SHA256_PER_SECOND / 4 }),
    ).toBe("0.65 M/s at the start, 0.33 M/s at the end (0.38× the targets' machine)");
  });
});
