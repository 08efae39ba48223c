import { DueSchedule } from './due-schedule';

describe('when the delivery worker looks for due retries', () => {
  it('given no look at the store yet, then something may be due', () => {
    expect(new DueSchedule().mayBeDue(0)).toBe(true);
  });

  it('given a look that left the earliest pending entry due at 10 000, then nothing is due before it, and it is at it', () => {
    const due = new DueSchedule();
    due.looked(10_000);
    expect(due.mayBeDue(9_999)).toBe(false);
    expect(due.mayBeDue(10_000)).toBe(true);
  });

  it('given a look that found nothing pending, then nothing is due until an entry is recorded pending', () => {
    const due = new DueSchedule();
    due.looked(Number.POSITIVE_INFINITY);
    expect(due.mayBeDue(1e15)).toBe(false);
    due.recordedEntry('d1', 5_000);
    expect(due.mayBeDue(4_999)).toBe(false);
    expect(due.mayBeDue(5_000)).toBe(true);
  });

  it('given a recorded entry that was settled, or begun again, then it no longer makes anything due', () => {
    const due = new DueSchedule();
    due.looked(Number.POSITIVE_INFINITY);
    due.recordedEntry('d1', 5_000);
    due.recordedEntry('d1', null);
    due.recordedEntry('d2', 6_000);
    due.begun('d2');
    expect(due.mayBeDue(7_000)).toBe(false);
  });

  it('given a look that could not see past a full page of due entries, then something may be due at any time', () => {
    const due = new DueSchedule();
    due.looked(null);
    expect(due.mayBeDue(0)).toBe(true);
  });

  it('given more pending entries than it tracks, then every poll looks, as without tracking', () => {
    const due = new DueSchedule();
    due.looked(Number.POSITIVE_INFINITY);
    for (let i = 0; i <= 100_000; i++) due.recordedEntry(`d${i}`, 1e15);
    expect(due.mayBeDue(0)).toBe(true);
  });
});
