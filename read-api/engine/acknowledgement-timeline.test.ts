import fc from 'fast-check';
import { AcknowledgementTimeline } from './acknowledgement-timeline';

describe('acknowledgement timeline', () => {
  it('given nothing noted at or before a cut-off, then it answers null', () => {
    const timeline = new AcknowledgementTimeline();
    expect(timeline.newestAtOrBefore(100)).toBeNull();
    timeline.note(200, 5);
    expect(timeline.newestAtOrBefore(199)).toBeNull();
  });

  it('given positions noted over time, then a cut-off finds the newest noted at or before it', () => {
    const timeline = new AcknowledgementTimeline();
    timeline.note(10, 3);
    timeline.note(20, 7);
    timeline.note(30, 9);
    expect(timeline.newestAtOrBefore(10)).toBe(3);
    expect(timeline.newestAtOrBefore(25)).toBe(7);
    expect(timeline.newestAtOrBefore(1000)).toBe(9);
  });

  it('given an older or equal position noted after a newer one, then it changes nothing', () => {
    const timeline = new AcknowledgementTimeline();
    timeline.note(10, 8);
    timeline.note(20, 5);
    timeline.note(30, 8);
    expect(timeline.newestAtOrBefore(35)).toBe(8);
    expect(timeline.size).toBe(1);
  });

  it('given positions noted within one millisecond, then they share one entry holding the newest', () => {
    const timeline = new AcknowledgementTimeline();
    timeline.note(10, 1);
    timeline.note(10.4, 2);
    timeline.note(10.9, 3);
    timeline.note(11, 4);
    expect(timeline.size).toBe(2);
    expect(timeline.newestAtOrBefore(10.5)).toBe(3);
    expect(timeline.newestAtOrBefore(11)).toBe(4);
  });

  it('given cut-offs that move forward, then the entries kept stay those after the cut-off and one before', () => {
    const timeline = new AcknowledgementTimeline();
    for (let ms = 0; ms < 20_000; ms++) {
      timeline.note(ms, ms + 1);
      if (ms >= 500) expect(timeline.newestAtOrBefore(ms - 500)).toBe(ms - 499);
    }
    expect(timeline.size).toBeLessThanOrEqual(501 + 1024);
  });

  it('answers as a scan of everything noted would, for any notes and forward-moving cut-offs', () => {
    const step = fc.record({
      advance: fc.double({ min: 0, max: 5, noNaN: true }),
      position: fc.nat(50),
      lag: fc.nat(20),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        const timeline = new AcknowledgementTimeline();
        const noted: Array<{ at: number; position: number }> = [];
        let now = 0;
        let cutoff = Number.NEGATIVE_INFINITY;
        for (const { advance, position, lag } of steps) {
          now += advance;
          timeline.note(now, position);
          noted.push({ at: now, position });
          cutoff = Math.max(cutoff, now - lag);
          // What a scan gives: the greatest position noted at or before the cut-off, where noting a
          // position within 1 ms of the entry before may count it up to 1 ms early.
          const exact = noted.filter((n) => n.at <= cutoff).map((n) => n.position);
          const early = noted.filter((n) => n.at <= cutoff + 1).map((n) => n.position);
          const answer = timeline.newestAtOrBefore(cutoff);
          if (exact.length === 0 && answer === null) continue;
          expect(answer).not.toBeNull();
          expect(answer!).toBeGreaterThanOrEqual(
            exact.length ? Math.max(...exact) : Number.NEGATIVE_INFINITY,
          );
          expect(answer!).toBeLessThanOrEqual(Math.max(...early));
        }
      }),
    );
  });
});
