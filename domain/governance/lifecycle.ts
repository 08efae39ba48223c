/**
 * A subject's lifecycle, as a fold over its outcomes: gate passes, gate failures and execution variances.
 * Pure, so the projector and the command side compute the same state from the same events.
 */
import type { Observables } from '../../event-schemas';
import { INITIAL_OBSERVABLES, nudge } from './observables';

export type Lifecycle = 'PROPOSED' | 'ACTIVE' | 'QUARANTINE' | 'LOCKBOX' | 'REJECTED';

export interface SubjectState {
  lifecycle: Lifecycle;
  observables: Observables;
  /** Gate failures since the last pass. */
  consecutive_fails: number;
  /** BREACH variances since the last NOMINAL or DRIFT one. */
  consecutive_breaches: number;
  /** Passes since the subject entered QUARANTINE or last failed there; 3 lets it out. */
  quarantine_passes: number;
  /** artifact_hash of the subject's last admitted bundle: the next bundle's parent. */
  last_bundle_hash: string | null;
  /** Authorization leaves (admitted proof bundles) of this subject. */
  leaf_count: number;
  updated_at: string | null;
}

export type SubjectOutcome =
  | { kind: 'pass'; artifact_hash: string; at: string }
  | { kind: 'fail'; policy_violation: boolean; at: string }
  | { kind: 'variance'; classification: 'NOMINAL' | 'DRIFT' | 'BREACH'; at: string };

const QUARANTINE_AFTER_FAILS = 3;
const QUARANTINE_AFTER_BREACHES = 3;
export const LOCKBOX_AFTER_FAILS = 10;
const PASSES_TO_LEAVE_QUARANTINE = 3;

/** The transitions, for documentation; `evolveSubject` is the implementation. */
export const LIFECYCLE_RULES: readonly { from: string; to: Lifecycle; when: string }[] = [
  { from: 'PROPOSED', to: 'ACTIVE', when: 'the first proof bundle passes every gate and is admitted' },
  {
    from: 'PROPOSED, ACTIVE',
    to: 'QUARANTINE',
    when: `${QUARANTINE_AFTER_FAILS} consecutive gate failures, or ${QUARANTINE_AFTER_BREACHES} consecutive BREACH variances`,
  },
  {
    from: 'QUARANTINE',
    to: 'ACTIVE',
    when: `${PASSES_TO_LEAVE_QUARANTINE} consecutive admitted passes while in QUARANTINE (a gate failure or a BREACH variance restarts the count)`,
  },
  {
    from: 'PROPOSED, ACTIVE, QUARANTINE',
    to: 'LOCKBOX',
    when: `${LOCKBOX_AFTER_FAILS} consecutive gate failures; terminal: read-only, kept for forensics`,
  },
  {
    from: 'PROPOSED, ACTIVE, QUARANTINE',
    to: 'REJECTED',
    when: 'evidence breaks a tenant allow-list (G4 evidence class or G5 operator); terminal',
  },
];

export function initialSubject(): SubjectState {
  return {
    lifecycle: 'PROPOSED',
    observables: { ...INITIAL_OBSERVABLES },
    consecutive_fails: 0,
    consecutive_breaches: 0,
    quarantine_passes: 0,
    last_bundle_hash: null,
    leaf_count: 0,
    updated_at: null,
  };
}

function isTerminal(lifecycle: Lifecycle): boolean {
  return lifecycle === 'LOCKBOX' || lifecycle === 'REJECTED';
}

/** Why the subject accepts no more evidence, or null when it does. */
export function refusesEvidence(state: SubjectState): string | null {
  if (state.lifecycle === 'LOCKBOX')
    return `The subject is in LOCKBOX after ${LOCKBOX_AFTER_FAILS} consecutive gate failures: it is read-only and kept for forensics.`;
  if (state.lifecycle === 'REJECTED')
    return 'The subject is REJECTED after a tenant policy violation: it accepts no further evidence.';
  return null;
}

/**
 * The state after one outcome. Counters and observables always follow the outcome; the lifecycle of a
 * terminal subject (LOCKBOX, REJECTED) never changes, so late executions are still recorded for forensics.
 */
export function evolveSubject(state: SubjectState, outcome: SubjectOutcome): SubjectState {
  const next = counted(state, outcome);
  return isTerminal(state.lifecycle) ? { ...next, lifecycle: state.lifecycle } : next;
}

function counted(state: SubjectState, outcome: SubjectOutcome): SubjectState {
  switch (outcome.kind) {
    case 'pass':
      return afterPass(state, outcome.artifact_hash, outcome.at);
    case 'fail':
      return afterFail(state, outcome.policy_violation, outcome.at);
    case 'variance':
      return afterVariance(state, outcome.classification, outcome.at);
  }
}

function afterPass(state: SubjectState, artifactHash: string, at: string): SubjectState {
  const next: SubjectState = {
    ...state,
    observables: nudge(state.observables, 'GATE_PASS'),
    consecutive_fails: 0,
    last_bundle_hash: artifactHash,
    leaf_count: state.leaf_count + 1,
    updated_at: at,
  };
  if (state.lifecycle === 'PROPOSED') return { ...next, lifecycle: 'ACTIVE' };
  if (state.lifecycle !== 'QUARANTINE') return next;
  const passes = state.quarantine_passes + 1;
  if (passes < PASSES_TO_LEAVE_QUARANTINE) return { ...next, quarantine_passes: passes };
  // Released: a fresh start, so one old breach streak cannot send it straight back.
  return { ...next, lifecycle: 'ACTIVE', quarantine_passes: 0, consecutive_breaches: 0 };
}

function afterFail(state: SubjectState, policyViolation: boolean, at: string): SubjectState {
  const fails = state.consecutive_fails + 1;
  const next: SubjectState = {
    ...state,
    observables: nudge(state.observables, 'GATE_FAIL'),
    consecutive_fails: fails,
    quarantine_passes: 0,
    updated_at: at,
  };
  if (policyViolation) return { ...next, lifecycle: 'REJECTED' };
  if (fails >= LOCKBOX_AFTER_FAILS) return { ...next, lifecycle: 'LOCKBOX' };
  if (fails >= QUARANTINE_AFTER_FAILS) return { ...next, lifecycle: 'QUARANTINE' };
  return next;
}

function afterVariance(
  state: SubjectState,
  classification: 'NOMINAL' | 'DRIFT' | 'BREACH',
  at: string,
): SubjectState {
  const observables = nudge(state.observables, classification);
  if (classification !== 'BREACH') return { ...state, observables, consecutive_breaches: 0, updated_at: at };
  const breaches = state.consecutive_breaches + 1;
  const next: SubjectState = {
    ...state,
    observables,
    consecutive_breaches: breaches,
    quarantine_passes: 0,
    updated_at: at,
  };
  return breaches >= QUARANTINE_AFTER_BREACHES ? { ...next, lifecycle: 'QUARANTINE' } : next;
}
