/**
 * The daily leaf allowance's bookkeeping (spec, tiers: leaves/day, reset at 00:00 UTC). Leaves count
 * towards a UTC day, and a tenant's day never goes backwards: a leaf counts towards the later of its
 * own UTC day and the day of the tenant's latest leaf. A clock stepped back across midnight (an NTP
 * correction, a VM restored from a snapshot) would otherwise make the day just left "today" again
 * with a fresh count, and the day after it fresh once more when the clock catches up: two allowances.
 */

/** The UTC day of the tenant's latest leaf and how many leaves count towards it. */
export interface DailyTally {
  /** `YYYY-MM-DD`; empty or null before the first leaf. */
  day: string | null;
  leaves_on_day: number;
}

const DAY_MS = 86_400_000;

/** The UTC calendar day of an instant, `YYYY-MM-DD`. */
export function utcDay(time: Date | string): string {
  return (typeof time === 'string' ? time : time.toISOString()).slice(0, 10);
}

/** The day a leaf admitted at `at` counts towards: its own UTC day, or the tally's when that is later. */
function countingDay(tally: Readonly<DailyTally>, at: Date | string): string {
  const day = utcDay(at);
  const latest = tally.day ?? '';
  // `YYYY-MM-DD` strings order as the days do.
  return day > latest ? day : latest;
}

/** The tally once one more leaf, admitted at `at`, is counted. */
export function countLeaf(
  tally: Readonly<DailyTally>,
  at: Date | string,
): { day: string; leaves_on_day: number } {
  const day = countingDay(tally, at);
  return { day, leaves_on_day: day === tally.day ? tally.leaves_on_day + 1 : 1 };
}

/** The leaves already counted towards the day a leaf admitted at `now` would count towards. */
export function leavesCountedToday(tally: Readonly<DailyTally>, now: Date): number {
  return countingDay(tally, now) === tally.day ? tally.leaves_on_day : 0;
}

/** Whole seconds (at least 1) until the day a leaf admitted at `now` counts towards is over. */
export function secondsUntilAllowanceResets(tally: Readonly<DailyTally>, now: Date): number {
  const endOfDay = Date.parse(`${countingDay(tally, now)}T00:00:00.000Z`) + DAY_MS;
  return Math.max(1, Math.ceil((endOfDay - now.getTime()) / 1000));
}
