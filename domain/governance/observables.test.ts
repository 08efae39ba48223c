import fc from 'fast-check';
import { validateRecord } from '../../event-schemas';
import {
  INITIAL_OBSERVABLES,
  inOmega,
  NUDGES,
  nudge,
  type ObservableOutcome,
  omegaCrossing,
  round6,
} from './observables';

const OUTCOMES = Object.keys(NUDGES) as ObservableOutcome[];
const unit = fc.double({ min: 0, max: 1, noNaN: true });
const observables = fc.record({ H: unit, C: unit, E: unit });

describe('observables H, C, E', () => {
  it('given a new subject, then H, C and E start at 0.5', () => {
    expect(INITIAL_OBSERVABLES).toEqual({ H: 0.5, C: 0.5, E: 0.5 });
    expect(validateRecord('observables', INITIAL_OBSERVABLES).ok).toBe(true);
  });

  it.each([
    ['GATE_PASS', { H: 0.505, C: 0.505, E: 0.495 }],
    ['GATE_FAIL', { H: 0.48, C: 0.485, E: 0.52 }],
    ['NOMINAL', { H: 0.51, C: 0.508, E: 0.495 }],
    ['DRIFT', { H: 0.475, C: 0.48, E: 0.525 }],
    ['BREACH', { H: 0.45, C: 0.465, E: 0.55 }],
  ] as const)(
    'given the initial state, when the outcome is %s, then the state moves to %j',
    (outcome, after) => {
      expect(nudge(INITIAL_OBSERVABLES, outcome)).toEqual(after);
    },
  );

  it('given H and C at 1 and E at 0, when a pass pushes further, then they clamp at 1 and 0', () => {
    expect(nudge({ H: 1, C: 0.999, E: 0 }, 'GATE_PASS')).toEqual({ H: 1, C: 1, E: 0 });
  });

  it('given H and C at 0 and E at 1, when a breach pushes further, then they clamp at 0 and 1', () => {
    expect(nudge({ H: 0.01, C: 0, E: 0.99 }, 'BREACH')).toEqual({ H: 0, C: 0, E: 1 });
  });

  it('given repeated nudges, then the numbers are rounded to 6 decimals (replay reproduces them exactly)', () => {
    let state = { ...INITIAL_OBSERVABLES };
    for (let i = 0; i < 7; i++) state = nudge(state, 'NOMINAL');
    expect(state).toEqual({ H: 0.57, C: 0.556, E: 0.465 });
  });

  it('property: any nudge from any state stays within [0, 1] and is rounded to 6 decimals', () => {
    fc.assert(
      fc.property(
        observables,
        fc.array(fc.constantFrom(...OUTCOMES), { minLength: 1, maxLength: 50 }),
        (start, outcomes) => {
          let state = start;
          for (const outcome of outcomes) state = nudge(state, outcome);
          for (const value of [state.H, state.C, state.E]) {
            expect(value).toBeGreaterThanOrEqual(0);
            expect(value).toBeLessThanOrEqual(1);
            expect(round6(value)).toBe(value);
          }
        },
      ),
    );
  });

  it('round6 never yields negative zero', () => {
    expect(Object.is(round6(-0.0000001), 0)).toBe(true);
  });

  describe('the healthy region Ω (H ≥ 0.40, C ≥ 0.40, E ≤ 0.60)', () => {
    it.each([
      [{ H: 0.4, C: 0.4, E: 0.6 }, true],
      [{ H: 0.399999, C: 0.5, E: 0.5 }, false],
      [{ H: 0.5, C: 0.399999, E: 0.5 }, false],
      [{ H: 0.5, C: 0.5, E: 0.600001 }, false],
    ])('given %j, then inOmega is %s', (state, expected) => {
      expect(inOmega(state)).toBe(expected);
    });

    it('given a move from inside to outside, then the crossing is "left"; back inside, "entered"; otherwise null', () => {
      const inside = { H: 0.41, C: 0.5, E: 0.5 };
      const outside = nudge(inside, 'GATE_FAIL');
      expect(omegaCrossing(inside, outside)).toBe('left');
      expect(omegaCrossing(outside, inside)).toBe('entered');
      expect(omegaCrossing(inside, inside)).toBeNull();
      expect(omegaCrossing(outside, outside)).toBeNull();
    });
  });
});
