import fc from 'fast-check';
import type { Observables } from '../../event-schemas';
import { validateRecord } from '../../event-schemas';
import {
  buildExecutionTrace,
  classifyDistance,
  computeVariance,
  execStateFor,
  isGovernanceBreach,
  l2Distance,
} from './closed-loop';
import { hex } from './test-fixtures';

const AUTH: Observables = { H: 0.6, C: 0.6, E: 0.3 };
const AT = '2025-06-01T12:00:00.000Z';

function variance(auth: Observables, exec: Observables) {
  return computeVariance({
    tenant_id: 'tnt_acme',
    subject_id: 'model-7',
    parent_auth_leaf_hash: hex('a'),
    parent_exec_leaf_hash: hex('b'),
    auth_state: auth,
    exec_state: exec,
    recorded_at: AT,
  });
}

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const observables = fc.record({ H: unit, C: unit, E: unit });

describe('execution state', () => {
  it('given EXECUTED without a reported state, then the execution state is the authorization state', () => {
    expect(execStateFor('EXECUTED', AUTH)).toEqual(AUTH);
  });

  it('given FAILED without a reported state, then H −0.15, C −0.20, E +0.25', () => {
    expect(execStateFor('FAILED', AUTH)).toEqual({ H: 0.45, C: 0.4, E: 0.55 });
  });

  it('given DEVIATED without a reported state, then H −0.10, C −0.15, E +0.15', () => {
    expect(execStateFor('DEVIATED', AUTH)).toEqual({ H: 0.5, C: 0.45, E: 0.45 });
  });

  it('given a state near the edges, then the derived state is clamped to [0, 1]', () => {
    expect(execStateFor('FAILED', { H: 0.1, C: 0.1, E: 0.9 })).toEqual({ H: 0, C: 0, E: 1 });
  });

  it('given a reported exec_state, then it is used (rounded) whatever the outcome', () => {
    expect(execStateFor('FAILED', AUTH, { H: 0.1234567, C: 0.9, E: 0.2 })).toEqual({
      H: 0.123457,
      C: 0.9,
      E: 0.2,
    });
  });
});

describe('variance record', () => {
  it('given identical states, then the distance is 0, NOMINAL, every observable stable', () => {
    const record = variance(AUTH, AUTH);
    expect(record).toMatchObject({
      l2_distance: 0,
      classification: 'NOMINAL',
      delta: { H: 0, C: 0, E: 0 },
      drift_direction: { H: 'stable', C: 'stable', E: 'stable' },
      auth_in_omega: true,
      exec_in_omega: true,
      omega_breach: false,
    });
    expect(isGovernanceBreach(record)).toBe(false);
  });

  it('given a FAILED execution, then the record is a full GOV_VARIANCE_RECORD_V1 that validates', () => {
    const record = variance(AUTH, execStateFor('FAILED', AUTH));
    expect(record).toEqual({
      type: 'GOV_VARIANCE_RECORD_V1',
      version: 1,
      tenant_id: 'tnt_acme',
      parent_auth_leaf_hash: hex('a'),
      parent_exec_leaf_hash: hex('b'),
      subject_id: 'model-7',
      auth_state: AUTH,
      exec_state: { H: 0.45, C: 0.4, E: 0.55 },
      delta: { H: -0.15, C: -0.2, E: 0.25 },
      l2_distance: 0.353553,
      classification: 'BREACH',
      drift_direction: { H: 'degraded', C: 'degraded', E: 'degraded' },
      auth_in_omega: true,
      exec_in_omega: true,
      omega_breach: false,
      recorded_at: AT,
    });
    expect(validateRecord('variance-record', record)).toEqual({ ok: true, value: record });
    expect(isGovernanceBreach(record)).toBe(true);
  });

  it.each([
    [0.05, 'NOMINAL'],
    [0.050001, 'DRIFT'],
    [0.2, 'DRIFT'],
    [0.200001, 'BREACH'],
  ] as const)(
    'given a distance of exactly %s along one axis, then the classification is %s',
    (distance, expected) => {
      const record = variance(AUTH, { ...AUTH, H: AUTH.H - distance });
      expect(record.l2_distance).toBe(distance);
      expect(record.classification).toBe(expected);
    },
  );

  it('given a change in E only, then it counts towards the distance like H and C (axis 1 − E)', () => {
    expect(variance(AUTH, { ...AUTH, E: 0.5 }).l2_distance).toBe(0.2);
    expect(variance(AUTH, { H: 0.63, C: 0.64, E: 0.3 }).l2_distance).toBe(0.05);
  });

  it.each([
    [0.01, 'stable', 'stable'],
    [-0.01, 'stable', 'stable'],
    [0.010001, 'improved', 'degraded'],
    [-0.010001, 'degraded', 'improved'],
  ] as const)(
    'given each observable changes by %s, then H and C are %s and E is %s (E rising is worse)',
    (change, forHC, forE) => {
      const record = variance(AUTH, { H: AUTH.H + change, C: AUTH.C + change, E: AUTH.E + change });
      expect(record.drift_direction).toEqual({ H: forHC, C: forHC, E: forE });
    },
  );

  it('given an authorization inside Ω and an execution outside, then omega_breach fires a governance breach', () => {
    const record = variance({ H: 0.41, C: 0.5, E: 0.5 }, { H: 0.39, C: 0.5, E: 0.5 });
    expect(record).toMatchObject({
      classification: 'NOMINAL',
      auth_in_omega: true,
      exec_in_omega: false,
      omega_breach: true,
    });
    expect(isGovernanceBreach(record)).toBe(true);
  });

  it('given an authorization already outside Ω, then leaving it further is not an omega_breach', () => {
    const record = variance({ H: 0.39, C: 0.5, E: 0.5 }, { H: 0.38, C: 0.5, E: 0.5 });
    expect(record.omega_breach).toBe(false);
  });

  it('property: l2_distance is symmetric, non-negative and rounded to 6 decimals', () => {
    fc.assert(
      fc.property(observables, observables, (a, b) => {
        const d = l2Distance(a, b);
        expect(l2Distance(b, a)).toBe(d);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(Math.round(d * 1e6) / 1e6).toBe(d);
      }),
    );
  });

  it('property: classification is monotone in the distance (never less severe for a larger distance)', () => {
    const severity = { NOMINAL: 0, DRIFT: 1, BREACH: 2 };
    const distance = fc.double({ min: 0, max: 2, noNaN: true });
    fc.assert(
      fc.property(distance, distance, (x, y) => {
        const [near, far] = x <= y ? [x, y] : [y, x];
        expect(severity[classifyDistance(near)]).toBeLessThanOrEqual(severity[classifyDistance(far)]);
      }),
    );
  });

  it('property: moving the execution further from the authorization along a direction never lowers the class', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.3, noNaN: true }),
        fc.double({ min: 0, max: 0.3, noNaN: true }),
        (s, t) => {
          const [near, far] = s <= t ? [s, t] : [t, s];
          const severity = { NOMINAL: 0, DRIFT: 1, BREACH: 2 };
          const at = (k: number) =>
            variance(AUTH, { H: AUTH.H - k, C: AUTH.C - k, E: AUTH.E + k }).classification;
          expect(severity[at(near)]).toBeLessThanOrEqual(severity[at(far)]);
        },
      ),
    );
  });
});

describe('execution trace', () => {
  const base = {
    tenant_id: 'tnt_acme',
    subject_id: 'model-7',
    parent_auth_leaf_hash: hex('a'),
    outcome: 'DEVIATED' as const,
    exec_state: execStateFor('DEVIATED', AUTH),
    recorded_at: AT,
  };

  it('given no optional members, then they are absent (not undefined) and the trace validates', () => {
    const trace = buildExecutionTrace({ ...base, executed_payload_hash: undefined });
    expect(Object.keys(trace)).not.toContain('executed_payload_hash');
    expect(Object.keys(trace)).not.toContain('execution_context');
    expect(trace).toMatchObject({ type: 'GOV_EXECUTION_TRACE_V1', version: 1, outcome: 'DEVIATED' });
    expect(validateRecord('execution-trace', trace).ok).toBe(true);
  });

  it('given a payload hash and a context, then both are kept and the trace validates', () => {
    const trace = buildExecutionTrace({
      ...base,
      executed_payload_hash: hex('c'),
      execution_context: { run: 7 },
    });
    expect(trace).toMatchObject({ executed_payload_hash: hex('c'), execution_context: { run: 7 } });
    expect(validateRecord('execution-trace', trace).ok).toBe(true);
  });
});
