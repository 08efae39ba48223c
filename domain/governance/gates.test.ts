import type { SubmitEvidenceBody } from '../../event-schemas';
import { validateRecord } from '../../event-schemas';
import { EVIDENCE_CLASSES, evaluateGateResults, evaluateGates, type GateEvaluation } from './gates';
import { DEFAULT_POLICY, policyHash } from './policy';
import { policyWith, validBody } from './test-fixtures';

type Gates = SubmitEvidenceBody['gate_results'];

/** Evaluates the valid body after `change` edits its gate results. */
function evaluate(change: (gates: Gates) => void, policy = DEFAULT_POLICY): GateEvaluation {
  const body = validBody();
  change(body.gate_results);
  return evaluateGates(body, policy);
}

/** Evaluates the valid body with `patch` applied to one gate. */
function evaluateWith<G extends keyof Gates>(
  gate: G,
  patch: Partial<Gates[G]>,
  policy = DEFAULT_POLICY,
): GateEvaluation {
  return evaluate((g) => {
    Object.assign(g[gate], patch);
  }, policy);
}

function failure(evaluation: GateEvaluation) {
  if (evaluation.passed) throw new Error('expected the evidence to fail');
  return evaluation;
}

describe('tenant policy', () => {
  it('given no tenant changes, then the defaults are the standard thresholds', () => {
    expect(DEFAULT_POLICY).toEqual({
      g1_min_confidence_lower: 0.8,
      g1_min_bootstrap_iterations: 1000,
      g2_require_causal_attribution: true,
      g2_min_ablation_delta: 0,
      g3_metric_maximums: {},
      g4_allowed_classes: ['HOOKED', 'ATTESTED', 'INSTRUMENTED'],
      g5_allowed_operators: null,
      replay_window_seconds: 300,
    });
    expect(validateRecord('tenant-policy', DEFAULT_POLICY).ok).toBe(true);
  });

  it('given the shared default, when code tries to change it, then it throws instead of drifting', () => {
    expect(() => {
      (DEFAULT_POLICY as { g1_min_confidence_lower: number }).g1_min_confidence_lower = 0.1;
    }).toThrow(TypeError);
    expect(() => DEFAULT_POLICY.g4_allowed_classes.push('HOOKED')).toThrow(TypeError);
  });

  it('policyHash is hex SHA-256 of canonical JSON: independent of key order, sensitive to any value', () => {
    const reordered = Object.fromEntries(Object.entries(DEFAULT_POLICY).reverse()) as typeof DEFAULT_POLICY;
    expect(policyHash(DEFAULT_POLICY)).toMatch(/^[0-9a-f]{64}$/);
    expect(policyHash(reordered)).toBe(policyHash(DEFAULT_POLICY));
    expect(policyHash(policyWith({ replay_window_seconds: 301 }))).not.toBe(policyHash(DEFAULT_POLICY));
  });
});

describe('evaluateGates', () => {
  it('given valid evidence, then every gate passes with a sentence saying what was checked', () => {
    const evaluation = evaluateGates(validBody(), DEFAULT_POLICY);
    expect(evaluation).toEqual({
      passed: true,
      details: {
        G1: 'confidence_interval_lower 0.85 meets the policy minimum 0.80 and does not exceed confidence_interval_upper 0.95; bootstrap_iterations 2000 meets the policy minimum 1000',
        G2: 'causal_attribution is true as the policy requires; ablation_delta 0.10 meets the policy minimum 0',
        G3: 'no protected metric has a declared maximum in the policy (1 submitted)',
        G4: 'evidence_class HOOKED is a valid class the tenant policy accepts',
        G5: 'operator_id "op-1" is non-empty (the policy allows any operator)',
      },
    });
  });

  describe('the submitted result is a claim', () => {
    it.each(['G1', 'G2', 'G3', 'G4', 'G5'] as const)(
      'given %s claims FAIL with otherwise valid values, then that gate fails and says so',
      (gate) => {
        const evaluation = failure(
          evaluate((g) => {
            g[gate].result = 'FAIL';
          }),
        );
        expect(evaluation).toEqual({
          passed: false,
          error: 'GATE_FAILURE',
          gates_failed: [gate],
          details: { [gate]: 'the submitted result is "FAIL", not PASS' },
          policy_violation: false,
        });
      },
    );

    it('given a claim of INCONCLUSIVE, then the gate fails', () => {
      const evaluation = failure(
        evaluate((g) => {
          g.G3.result = 'INCONCLUSIVE';
        }),
      );
      expect(evaluation.details.G3).toBe('the submitted result is "INCONCLUSIVE", not PASS');
    });

    it('given a PASS claim that breaks a rule, then the rule wins and both problems are reported together', () => {
      const evaluation = failure(
        evaluate((g) => {
          g.G1.result = 'FAIL';
          g.G1.confidence_interval_lower = 0.72;
        }),
      );
      expect(evaluation.details.G1).toBe(
        'the submitted result is "FAIL", not PASS; confidence_interval_lower 0.72 is below the policy minimum 0.80',
      );
    });
  });

  describe('G1: confidence interval and bootstrap', () => {
    it('given confidence_interval_lower exactly 0.80, then G1 passes', () => {
      expect(evaluateWith('G1', { confidence_interval_lower: 0.8 }).passed).toBe(true);
    });

    it('given confidence_interval_lower 0.7999, then G1 fails naming the value and threshold', () => {
      const evaluation = failure(evaluateWith('G1', { confidence_interval_lower: 0.7999 }));
      expect(evaluation.gates_failed).toEqual(['G1']);
      expect(evaluation.details.G1).toBe('confidence_interval_lower 0.7999 is below the policy minimum 0.80');
    });

    it('given lower above upper, then G1 fails', () => {
      const evaluation = failure(
        evaluate((g) => {
          g.G1.confidence_interval_lower = 0.9;
          g.G1.confidence_interval_upper = 0.85;
        }),
      );
      expect(evaluation.details.G1).toBe(
        'confidence_interval_lower 0.90 is above confidence_interval_upper 0.85',
      );
    });

    it('given lower equal to upper, then G1 passes', () => {
      expect(
        evaluate((g) => {
          g.G1.confidence_interval_lower = 0.9;
          g.G1.confidence_interval_upper = 0.9;
        }).passed,
      ).toBe(true);
    });

    it('given 999 bootstrap iterations, then G1 fails; given exactly 1000, then it passes', () => {
      expect(failure(evaluateWith('G1', { bootstrap_iterations: 999 })).details.G1).toBe(
        'bootstrap_iterations 999 is below the policy minimum 1000',
      );
      expect(evaluateWith('G1', { bootstrap_iterations: 1000 }).passed).toBe(true);
    });

    it('given a tenant minimum of 0.9, then 0.85 fails against that minimum', () => {
      const evaluation = failure(evaluate(() => {}, policyWith({ g1_min_confidence_lower: 0.9 })));
      expect(evaluation.details.G1).toBe('confidence_interval_lower 0.85 is below the policy minimum 0.90');
    });
  });

  describe('G2: causal attribution and ablation', () => {
    it('given causal_attribution false, then G2 fails', () => {
      const evaluation = failure(evaluateWith('G2', { causal_attribution: false }));
      expect(evaluation.details.G2).toBe(
        'causal_attribution is false but the policy requires causal attribution',
      );
    });

    it('given causal_attribution false and a policy not requiring it, then G2 passes', () => {
      const evaluation = evaluateWith(
        'G2',
        { causal_attribution: false },
        policyWith({ g2_require_causal_attribution: false }),
      );
      expect(evaluation.passed).toBe(true);
    });

    it('given ablation_delta exactly 0, then G2 passes; given -0.0001, then it fails', () => {
      expect(evaluateWith('G2', { ablation_delta: 0 }).passed).toBe(true);
      expect(failure(evaluateWith('G2', { ablation_delta: -0.0001 })).details.G2).toBe(
        'ablation_delta -0.0001 is below the policy minimum 0',
      );
    });
  });

  describe('G3: protected metrics', () => {
    const policy = policyWith({ g3_metric_maximums: { toxicity: 0.05, bias_gap: 0.1 } });
    const withMetrics = (metrics: Record<string, number>) =>
      evaluateWith('G3', { protected_metrics: metrics }, policy);

    it('given every declared metric at or below its maximum, then G3 passes and lists them', () => {
      const evaluation = withMetrics({ toxicity: 0.05, bias_gap: 0.02, unbounded: 99 });
      expect(evaluation.passed).toBe(true);
      expect(evaluation.details.G3).toBe(
        'every protected metric with a declared maximum is within it: bias_gap 0.02 ≤ 0.10, toxicity 0.05 ≤ 0.05',
      );
    });

    it('given a metric above its declared maximum, then G3 fails naming metric, value and maximum', () => {
      const evaluation = failure(withMetrics({ toxicity: 0.0501, bias_gap: 0.02 }));
      expect(evaluation.details.G3).toBe(
        'protected metric toxicity 0.0501 exceeds its declared maximum 0.05',
      );
    });

    it('given a metric with a declared maximum left out, then G3 fails (it cannot be checked)', () => {
      const evaluation = failure(withMetrics({ toxicity: 0.01 }));
      expect(evaluation.details.G3).toBe(
        'protected metric bias_gap has a declared maximum 0.10 but was not submitted',
      );
    });

    it('given the default policy (no maximums), then any metric value passes', () => {
      expect(evaluateWith('G3', { protected_metrics: { toxicity: 1e9 } }).passed).toBe(true);
    });
  });

  describe('G3: maximums declared by the submission', () => {
    const submitted = (
      metrics: Record<string, number>,
      maximums: Record<string, unknown>,
      policy = DEFAULT_POLICY,
    ) =>
      evaluate((g) => {
        g.G3 = { ...g.G3, protected_metrics: metrics, metric_maximums: maximums } as Gates['G3'];
      }, policy);

    it('given the default policy and a submission declaring bias ≤ 0.1, when bias is 1e9, then G3 fails naming the submission as the source', () => {
      expect(failure(submitted({ bias: 1e9 }, { bias: 0.1 })).details.G3).toBe(
        'protected metric bias 1000000000 exceeds its declared maximum 0.10 (declared by the submission)',
      );
    });

    it('given the submission is stricter than the policy, then its maximum is the one held', () => {
      const policy = policyWith({ g3_metric_maximums: { bias: 0.1 } });
      expect(failure(submitted({ bias: 0.07 }, { bias: 0.05 }, policy)).details.G3).toBe(
        'protected metric bias 0.07 exceeds its declared maximum 0.05 (declared by the submission)',
      );
    });

    it('given the policy is stricter than the submission, then the policy maximum is the one held', () => {
      const policy = policyWith({ g3_metric_maximums: { bias: 0.05 } });
      expect(failure(submitted({ bias: 0.07 }, { bias: 0.5 }, policy)).details.G3).toBe(
        'protected metric bias 0.07 exceeds its declared maximum 0.05',
      );
    });

    it('given a maximum declared for a metric not submitted, then G3 fails', () => {
      expect(failure(submitted({ toxicity: 0.01 }, { bias: 0.1 })).details.G3).toBe(
        'protected metric bias has a declared maximum 0.10 (declared by the submission) but was not submitted',
      );
    });

    it('given every metric within the lower of both maximums, then G3 passes and lists each with its maximum', () => {
      const policy = policyWith({ g3_metric_maximums: { toxicity: 0.05 } });
      const evaluation = submitted({ toxicity: 0.02, bias: 0.04 }, { bias: 0.05, toxicity: 0.5 }, policy);
      expect(evaluation.passed).toBe(true);
      expect(evaluation.details.G3).toBe(
        'every protected metric with a declared maximum is within it: bias 0.04 ≤ 0.05 (declared by the submission), toxicity 0.02 ≤ 0.05',
      );
    });

    it('given stored gate results whose declared maximums are malformed, then G3 fails saying so', () => {
      const notObject = failure(submitted({ bias: 0.01 }, 'low' as unknown as Record<string, unknown>));
      expect(notObject.details.G3).toBe('metric_maximums is not an object');
      const notNumber = failure(submitted({ bias: 0.01 }, { bias: '0.1' }));
      expect(notNumber.details.G3).toBe('the declared maximum of protected metric bias is not a number');
    });
  });

  describe('G4: evidence class', () => {
    it.each(EVIDENCE_CLASSES)('given class %s under the default policy, then G4 passes', (evidenceClass) => {
      expect(evaluateWith('G4', { evidence_class: evidenceClass }).passed).toBe(true);
    });

    it('given a class outside HOOKED/ATTESTED/INSTRUMENTED, then the error is EVIDENCE_CLASS_INVALID', () => {
      expect(failure(evaluateWith('G4', { evidence_class: 'SELF_REPORTED' }))).toEqual({
        passed: false,
        error: 'EVIDENCE_CLASS_INVALID',
        gates_failed: ['G4'],
        details: { G4: 'evidence_class "SELF_REPORTED" is not one of HOOKED, ATTESTED, INSTRUMENTED' },
        policy_violation: false,
      });
    });

    it('given an invalid class and other failing gates, then the error is still EVIDENCE_CLASS_INVALID and all gates are listed in order', () => {
      const evaluation = failure(
        evaluate((g) => {
          g.G5.operator_id = ' ';
          g.G4.evidence_class = 'hooked';
          g.G1.confidence_interval_lower = 0.1;
        }),
      );
      expect(evaluation.error).toBe('EVIDENCE_CLASS_INVALID');
      expect(evaluation.gates_failed).toEqual(['G1', 'G4', 'G5']);
    });

    it('given a valid class the tenant does not accept, then G4 fails as a policy violation', () => {
      const evaluation = failure(
        evaluateWith('G4', { evidence_class: 'ATTESTED' }, policyWith({ g4_allowed_classes: ['HOOKED'] })),
      );
      expect(evaluation).toMatchObject({
        error: 'GATE_FAILURE',
        gates_failed: ['G4'],
        policy_violation: true,
      });
      expect(evaluation.details.G4).toBe(
        'evidence_class ATTESTED is valid but the tenant policy accepts only HOOKED',
      );
    });
  });

  describe('G5: operator', () => {
    it.each(['', '   ', '\t'])('given operator_id %j, then G5 fails (not a policy violation)', (operator) => {
      const evaluation = failure(evaluateWith('G5', { operator_id: operator }));
      expect(evaluation).toMatchObject({ gates_failed: ['G5'], policy_violation: false });
      expect(evaluation.details.G5).toBe('operator_id is missing or empty');
    });

    it('given an allow-list containing the operator, then G5 passes', () => {
      const evaluation = evaluate(() => {}, policyWith({ g5_allowed_operators: ['op-1', 'op-2'] }));
      expect(evaluation.passed).toBe(true);
      expect(evaluation.details.G5).toBe('operator_id "op-1" is in the tenant policy\'s allowed operators');
    });

    it('given an allow-list without the operator, then G5 fails as a policy violation', () => {
      const evaluation = failure(evaluate(() => {}, policyWith({ g5_allowed_operators: ['op-2'] })));
      expect(evaluation).toMatchObject({
        error: 'GATE_FAILURE',
        gates_failed: ['G5'],
        policy_violation: true,
      });
      expect(evaluation.details.G5).toBe(
        'operator_id "op-1" is not in the tenant policy\'s allowed operators',
      );
    });
  });

  it('given several failing gates, then gates_failed is in G1..G5 order with one sentence each', () => {
    const evaluation = failure(
      evaluate((g) => {
        g.G5.result = 'FAIL';
        g.G2.ablation_delta = -1;
        g.G1.bootstrap_iterations = 10;
      }),
    );
    expect(evaluation.gates_failed).toEqual(['G1', 'G2', 'G5']);
    expect(Object.keys(evaluation.details)).toEqual(['G1', 'G2', 'G5']);
  });

  it('given gate results of unknown shape (a stored bundle), then missing parts fail instead of throwing', () => {
    const evaluation = failure(
      evaluateGateResults({ G1: null, G2: 'x', G4: { result: 'PASS' } }, DEFAULT_POLICY),
    );
    expect(evaluation.gates_failed).toEqual(['G1', 'G2', 'G3', 'G4', 'G5']);
    expect(evaluation.error).toBe('EVIDENCE_CLASS_INVALID');
    expect(evaluation.details.G3).toBe(
      'no result was submitted; protected_metrics is missing or not an object',
    );
    expect(failure(evaluateGateResults(undefined, DEFAULT_POLICY)).gates_failed).toHaveLength(5);
  });
});
