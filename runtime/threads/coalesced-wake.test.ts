import { CoalescedWake } from './coalesced-wake';

/** A wake whose sends are counted, on a clock the test moves with Jest's fake timers. */
function countedWake(intervalMs: number) {
  let sent = 0;
  const wake = new CoalescedWake(
    () => {
      sent += 1;
    },
    intervalMs,
    () => Date.now(),
  );
  return { wake, sent: () => sent };
}

describe('coalesced wake', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('given a quiet interval, when work is noted several times in one turn, then one wake goes at the end of the turn', () => {
    const { wake, sent } = countedWake(20);
    wake.note();
    wake.note();
    wake.note();
    expect(sent()).toBe(0);
    jest.runOnlyPendingTimers(); // the turn's end (setImmediate)
    expect(sent()).toBe(1);
  });

  it('given a wake just sent, when work is noted within the interval, then the next wake waits until the interval is up', () => {
    const { wake, sent } = countedWake(20);
    wake.note();
    jest.advanceTimersByTime(0);
    jest.runOnlyPendingTimers();
    expect(sent()).toBe(1);

    jest.advanceTimersByTime(5);
    wake.note();
    wake.note();
    jest.advanceTimersByTime(14);
    expect(sent()).toBe(1);
    jest.advanceTimersByTime(1); // 20 ms after the first wake
    expect(sent()).toBe(2);
  });

  it('given a held wake, when someone waits for the work, then it goes at once and only once', () => {
    const { wake, sent } = countedWake(20);
    wake.note();
    jest.runOnlyPendingTimers();
    wake.note();
    wake.now();
    expect(sent()).toBe(2);
    jest.advanceTimersByTime(100);
    expect(sent()).toBe(2);
  });

  it('given no work noted, when someone waits, then nothing is sent', () => {
    const { wake, sent } = countedWake(20);
    wake.now();
    wake.note();
    jest.runOnlyPendingTimers();
    wake.now(); // the wake already went
    expect(sent()).toBe(1);
  });

  it('given a held wake cancelled, then it never goes', () => {
    const { wake, sent } = countedWake(20);
    wake.note();
    jest.runOnlyPendingTimers();
    wake.note();
    wake.cancel();
    jest.advanceTimersByTime(1000);
    expect(sent()).toBe(1);
  });

  it('given a wake cancelled at the end of a turn, then it never goes, and work noted later wakes again', () => {
    const { wake, sent } = countedWake(20);
    wake.note();
    wake.cancel();
    jest.runOnlyPendingTimers();
    expect(sent()).toBe(0);
    wake.note();
    jest.runOnlyPendingTimers();
    expect(sent()).toBe(1);
  });
});
