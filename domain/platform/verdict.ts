/**
 * From gate results to a verdict by the agent's governance mode, and the agent's governance state as a
 * pure fold over its verdicts: observables H, C, E nudged as the clearinghouse nudges them
 * (`domain/governance/observables.ts`), and the lifecycle ACTIVE → QUARANTINE after three consecutive
 * blocks, back to ACTIVE when the owner acknowledges.
 */
import type { Observables } from '../../event-schemas';
import type { GateName } from '../governance/gates';
import type { Lifecycle } from '../governance/lifecycle';
import { INITIAL_OBSERVABLES, nudge, type ObservableOutcome } from '../governance/observables';

export const GOVERNANCE_MODES = ['enforce', 'monitor', 'review'] as const;
export type GovernanceMode = (typeof GOVERNANCE_MODES)[number];
export const DEFAULT_GOVERNANCE_MODE: GovernanceMode = 'enforce';

export const VERDICTS = ['ADMIT', 'BLOCK', 'ESCALATE'] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface VerdictDecision {
  verdict: Verdict;
  /** The gates failed: true for a BLOCK, an ESCALATE, and a monitor-mode ADMIT that enforce would have blocked. */
  would_block: boolean;
  gates_failed: GateName[];
}

/**
 * enforce: a failing action is blocked; monitor: every action is admitted, a failing one with
 * `would_block`; review: a failing action is escalated to a human. A passing action is admitted in
 * every mode.
 */
export function decideVerdict(
  evaluation: { passed: boolean; gates_failed: readonly GateName[] },
  mode: GovernanceMode,
): VerdictDecision {
  const gatesFailed = [...evaluation.gates_failed];
  if (evaluation.passed) return { verdict: 'ADMIT', would_block: false, gates_failed: gatesFailed };
  const verdict: Verdict = mode === 'enforce' ? 'BLOCK' : mode === 'monitor' ? 'ADMIT' : 'ESCALATE';
  return { verdict, would_block: true, gates_failed: gatesFailed };
}

/** A human's decision on an escalated action: approved admits it, rejected blocks it (a second leaf). */
export function resolveEscalation(decision: 'approve' | 'reject'): Extract<Verdict, 'ADMIT' | 'BLOCK'> {
  return decision === 'approve' ? 'ADMIT' : 'BLOCK';
}

/**
 * How a decision moves the observables: gates passed like a NOMINAL execution; gates failed like
 * DRIFT, or like BREACH when G2 (injection) or G3 (protected data) failed. It follows the gates, not
 * the mode: monitor changes what happens to the action, not what the agent's record says.
 */
export function observableOutcomeOf(decision: {
  would_block: boolean;
  gates_failed: readonly GateName[];
}): Extract<ObservableOutcome, 'NOMINAL' | 'DRIFT' | 'BREACH'> {
  if (!decision.would_block) return 'NOMINAL';
  return decision.gates_failed.includes('G2') || decision.gates_failed.includes('G3') ? 'BREACH' : 'DRIFT';
}

// ------------------------------------------------------------------------------------------ the fold

export type AgentLifecycle = Extract<Lifecycle, 'ACTIVE' | 'QUARANTINE'>;

export const QUARANTINE_AFTER_BLOCKS = 3;

/** What the fold reads: a decision of the pipeline, a review's resolution of an escalation, the owner's acknowledgement. */
export type AgentGovernanceOutcome =
  | {
      kind: 'decision';
      verdict: Verdict;
      would_block: boolean;
      gates_failed: readonly GateName[];
      at: string;
    }
  | { kind: 'review'; verdict: Extract<Verdict, 'ADMIT' | 'BLOCK'>; at: string }
  | { kind: 'acknowledge'; at: string };

export interface AgentGovernanceState {
  lifecycle: AgentLifecycle;
  observables: Observables;
  /** BLOCK verdicts since the last ADMIT or acknowledgement (an escalation waiting for review counts as neither). */
  consecutive_blocks: number;
  /** Final verdicts by kind; an escalation counts once when decided and again when resolved. */
  admitted: number;
  blocked: number;
  escalated: number;
  /** Escalations not yet resolved by a review. */
  pending_reviews: number;
  quarantined_at: string | null;
  updated_at: string | null;
}

/** The transitions, for documentation; `evolveAgentGovernance` is the implementation. */
export const AGENT_LIFECYCLE_RULES: readonly { from: AgentLifecycle; to: AgentLifecycle; when: string }[] = [
  {
    from: 'ACTIVE',
    to: 'QUARANTINE',
    when: `${QUARANTINE_AFTER_BLOCKS} consecutive BLOCK verdicts (in enforce mode, or escalations a review rejected); chat still answers, autonomous runs stop`,
  },
  { from: 'QUARANTINE', to: 'ACTIVE', when: 'the owner acknowledges the quarantine in review' },
];

export function initialAgentGovernance(): AgentGovernanceState {
  return {
    lifecycle: 'ACTIVE',
    observables: { ...INITIAL_OBSERVABLES },
    consecutive_blocks: 0,
    admitted: 0,
    blocked: 0,
    escalated: 0,
    pending_reviews: 0,
    quarantined_at: null,
    updated_at: null,
  };
}

/** A decided action (an `AgentActionDecided` event's members) as the fold reads it. */
export function actionDecisionOutcome(action: {
  verdict: Verdict;
  would_block: boolean;
  gates: readonly { gate: GateName; passed: boolean }[];
  decided_at: string;
}): AgentGovernanceOutcome {
  return {
    kind: 'decision',
    verdict: action.verdict,
    would_block: action.would_block,
    gates_failed: action.gates.filter((gate) => !gate.passed).map((gate) => gate.gate),
    at: action.decided_at,
  };
}

export function evolveAgentGovernance(
  state: AgentGovernanceState,
  outcome: AgentGovernanceOutcome,
): AgentGovernanceState {
  switch (outcome.kind) {
    case 'acknowledge':
      return {
        ...state,
        lifecycle: 'ACTIVE',
        consecutive_blocks: 0,
        quarantined_at: null,
        updated_at: outcome.at,
      };
    case 'review':
      // The escalation already moved the observables; its resolution counts as the verdict it gives.
      return counted(
        { ...state, pending_reviews: Math.max(0, state.pending_reviews - 1) },
        outcome.verdict,
        outcome.at,
      );
    case 'decision': {
      const nudged = { ...state, observables: nudge(state.observables, observableOutcomeOf(outcome)) };
      if (outcome.verdict === 'ESCALATE')
        return {
          ...nudged,
          escalated: state.escalated + 1,
          pending_reviews: state.pending_reviews + 1,
          updated_at: outcome.at,
        };
      return counted(nudged, outcome.verdict, outcome.at);
    }
  }
}

function counted(state: AgentGovernanceState, verdict: 'ADMIT' | 'BLOCK', at: string): AgentGovernanceState {
  if (verdict === 'ADMIT')
    return { ...state, admitted: state.admitted + 1, consecutive_blocks: 0, updated_at: at };
  const blocks = state.consecutive_blocks + 1;
  const next = { ...state, blocked: state.blocked + 1, consecutive_blocks: blocks, updated_at: at };
  if (state.lifecycle === 'ACTIVE' && blocks >= QUARANTINE_AFTER_BLOCKS)
    return { ...next, lifecycle: 'QUARANTINE', quarantined_at: at };
  return next;
}

/** The state after every outcome, in order: what the projector and the command side both compute. */
export function agentGovernanceState(
  outcomes: Iterable<AgentGovernanceOutcome>,
  from: AgentGovernanceState = initialAgentGovernance(),
): AgentGovernanceState {
  let state = from;
  for (const outcome of outcomes) state = evolveAgentGovernance(state, outcome);
  return state;
}

/** Autonomous runs (heartbeat, schedules, tasks, sub-agents) stop while the agent is in QUARANTINE; chat goes on. */
export function autonomyAllowed(state: Pick<AgentGovernanceState, 'lifecycle'>): boolean {
  return state.lifecycle !== 'QUARANTINE';
}
