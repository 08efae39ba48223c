/**
 * The closed loop (tier L2+): what happened when an authorized action ran (the execution trace) and how
 * far that moved the observables from the authorization (the variance record).
 */
import type { ExecutionTrace, Observables, VarianceRecord } from '../../event-schemas';
import { inOmega, round6, settle } from './observables';

export type ExecutionOutcome = 'EXECUTED' | 'FAILED' | 'DEVIATED';
export type VarianceClassification = VarianceRecord['classification'];
type DriftDirection = VarianceRecord['drift_direction']['H'];

/** How an execution without a reported exec_state moves the authorization state (DOMAIN.md). */
const EXECUTION_SHIFTS: Readonly<Record<ExecutionOutcome, Readonly<Observables>>> = Object.freeze({
  EXECUTED: Object.freeze({ H: 0, C: 0, E: 0 }),
  FAILED: Object.freeze({ H: -0.15, C: -0.2, E: 0.25 }),
  DEVIATED: Object.freeze({ H: -0.1, C: -0.15, E: 0.15 }),
});

/** Upper bounds of l2_distance per class: NOMINAL ≤ 0.05 < DRIFT ≤ 0.20 < BREACH. */
const VARIANCE_BOUNDS = Object.freeze({ NOMINAL: 0.05, DRIFT: 0.2 });
/** A change within ±0.01 is `stable`. */
const DRIFT_BAND = 0.01;

/** The observed state after execution: the reported one when given, else derived from the outcome. */
export function execStateFor(
  outcome: ExecutionOutcome,
  authState: Observables,
  given?: Observables,
): Observables {
  if (given) return settle(given);
  const shift = EXECUTION_SHIFTS[outcome];
  return settle({ H: authState.H + shift.H, C: authState.C + shift.C, E: authState.E + shift.E });
}

export interface VarianceInput {
  tenant_id: string;
  subject_id: string;
  parent_auth_leaf_hash: string;
  parent_exec_leaf_hash: string;
  auth_state: Observables;
  exec_state: Observables;
  recorded_at: string;
}

export function computeVariance(input: VarianceInput): VarianceRecord {
  const auth = input.auth_state;
  const exec = input.exec_state;
  const delta = {
    H: round6(exec.H - auth.H),
    C: round6(exec.C - auth.C),
    E: round6(exec.E - auth.E),
  };
  const authInOmega = inOmega(auth);
  const execInOmega = inOmega(exec);
  const l2 = l2Distance(auth, exec);
  return {
    type: 'GOV_VARIANCE_RECORD_V1',
    version: 1,
    tenant_id: input.tenant_id,
    parent_auth_leaf_hash: input.parent_auth_leaf_hash,
    parent_exec_leaf_hash: input.parent_exec_leaf_hash,
    subject_id: input.subject_id,
    auth_state: { H: auth.H, C: auth.C, E: auth.E },
    exec_state: { H: exec.H, C: exec.C, E: exec.E },
    delta,
    l2_distance: l2,
    classification: classifyDistance(l2),
    drift_direction: {
      H: direction(delta.H),
      C: direction(delta.C),
      // Entropy rising means more uncertainty: the one observable where up is worse.
      E: direction(-delta.E),
    },
    auth_in_omega: authInOmega,
    exec_in_omega: execInOmega,
    omega_breach: authInOmega && !execInOmega,
    recorded_at: input.recorded_at,
  };
}

/**
 * Euclidean distance in the space [H, C, 1 − E] (where every axis points towards "healthier"),
 * rounded to 6 decimals so that the class boundaries are exact.
 */
export function l2Distance(a: Observables, b: Observables): number {
  const dH = b.H - a.H;
  const dC = b.C - a.C;
  const dE = a.E - b.E; // the change along the 1 − E axis
  return round6(Math.sqrt(dH * dH + dC * dC + dE * dE));
}

export function classifyDistance(l2: number): VarianceClassification {
  if (l2 <= VARIANCE_BOUNDS.NOMINAL) return 'NOMINAL';
  if (l2 <= VARIANCE_BOUNDS.DRIFT) return 'DRIFT';
  return 'BREACH';
}

/** A BREACH, or leaving Ω, fires `governance_breach`. */
export function isGovernanceBreach(record: Pick<VarianceRecord, 'classification' | 'omega_breach'>): boolean {
  return record.classification === 'BREACH' || record.omega_breach;
}

/** `improvement` is the change with "better" positive. */
function direction(improvement: number): DriftDirection {
  if (improvement > DRIFT_BAND) return 'improved';
  if (improvement < -DRIFT_BAND) return 'degraded';
  return 'stable';
}

export interface ExecutionTraceInput {
  tenant_id: string;
  subject_id: string;
  parent_auth_leaf_hash: string;
  outcome: ExecutionOutcome;
  executed_payload_hash?: string | undefined;
  execution_context?: Record<string, unknown> | undefined;
  /** Usually `execStateFor(outcome, authState, body.exec_state)`. */
  exec_state: Observables;
  recorded_at: string;
}

export function buildExecutionTrace(input: ExecutionTraceInput): ExecutionTrace {
  // Optional members are left out rather than set to undefined: canonical JSON and schemas see the same record.
  return {
    type: 'GOV_EXECUTION_TRACE_V1',
    version: 1,
    tenant_id: input.tenant_id,
    parent_auth_leaf_hash: input.parent_auth_leaf_hash,
    subject_id: input.subject_id,
    outcome: input.outcome,
    ...(input.executed_payload_hash !== undefined && { executed_payload_hash: input.executed_payload_hash }),
    ...(input.execution_context !== undefined && { execution_context: { ...input.execution_context } }),
    exec_state: settle(input.exec_state),
    recorded_at: input.recorded_at,
  };
}
