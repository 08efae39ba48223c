import { parseCpuTimes, stealShare } from './cpu-steal';

const STAT = (user: number, idle: number, steal: number) =>
  `cpu  ${user} 10 200 ${idle} 5 0 15 ${steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2 3\n`;

describe('CPU steal on a shared virtual machine', () => {
  it('given /proc/stat, then busy, idle and steal come from the aggregate cpu line', () => {
    expect(parseCpuTimes(STAT(1000, 5000, 70))).toEqual({
      busy: 1000 + 10 + 200 + 0 + 15,
      idle: 5005,
      steal: 70,
    });
  });

  it('given a malformed or missing cpu line, then nothing is read', () => {
    expect(parseCpuTimes('cpu  1 2 three 4 5 6 7 8\n')).toBeNull();
    expect(parseCpuTimes('cpu  1 2 3\n')).toBeNull();
    expect(parseCpuTimes('intr 1 2 3\n')).toBeNull();
  });

  it('given two readings, then the steal share is stolen ticks over all ticks between them', () => {
    const before = parseCpuTimes(STAT(1000, 5000, 100));
    const after = parseCpuTimes(STAT(1700, 5200, 200));
    // busy +700, idle +200, steal +100: 100 of 1,000 ticks
    expect(stealShare(before, after)).toBeCloseTo(0.1);
  });

  it('given a reading missing, or no time between them, then the share is unknown', () => {
    const reading = parseCpuTimes(STAT(1000, 5000, 100));
    expect(stealShare(null, reading)).toBeNaN();
    expect(stealShare(reading, reading)).toBeNaN();
  });
});
