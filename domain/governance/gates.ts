/**
 * The five gates G1–G5. The submitted `result` is only a claim: each gate is re-evaluated against the
 * tenant policy and fails when either the claim or a rule says so, with one sentence per gate saying why.
 * Inputs are read defensively because validators re-run this on stored bundles, not validated requests.
 */
import type { SubmitEvidenceBody, TenantPolicy } from '../../event-schemas';
import { formatNumber, quote } from './wording';

export type GateName = 'G1' | 'G2' | 'G3' | 'G4' | 'G5';
export const GATE_NAMES: readonly GateName[] = ['G1', 'G2', 'G3', 'G4', 'G5'];

export const EVIDENCE_CLASSES = ['HOOKED', 'ATTESTED', 'INSTRUMENTED'] as const;
type EvidenceClass = (typeof EVIDENCE_CLASSES)[number];

type GateError = 'GATE_FAILURE' | 'EVIDENCE_CLASS_INVALID';

export type GateEvaluation =
  | { passed: true; details: Record<GateName, string> }
  | {
      passed: false;
      error: GateError;
      /** Failing gates in G1..G5 order. */
      gates_failed: GateName[];
      /** One sentence per failing gate. */
      details: Partial<Record<GateName, string>>;
      /** The evidence broke a tenant allow-list (G4 class or G5 operator): the subject is REJECTED. */
      policy_violation: boolean;
    };

/** What one gate found: `problems` empty means it passed, and `checked` says what was verified. */
interface GateOutcome {
  problems: string[];
  checked: string;
  policyViolation: boolean;
  invalidClass: boolean;
}

export function evaluateGates(body: SubmitEvidenceBody, policy: TenantPolicy): GateEvaluation {
  return evaluateGateResults(body.gate_results, policy);
}

/** Same as `evaluateGates`, for gate results of unknown shape (a stored or remote proof bundle). */
export function evaluateGateResults(gateResults: unknown, policy: TenantPolicy): GateEvaluation {
  const results = asObject(gateResults);
  const outcomes: Record<GateName, GateOutcome> = {
    G1: g1(asObject(results.G1), policy),
    G2: g2(asObject(results.G2), policy),
    G3: g3(asObject(results.G3), policy),
    G4: g4(asObject(results.G4), policy),
    G5: g5(asObject(results.G5), policy),
  };
  const failed = GATE_NAMES.filter((gate) => outcomes[gate].problems.length > 0);
  if (failed.length === 0) {
    const details = {} as Record<GateName, string>;
    for (const gate of GATE_NAMES) details[gate] = outcomes[gate].checked;
    return { passed: true, details };
  }
  const details: Partial<Record<GateName, string>> = {};
  for (const gate of failed) details[gate] = outcomes[gate].problems.join('; ');
  return {
    passed: false,
    error: outcomes.G4.invalidClass ? 'EVIDENCE_CLASS_INVALID' : 'GATE_FAILURE',
    gates_failed: failed,
    details,
    policy_violation: failed.some((gate) => outcomes[gate].policyViolation),
  };
}

function g1(gate: Fields, policy: TenantPolicy): GateOutcome {
  const problems = claimProblems(gate);
  const lower = finite(gate.confidence_interval_lower);
  const upper = finite(gate.confidence_interval_upper);
  const iterations = gate.bootstrap_iterations;
  const min = policy.g1_min_confidence_lower;
  const minIterations = policy.g1_min_bootstrap_iterations;
  if (lower === undefined) problems.push('confidence_interval_lower is missing or not a number');
  else if (lower < min)
    problems.push(
      `confidence_interval_lower ${formatNumber(lower)} is below the policy minimum ${formatNumber(min)}`,
    );
  if (upper === undefined) problems.push('confidence_interval_upper is missing or not a number');
  else if (lower !== undefined && lower > upper)
    problems.push(
      `confidence_interval_lower ${formatNumber(lower)} is above confidence_interval_upper ${formatNumber(upper)}`,
    );
  if (typeof iterations !== 'number' || !Number.isInteger(iterations))
    problems.push('bootstrap_iterations is missing or not an integer');
  else if (iterations < minIterations)
    problems.push(`bootstrap_iterations ${iterations} is below the policy minimum ${minIterations}`);
  return outcome(
    problems,
    `confidence_interval_lower ${formatNumber(lower)} meets the policy minimum ${formatNumber(min)} and ` +
      `does not exceed confidence_interval_upper ${formatNumber(upper)}; bootstrap_iterations ${String(iterations)} ` +
      `meets the policy minimum ${minIterations}`,
  );
}

function g2(gate: Fields, policy: TenantPolicy): GateOutcome {
  const problems = claimProblems(gate);
  const attribution = gate.causal_attribution;
  const delta = finite(gate.ablation_delta);
  const min = policy.g2_min_ablation_delta;
  if (typeof attribution !== 'boolean') problems.push('causal_attribution is missing or not a boolean');
  else if (policy.g2_require_causal_attribution && !attribution)
    problems.push('causal_attribution is false but the policy requires causal attribution');
  if (delta === undefined) problems.push('ablation_delta is missing or not a number');
  else if (delta < min)
    problems.push(`ablation_delta ${formatNumber(delta)} is below the policy minimum ${formatNumber(min)}`);
  const attributionChecked = policy.g2_require_causal_attribution
    ? 'causal_attribution is true as the policy requires'
    : `causal_attribution is ${String(attribution)} (not required by the policy)`;
  return outcome(
    problems,
    `${attributionChecked}; ablation_delta ${formatNumber(delta)} meets the policy minimum ${formatNumber(min)}`,
  );
}

function g3(gate: Fields, policy: TenantPolicy): GateOutcome {
  const problems = claimProblems(gate);
  const metrics = gate.protected_metrics;
  if (metrics === null || typeof metrics !== 'object' || Array.isArray(metrics)) {
    problems.push('protected_metrics is missing or not an object');
    return outcome(problems, '');
  }
  const submitted = metrics as Fields;
  const maximums = declaredMaximums(gate.metric_maximums, policy, problems);
  const within: string[] = [];
  // Sorted so the sentence (part of stored events) does not depend on either side's key order.
  for (const name of [...maximums.keys()].sort()) {
    const { max, bySubmission } = maximums.get(name)!;
    const declared = `${formatNumber(max)}${bySubmission ? ' (declared by the submission)' : ''}`;
    const value = finite(submitted[name]);
    // A declared maximum is a promise to check that metric: leaving it out cannot pass.
    if (!Object.hasOwn(submitted, name))
      problems.push(`protected metric ${name} has a declared maximum ${declared} but was not submitted`);
    else if (value === undefined) problems.push(`protected metric ${name} is not a number`);
    else if (value > max)
      problems.push(
        `protected metric ${name} ${formatNumber(value)} exceeds its declared maximum ${declared}`,
      );
    else within.push(`${name} ${formatNumber(value)} ≤ ${declared}`);
  }
  const count = Object.keys(submitted).length;
  const checked =
    within.length === 0
      ? `no protected metric has a declared maximum in the policy (${count} submitted)`
      : `every protected metric with a declared maximum is within it: ${within.join(', ')}`;
  return outcome(problems, checked);
}

/**
 * The maximum each protected metric is held to: declared by the tenant policy, by the submission
 * (`metric_maximums`), or by both, when the lower one wins. A malformed declaration is a problem.
 */
function declaredMaximums(
  fromSubmission: unknown,
  policy: TenantPolicy,
  problems: string[],
): Map<string, { max: number; bySubmission: boolean }> {
  const maximums = new Map<string, { max: number; bySubmission: boolean }>();
  for (const [name, max] of Object.entries(policy.g3_metric_maximums))
    maximums.set(name, { max, bySubmission: false });
  if (fromSubmission === undefined) return maximums;
  if (fromSubmission === null || typeof fromSubmission !== 'object' || Array.isArray(fromSubmission)) {
    problems.push('metric_maximums is not an object');
    return maximums;
  }
  for (const [name, value] of Object.entries(fromSubmission)) {
    const max = finite(value);
    if (max === undefined) {
      problems.push(`the declared maximum of protected metric ${name} is not a number`);
      continue;
    }
    const held = maximums.get(name);
    if (!held || max < held.max) maximums.set(name, { max, bySubmission: true });
  }
  return maximums;
}

function g4(gate: Fields, policy: TenantPolicy): GateOutcome {
  const problems = claimProblems(gate);
  const evidenceClass = gate.evidence_class;
  const allowed: readonly string[] = policy.g4_allowed_classes;
  let invalidClass = false;
  let policyViolation = false;
  if (!isEvidenceClass(evidenceClass)) {
    invalidClass = true;
    problems.push(`evidence_class ${quote(evidenceClass)} is not one of ${EVIDENCE_CLASSES.join(', ')}`);
  } else if (!allowed.includes(evidenceClass)) {
    policyViolation = true;
    problems.push(
      `evidence_class ${evidenceClass} is valid but the tenant policy accepts only ${allowed.join(', ')}`,
    );
  }
  return {
    ...outcome(
      problems,
      `evidence_class ${String(evidenceClass)} is a valid class the tenant policy accepts`,
    ),
    invalidClass,
    policyViolation,
  };
}

function g5(gate: Fields, policy: TenantPolicy): GateOutcome {
  const problems = claimProblems(gate);
  const operator = gate.operator_id;
  const allowed = policy.g5_allowed_operators;
  let policyViolation = false;
  if (typeof operator !== 'string' || operator.trim() === '')
    problems.push('operator_id is missing or empty');
  else if (allowed !== null && !allowed.includes(operator)) {
    policyViolation = true;
    problems.push(`operator_id ${quote(operator)} is not in the tenant policy's allowed operators`);
  }
  const checked =
    allowed === null
      ? `operator_id ${quote(operator)} is non-empty (the policy allows any operator)`
      : `operator_id ${quote(operator)} is in the tenant policy's allowed operators`;
  return { ...outcome(problems, checked), policyViolation };
}

function isEvidenceClass(value: unknown): value is EvidenceClass {
  return typeof value === 'string' && (EVIDENCE_CLASSES as readonly string[]).includes(value);
}

type Fields = Record<string, unknown>;

function asObject(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The submitter's own verdict comes first: a gate claimed not to pass never passes. */
function claimProblems(gate: Fields): string[] {
  if (gate.result === 'PASS') return [];
  if (gate.result === undefined) return ['no result was submitted'];
  return [`the submitted result is ${quote(gate.result)}, not PASS`];
}

function outcome(problems: string[], checked: string): GateOutcome {
  return { problems, checked, policyViolation: false, invalidClass: false };
}
