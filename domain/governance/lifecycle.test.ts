import {
  evolveSubject,
  initialSubject,
  LIFECYCLE_RULES,
  type Lifecycle,
  refusesEvidence,
  type SubjectOutcome,
  type SubjectState,
} from './lifecycle';
import { hex } from './test-fixtures';

const AT = '2025-06-01T12:00:00.000Z';
const pass: SubjectOutcome = { kind: 'pass', artifact_hash: hex('1'), at: AT };
const fail: SubjectOutcome = { kind: 'fail', policy_violation: false, at: AT };
const violation: SubjectOutcome = { kind: 'fail', policy_violation: true, at: AT };
const variance = (classification: 'NOMINAL' | 'DRIFT' | 'BREACH'): SubjectOutcome => ({
  kind: 'variance',
  classification,
  at: AT,
});

function run(outcomes: SubjectOutcome[], from: SubjectState = initialSubject()): SubjectState {
  return outcomes.reduce(evolveSubject, from);
}
const times = (n: number, outcome: SubjectOutcome): SubjectOutcome[] =>
  Array.from({ length: n }, () => outcome);
const quarantined = () => run([pass, ...times(3, fail)]);

describe('subject lifecycle', () => {
  it('given a new subject, then it is PROPOSED with initial observables and no history', () => {
    expect(initialSubject()).toEqual({
      lifecycle: 'PROPOSED',
      observables: { H: 0.5, C: 0.5, E: 0.5 },
      consecutive_fails: 0,
      consecutive_breaches: 0,
      quarantine_passes: 0,
      last_bundle_hash: null,
      leaf_count: 0,
      updated_at: null,
    });
  });

  it.each<[string, () => SubjectState, SubjectOutcome[], Lifecycle]>([
    ['PROPOSED, first pass', initialSubject, [pass], 'ACTIVE'],
    ['PROPOSED, 2 fails', initialSubject, times(2, fail), 'PROPOSED'],
    ['PROPOSED, 3 fails', initialSubject, times(3, fail), 'QUARANTINE'],
    ['ACTIVE, 2 fails', () => run([pass]), times(2, fail), 'ACTIVE'],
    ['ACTIVE, 2 fails then a pass then 2 fails', () => run([pass]), [fail, fail, pass, fail, fail], 'ACTIVE'],
    ['ACTIVE, 3 fails', () => run([pass]), times(3, fail), 'QUARANTINE'],
    ['ACTIVE, 3 BREACH variances', () => run([pass]), times(3, variance('BREACH')), 'QUARANTINE'],
    [
      'ACTIVE, BREACH BREACH DRIFT BREACH',
      () => run([pass]),
      [variance('BREACH'), variance('BREACH'), variance('DRIFT'), variance('BREACH')],
      'ACTIVE',
    ],
    [
      'ACTIVE, BREACH BREACH NOMINAL BREACH',
      () => run([pass]),
      [variance('BREACH'), variance('BREACH'), variance('NOMINAL'), variance('BREACH')],
      'ACTIVE',
    ],
    ['QUARANTINE, 2 passes', quarantined, times(2, pass), 'QUARANTINE'],
    ['QUARANTINE, 3 passes', quarantined, times(3, pass), 'ACTIVE'],
    ['QUARANTINE, pass pass fail pass pass', quarantined, [pass, pass, fail, pass, pass], 'QUARANTINE'],
    ['QUARANTINE, pass pass BREACH pass', quarantined, [pass, pass, variance('BREACH'), pass], 'QUARANTINE'],
    ['QUARANTINE, 7 more fails (10 in a row)', quarantined, times(7, fail), 'LOCKBOX'],
    ['QUARANTINE, 6 more fails (9 in a row)', quarantined, times(6, fail), 'QUARANTINE'],
    ['PROPOSED, a policy violation', initialSubject, [violation], 'REJECTED'],
    ['ACTIVE, a policy violation', () => run([pass]), [violation], 'REJECTED'],
    ['QUARANTINE, a policy violation', quarantined, [violation], 'REJECTED'],
    ['LOCKBOX, a pass', () => run(times(10, fail)), [pass], 'LOCKBOX'],
    ['LOCKBOX, a policy violation', () => run(times(10, fail)), [violation], 'LOCKBOX'],
    ['REJECTED, 3 passes', () => run([violation]), times(3, pass), 'REJECTED'],
    ['REJECTED, 10 fails', () => run([violation]), times(10, fail), 'REJECTED'],
  ])('given %s, then the subject is %s', (_case, start, outcomes, expected) => {
    expect(run(outcomes, start()).lifecycle).toBe(expected);
  });

  it('given 3 fails, when a pass follows, then consecutive_fails resets to 0', () => {
    const state = run([pass, fail, fail, fail, pass]);
    expect(state.consecutive_fails).toBe(0);
    expect(state.quarantine_passes).toBe(1);
  });

  it('given a pass, then the subject records the bundle as the next parent and counts the leaf', () => {
    const state = run([pass, { kind: 'pass', artifact_hash: hex('2'), at: '2025-06-02T00:00:00.000Z' }]);
    expect(state).toMatchObject({
      last_bundle_hash: hex('2'),
      leaf_count: 2,
      updated_at: '2025-06-02T00:00:00.000Z',
    });
  });

  it('given a fail or a variance, then no leaf is counted and the parent is unchanged', () => {
    const state = run([pass, fail, variance('NOMINAL')]);
    expect(state).toMatchObject({ last_bundle_hash: hex('1'), leaf_count: 1 });
  });

  it('given outcomes, then the observables are nudged accordingly', () => {
    expect(run([pass]).observables).toEqual({ H: 0.505, C: 0.505, E: 0.495 });
    expect(run([fail]).observables).toEqual({ H: 0.48, C: 0.485, E: 0.52 });
    expect(run([pass, variance('BREACH')]).observables).toEqual({ H: 0.455, C: 0.47, E: 0.545 });
  });

  it('given a subject released from QUARANTINE after breaches, then its breach streak starts over', () => {
    const released = run(times(3, pass), run([pass, ...times(3, variance('BREACH'))]));
    expect(released).toMatchObject({ lifecycle: 'ACTIVE', consecutive_breaches: 0, quarantine_passes: 0 });
    expect(run([variance('BREACH')], released).lifecycle).toBe('ACTIVE');
  });

  it('given a terminal subject, then late outcomes still update observables and counters for forensics', () => {
    const locked = run(times(10, fail));
    const after = run([variance('BREACH')], locked);
    expect(after.lifecycle).toBe('LOCKBOX');
    expect(after.consecutive_breaches).toBe(1);
    expect(after.observables).not.toEqual(locked.observables);
  });

  describe('refusesEvidence', () => {
    it.each<[string, () => SubjectState, string | null]>([
      ['PROPOSED', initialSubject, null],
      ['ACTIVE', () => run([pass]), null],
      ['QUARANTINE', quarantined, null],
      ['LOCKBOX', () => run(times(10, fail)), 'LOCKBOX'],
      ['REJECTED', () => run([violation]), 'REJECTED'],
    ])('given a %s subject, then evidence is refused only in terminal states', (_name, state, mention) => {
      const refusal = refusesEvidence(state());
      if (mention === null) expect(refusal).toBeNull();
      else expect(refusal).toContain(mention);
    });
  });

  it('LIFECYCLE_RULES documents every state that can be entered', () => {
    expect(new Set(LIFECYCLE_RULES.map((rule) => rule.to))).toEqual(
      new Set(['ACTIVE', 'QUARANTINE', 'LOCKBOX', 'REJECTED']),
    );
  });
});
