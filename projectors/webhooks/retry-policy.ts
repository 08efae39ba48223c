/**
 * When a delivery is tried again. Pure: the caller passes every instant, nothing here reads a clock.
 *
 * Schedule: the spec's backoff "5 s, 30 s, 2 min, 10 min, 30 min" read as the waits before each
 * retry, so the first attempt plus five retries, 6 attempts in all. Attempt 1 as soon as the event is
 * queued; after failed attempt k (k = 1..5) the next is due BACKOFF_MS[k-1] later: +5 s, +30 s,
 * +2 min, +10 min, +30 min. After the 6th failure the delivery is given up (marked failed). Only an
 * HTTP 200 answer is a success. A 429 or 503 answer with Retry-After (delta-seconds or HTTP-date)
 * moves the next attempt to max(backoff, Retry-After), but never later than RETRY_AFTER_CAP_MS
 * (30 min) after the failure.
 *
 * The delivery log keeps only the attempts made, so a delivery left pending by a release that gave up
 * after 5 attempts simply continues on this schedule; one it already marked failed stays failed.
 */

/** Wait after failed attempt k (index k-1) before attempt k+1: 5 s, 30 s, 2 min, 10 min, 30 min. */
export const BACKOFF_MS: readonly number[] = Object.freeze([5_000, 30_000, 120_000, 600_000, 1_800_000]);

/** Attempts per delivery, the first included: one more than the retries. */
export const MAX_ATTEMPTS = BACKOFF_MS.length + 1;

/** BACKOFF_MS in seconds, as the delivery log shows it (one shared array). */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = Object.freeze(BACKOFF_MS.map((ms) => ms / 1000));

/** The latest a receiver's Retry-After can push the next attempt: 30 min after the failure. */
export const RETRY_AFTER_CAP_MS = 30 * 60_000;

/** Answers whose Retry-After is honoured. */
const RETRY_AFTER_STATUSES: readonly number[] = [429, 503];

export type NextAttempt = { kind: 'retry'; at: Date } | { kind: 'give-up' };

export interface FailedAttempt {
  /** 1-based number of the attempt that just failed. */
  attempt: number;
  failedAt: Date;
  /** The receiver's status, or null when there was none (timeout, connection error). */
  status: number | null;
  /** Parsed Retry-After (see `parseRetryAfter`), or null. */
  retryAfterMs: number | null;
}

export function isSuccess(status: number | null): boolean {
  return status === 200;
}

export function nextAttempt(failed: FailedAttempt): NextAttempt {
  const { attempt, failedAt, status, retryAfterMs } = failed;
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > MAX_ATTEMPTS) {
    throw new RangeError(`attempt must be an integer from 1 to ${MAX_ATTEMPTS}, not ${attempt}`);
  }
  if (isSuccess(status)) throw new RangeError('a 200 answer is a success, not a failed attempt');
  if (attempt === MAX_ATTEMPTS) return { kind: 'give-up' };
  let delay = BACKOFF_MS[attempt - 1]!;
  if (status !== null && RETRY_AFTER_STATUSES.includes(status) && retryAfterMs !== null) {
    delay = Math.min(Math.max(delay, retryAfterMs), RETRY_AFTER_CAP_MS);
  }
  return { kind: 'retry', at: new Date(failedAt.getTime() + delay) };
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(?<month>${MONTHS.join('|')})`;
const TIME = '(?<h>\\d{2}):(?<m>\\d{2}):(?<s>\\d{2})';
/** RFC 9110 §5.6.7 HTTP-date: IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients accept. */
const HTTP_DATES = [
  new RegExp(`^${DAY}, (?<day>\\d{2}) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  new RegExp(`^${LONG_DAY}, (?<day>\\d{2})-${MONTH}-(?<year>\\d{2}) ${TIME} GMT$`),
  new RegExp(`^${DAY} ${MONTH} (?<day>[ \\d]\\d) ${TIME} (?<year>\\d{4})$`),
];

/**
 * Retry-After as milliseconds from `now`: delta-seconds, or an HTTP-date (a past date is 0).
 * Null when absent or unparseable.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, Number.MAX_SAFE_INTEGER);
  const at = parseHttpDate(text, now);
  return at === null ? null : Math.max(0, at - now.getTime());
}

function parseHttpDate(text: string, now: Date): number | null {
  const groups = HTTP_DATES.map((pattern) => pattern.exec(text)?.groups).find(Boolean);
  if (!groups) return null;
  const fields = [
    groups.year!.length === 2 ? twoDigitYear(Number(groups.year), now) : Number(groups.year),
    MONTHS.indexOf(groups.month!),
    Number(groups.day),
    Number(groups.h),
    Number(groups.m),
    Number(groups.s),
  ] as const;
  const date = new Date(Date.UTC(...fields));
  const read = [
    date.getUTCFullYear(),
    date.getUTCMonth(),
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  ];
  // Date.UTC rolls 31 Feb or 25:00:00 over silently; such a date is malformed.
  return read.every((value, i) => value === fields[i]) ? date.getTime() : null;
}

/** RFC 9110: a two-digit year more than 50 years ahead means the most recent past year with those digits. */
function twoDigitYear(yy: number, now: Date): number {
  const current = now.getUTCFullYear();
  const year = current - (current % 100) + yy;
  return year > current + 50 ? year - 100 : year;
}
