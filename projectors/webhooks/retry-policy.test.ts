import {
  BACKOFF_MS,
  isSuccess,
  MAX_ATTEMPTS,
  nextAttempt,
  parseRetryAfter,
  RETRY_AFTER_CAP_MS,
  RETRY_SCHEDULE_SECONDS,
} from './retry-policy';

const failedAt = new Date('2025-06-01T12:00:00.000Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;

function retryAt(
  attempt: number,
  status: number | null = 500,
  retryAfterMs: number | null = null,
): number | 'give-up' {
  const next = nextAttempt({ attempt, failedAt, status, retryAfterMs });
  return next.kind === 'retry' ? next.at.getTime() - failedAt.getTime() : 'give-up';
}

describe('retry policy', () => {
  it('the schedule is the first attempt and 5 retries, backing off 5 s, 30 s, 2 min, 10 min, 30 min, and Retry-After is capped at 30 min', () => {
    expect(MAX_ATTEMPTS).toBe(6);
    expect(BACKOFF_MS).toEqual([5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE]);
    expect(RETRY_SCHEDULE_SECONDS).toEqual([5, 30, 120, 600, 1800]);
    expect(Object.isFrozen(RETRY_SCHEDULE_SECONDS)).toBe(true);
    expect(RETRY_AFTER_CAP_MS).toBe(30 * MINUTE);
  });

  it.each([
    [1, 5 * SECOND],
    [2, 30 * SECOND],
    [3, 2 * MINUTE],
    [4, 10 * MINUTE],
    [5, 30 * MINUTE],
  ])('given attempt %i failed, then the next is due exactly %i ms after the failure', (attempt, offset) => {
    expect(retryAt(attempt)).toBe(offset);
    expect(retryAt(attempt, null)).toBe(offset);
  });

  it('given the 6th attempt failed, then the delivery is given up', () => {
    expect(retryAt(6)).toBe('give-up');
    expect(retryAt(6, 429, 1000)).toBe('give-up');
    expect(() => retryAt(7)).toThrow(RangeError);
  });

  it('given a status, then only exactly 200 is a success', () => {
    expect(isSuccess(200)).toBe(true);
    for (const status of [null, 201, 202, 204, 301, 302, 304, 400, 429, 500, 503]) {
      expect(isSuccess(status)).toBe(false);
    }
  });

  it('given a 429 or 503 whose Retry-After is longer than the backoff, then the next attempt waits for it', () => {
    expect(retryAt(1, 429, 90 * SECOND)).toBe(90 * SECOND);
    expect(retryAt(2, 503, 5 * MINUTE)).toBe(5 * MINUTE);
  });

  it('given a Retry-After shorter than the backoff, then the backoff stands', () => {
    expect(retryAt(3, 429, 1 * SECOND)).toBe(2 * MINUTE);
    expect(retryAt(1, 503, 0)).toBe(5 * SECOND);
  });

  it('given a Retry-After beyond 30 min, then the next attempt is 30 min after the failure', () => {
    expect(retryAt(1, 429, 2 * 60 * MINUTE)).toBe(30 * MINUTE);
    expect(retryAt(4, 503, 31 * MINUTE)).toBe(30 * MINUTE);
    expect(retryAt(4, 503, Number.MAX_SAFE_INTEGER)).toBe(30 * MINUTE);
  });

  it('given Retry-After on another status, then it is ignored', () => {
    expect(retryAt(1, 500, 10 * MINUTE)).toBe(5 * SECOND);
    expect(retryAt(1, 301, 10 * MINUTE)).toBe(5 * SECOND);
  });

  it('given an attempt number outside 1..6, or a 200, then it is a programming error', () => {
    for (const attempt of [0, 7, 1.5, Number.NaN]) expect(() => retryAt(attempt)).toThrow(RangeError);
    expect(() => retryAt(1, 200)).toThrow(RangeError);
  });
});

describe('Retry-After parsing', () => {
  const now = new Date('1994-11-06T08:49:00.000Z');

  it('given delta-seconds, then it is that many seconds in ms', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it.each([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT'],
    ['RFC 850', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['asctime', 'Sun Nov  6 08:49:37 1994'],
  ])('given an HTTP-date (%s), then it is the time from now until then', (_form, value) => {
    expect(parseRetryAfter(value, now)).toBe(37_000);
  });

  it('given an HTTP-date in the past, then it is 0', () => {
    expect(parseRetryAfter('Sat, 05 Nov 1994 08:49:37 GMT', now)).toBe(0);
  });

  it('given an HTTP-date, when it goes through the policy, then the next attempt is at that date, capped', () => {
    const failed = new Date('2025-06-01T12:00:00.000Z');
    const in5min = parseRetryAfter('Sun, 01 Jun 2025 12:05:00 GMT', failed);
    const in2h = parseRetryAfter('Sun, 01 Jun 2025 14:00:00 GMT', failed);
    expect(nextAttempt({ attempt: 1, failedAt: failed, status: 503, retryAfterMs: in5min })).toEqual({
      kind: 'retry',
      at: new Date('2025-06-01T12:05:00.000Z'),
    });
    expect(nextAttempt({ attempt: 1, failedAt: failed, status: 429, retryAfterMs: in2h })).toEqual({
      kind: 'retry',
      at: new Date('2025-06-01T12:30:00.000Z'),
    });
  });

  it.each([
    [undefined],
    [null],
    [''],
    ['-1'],
    ['1.5'],
    ['soon'],
    ['2025-06-01T12:05:00Z'],
    ['Sun, 31 Feb 1994 08:49:37 GMT'],
    ['Sun, 06 Nov 1994 25:49:37 GMT'],
    ['Sun, 06 Nov 1994 08:49:37 PST'],
  ])('given %p, then it is not a Retry-After value (null)', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});
