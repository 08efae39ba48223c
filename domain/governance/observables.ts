/**
 * The observables H (hypothesis support), C (causal-attribution confidence) and E (entropy), each in
 * [0, 1]. Every outcome nudges them; results are rounded to 6 decimals so that replaying the events
 * reproduces exactly the numbers that were published.
 */
import type { Observables } from '../../event-schemas';

export const INITIAL_OBSERVABLES: Readonly<Observables> = Object.freeze({ H: 0.5, C: 0.5, E: 0.5 });

export type ObservableOutcome = 'GATE_PASS' | 'GATE_FAIL' | 'NOMINAL' | 'DRIFT' | 'BREACH';

/** How far each outcome moves H, C and E (DOMAIN.md; the gate rows are this service's choice). */
export const NUDGES: Readonly<Record<ObservableOutcome, Readonly<Observables>>> = Object.freeze({
  GATE_PASS: Object.freeze({ H: 0.005, C: 0.005, E: -0.005 }),
  GATE_FAIL: Object.freeze({ H: -0.02, C: -0.015, E: 0.02 }),
  NOMINAL: Object.freeze({ H: 0.01, C: 0.008, E: -0.005 }),
  DRIFT: Object.freeze({ H: -0.025, C: -0.02, E: 0.025 }),
  BREACH: Object.freeze({ H: -0.05, C: -0.035, E: 0.05 }),
});

/** The healthy region Ω: H ≥ 0.40, C ≥ 0.40 and E ≤ 0.60. */
export const OMEGA = Object.freeze({ min_H: 0.4, min_C: 0.4, max_E: 0.6 });

export function nudge(observables: Observables, outcome: ObservableOutcome): Observables {
  const step = NUDGES[outcome];
  return settle({ H: observables.H + step.H, C: observables.C + step.C, E: observables.E + step.E });
}

/** Clamps each observable to [0, 1] and rounds it to 6 decimals. */
export function settle(observables: Observables): Observables {
  return {
    H: round6(clamp01(observables.H)),
    C: round6(clamp01(observables.C)),
    E: round6(clamp01(observables.E)),
  };
}

export function inOmega(observables: Observables): boolean {
  return observables.H >= OMEGA.min_H && observables.C >= OMEGA.min_C && observables.E <= OMEGA.max_E;
}

/** Whether a change crossed the boundary of Ω (which fires `observables_alert`), and which way. */
export function omegaCrossing(before: Observables, after: Observables): 'left' | 'entered' | null {
  const wasIn = inOmega(before);
  const isIn = inOmega(after);
  if (wasIn && !isIn) return 'left';
  if (!wasIn && isIn) return 'entered';
  return null;
}

/** Rounds to 6 decimals; never returns -0 (it would survive JSON as 0 and break equality on replay). */
export function round6(value: number): number {
  const rounded = Math.round(value * 1e6) / 1e6;
  return rounded === 0 ? 0 : rounded;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
