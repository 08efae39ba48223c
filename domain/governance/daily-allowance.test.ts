/**
 * The daily leaf allowance's bookkeeping: leaves count per UTC day, and a tenant's day never goes
 * backwards, so a clock stepped back across midnight gives no day a second allowance.
 */
import fc from 'fast-check';
import {
  countLeaf,
  type DailyTally,
  leavesCountedToday,
  secondsUntilAllowanceResets,
} from './daily-allowance';

const at = (iso: string) => new Date(iso);
const NONE: DailyTally = { day: '', leaves_on_day: 0 };

/** Admits leaves one by one at `times` as a decision would: while fewer than `allowance` count today. */
function admit(times: readonly string[], allowance: number, tally: DailyTally = NONE) {
  const admitted: string[] = [];
  for (const time of times) {
    if (leavesCountedToday(tally, at(time)) >= allowance) continue;
    tally = countLeaf(tally, time);
    admitted.push(time);
  }
  return { tally, admitted };
}

describe('the daily leaf allowance', () => {
  it('given no leaf yet (null or empty day), when one is admitted, then it is the first of its UTC day', () => {
    expect(countLeaf(NONE, '2024-03-01T10:00:00.000Z')).toEqual({ day: '2024-03-01', leaves_on_day: 1 });
    expect(countLeaf({ day: null, leaves_on_day: 0 }, '2024-03-01T10:00:00.000Z')).toEqual({
      day: '2024-03-01',
      leaves_on_day: 1,
    });
    expect(leavesCountedToday({ day: null, leaves_on_day: 0 }, at('2024-03-01T10:00:00Z'))).toBe(0);
  });

  it('given leaves on day D, when the clock moves past midnight, then day D+1 starts a fresh count and the refusal waits for the next midnight', () => {
    const tally = { day: '2024-03-01', leaves_on_day: 3 };
    expect(leavesCountedToday(tally, at('2024-03-01T23:59:59Z'))).toBe(3);
    expect(leavesCountedToday(tally, at('2024-03-02T00:00:00Z'))).toBe(0);
    expect(countLeaf(tally, '2024-03-02T00:00:01.000Z')).toEqual({ day: '2024-03-02', leaves_on_day: 1 });
    expect(secondsUntilAllowanceResets(tally, at('2024-03-01T23:58:00Z'))).toBe(120);
  });

  it('given 2 leaves counted on D+1 at 00:05, when the clock steps back to 23:58 on D, then the count is still D+1’s, a leaf then counts towards D+1, and the allowance resets at the end of D+1', () => {
    const tally = { day: '2024-03-02', leaves_on_day: 2 };
    const behind = at('2024-03-01T23:58:00Z');
    expect(leavesCountedToday(tally, behind)).toBe(2);
    expect(countLeaf(tally, behind)).toEqual({ day: '2024-03-02', leaves_on_day: 3 });
    // From 23:58 on D to 00:00 after D+1: 2 minutes and a day.
    expect(secondsUntilAllowanceResets(tally, behind)).toBe(120 + 86_400);
  });

  it('given an allowance of 3 used up on D and 2 used on D+1, when the clock steps back to D and then catches up, then 1 more leaf is admitted in all (not a second allowance for either day)', () => {
    const { admitted } = admit(
      [
        ...Array(4).fill('2024-03-01T23:50:00.000Z'),
        ...Array(2).fill('2024-03-02T00:05:00.000Z'),
        ...Array(4).fill('2024-03-01T23:58:00.000Z'), // stepped back to D
        ...Array(4).fill('2024-03-02T00:06:00.000Z'), // caught up
      ],
      3,
    );
    expect(admitted).toEqual([
      ...Array(3).fill('2024-03-01T23:50:00.000Z'),
      ...Array(2).fill('2024-03-02T00:05:00.000Z'),
      '2024-03-01T23:58:00.000Z',
    ]);
  });

  it('given any clock that jumps back and forth, then no day (the later of a leaf’s own and every earlier leaf’s) counts more leaves than the allowance, and a clock that only moves forward counts by UTC day', () => {
    const instant = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2024, 0, 6) });
    fc.assert(
      fc.property(
        fc.array(instant, { maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        (times, allowance) => {
          const isoTimes = times.map((time) => new Date(time).toISOString());
          const { admitted } = admit(isoTimes, allowance);
          const perDay = new Map<string, number>();
          let latest = '';
          for (const time of admitted) {
            latest = time.slice(0, 10) > latest ? time.slice(0, 10) : latest;
            perDay.set(latest, (perDay.get(latest) ?? 0) + 1);
          }
          for (const count of perDay.values()) expect(count).toBeLessThanOrEqual(allowance);

          const forward = [...isoTimes].sort();
          const byUtcDay = new Map<string, number>();
          for (const time of admit(forward, allowance).admitted)
            byUtcDay.set(time.slice(0, 10), (byUtcDay.get(time.slice(0, 10)) ?? 0) + 1);
          const days = new Set(forward.map((time) => time.slice(0, 10)));
          for (const day of days)
            expect(byUtcDay.get(day)).toBe(
              Math.min(allowance, forward.filter((t) => t.startsWith(day)).length),
            );
        },
      ),
    );
  });
});
