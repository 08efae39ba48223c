/**
 * The governed-action pipeline's decisions on the agent's stream, pure. An action is planned on the
 * newest state the writer knows (gates, verdict, the signed record: computation, done outside the
 * agent's queue), then decided in the queue, which checks that what the plan was based on still holds
 * (the config version, whose governance mode made the verdict, and the policy the gates applied),
 * that the agent exists, and the owner's tier's daily quota; a plan made stale is planned again.
 */
import { canonicalHash } from '../../../domain/governance/hash';
import {
  type ActionGateEvaluation,
  DEFAULT_AGENT_POLICY,
  evaluateActionGates,
  type GovernedAction,
  mustNotPatternProblem,
} from '../../../domain/platform/action-gates';
import {
  PLATFORM_TIER_LIMITS,
  type PlatformTierLimits,
  type Tier,
} from '../../../domain/platform/capabilities';
import {
  type AgentActionInput,
  type Authority,
  buildAgentAction,
  type SealedRecord,
} from '../../../domain/platform/records';
import {
  type AgentLifecycle,
  actionDecisionOutcome,
  decideVerdict,
  evolveAgentGovernance,
  type VerdictDecision,
} from '../../../domain/platform/verdict';
import type { AgentAction, AgentActionDecided, AgentPolicy } from '../../../event-schemas';
import type { Decision } from '../../engine/aggregate-writer';
import { refuseMissing } from '../agents/agent-commands';
import {
  type AgentCommandContext,
  type AgentEvent,
  type AgentState,
  agentEvent,
} from '../agents/agent-state';
import { type Refusal, refused } from '../refusal';

/** An action's gates and verdict, made on one state of the agent, and what its record will say. */
export interface AssessedAction {
  agentId: string;
  tenantId: string;
  /** The owner's tenant's log the leaf goes to. */
  log: string;
  action: GovernedAction;
  /** What the verdict was made on: the decision refuses a plan whose basis moved. */
  basis: { config_version: number; policy: AgentPolicy | null };
  evaluation: ActionGateEvaluation;
  verdict: VerdictDecision;
  decidedAt: string;
  /** The GOV_AGENT_ACTION_V1 record's input, to build and sign (inline or on the sealing thread). */
  recordInput: AgentActionInput;
}

/** An assessed action with its signed record and the nonces its commitments were made with. */
export interface PlannedAction extends AssessedAction {
  sealed: SealedRecord<AgentAction>;
  nonces: { content: string; principal: string };
}

export type PlanRefusal = Refusal<'not_found'>;

/**
 * Gates (with the agent's policy, the default until one is set) and the verdict by the agent's
 * governance mode; the record to sign from them holds commitments to the content and to the principal
 * (each with its own nonce), never the content.
 */
export function assessAction(
  state: AgentState,
  action: GovernedAction,
  context: { now: Date; log: string },
): AssessedAction | PlanRefusal {
  const missing = refuseMissing(state);
  if (missing) return missing as PlanRefusal;
  const policy = state.policy ?? DEFAULT_AGENT_POLICY;
  const evaluation = evaluateActionGates(action, policy);
  const mode = state.config?.governance_mode ?? 'enforce';
  const verdict = decideVerdict(evaluation, mode);
  const decidedAt = context.now.toISOString();
  return {
    agentId: state.agent_id,
    tenantId: state.tenant_id,
    log: context.log,
    action,
    basis: { config_version: state.config_version, policy: state.policy },
    evaluation,
    verdict,
    decidedAt,
    recordInput: {
      agent_id: state.agent_id,
      tenant_id: state.tenant_id,
      action_type: action.type,
      verdict: verdict.verdict,
      would_block: verdict.would_block,
      // The gate and whether it passed: the reasons stay in the private event.
      gates: evaluation.gates.map(({ gate, passed }) => ({ gate, passed })),
      content: action.content,
      principal: { kind: action.principal.kind, id: action.principal.id },
      decided_at: decidedAt,
    },
  };
}

/** `assessAction` and the record signed inline with the node key. */
export function planAction(
  state: AgentState,
  action: GovernedAction,
  context: {
    now: Date;
    log: string;
    nonces: { content: string; principal: string };
    authority: Authority;
  },
): PlannedAction | PlanRefusal {
  const assessed = assessAction(state, action, context);
  if ('kind' in assessed) return assessed;
  const sealed = buildAgentAction(assessed.recordInput, context.nonces, context.authority);
  return { ...assessed, sealed, nonces: context.nonces };
}

export type ActionRefusal = Refusal<'not_found' | 'quota_exceeded'>;

/** The action decided and appended: its leaf hash (hex), and the agent's lifecycle after it. */
export type ActionDecided = { kind: 'decided'; leaf_hash: string; lifecycle: AgentLifecycle };

/** The plan's basis moved (a new config version or policy): plan again on the newer state. */
export type StalePlan = { kind: 'stale' };

export type ActionOutcome = ActionDecided | StalePlan | ActionRefusal;

/** The daily allowance of governed actions of an agent whose owner is on `tier`; null: no limit. */
export function dailyActionLimit(tier: Tier): PlatformTierLimits['governed_actions_per_day'] {
  return PLATFORM_TIER_LIMITS[tier].governed_actions_per_day;
}

/** The governed actions the agent has decided on the UTC day of `at` (ISO 8601). */
export function actionsOnDayOf(state: AgentState, at: string): number {
  return state.actions_today.day === at.slice(0, 10) ? state.actions_today.count : 0;
}

/**
 * Appends the planned action's decision (AgentActionDecided: the record and its leaf, plus the private
 * content, nonces and reasons), unless the agent is gone, the plan is stale, or the owner's tier's
 * daily quota is spent (429, nothing appended). Every decided action counts, whatever its verdict.
 */
export function decideGovernedAction(
  state: AgentState,
  planned: PlannedAction,
  context: AgentCommandContext & { tier: Tier },
): Decision<ActionOutcome, AgentEvent> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing as ActionRefusal };
  if (state.config_version !== planned.basis.config_version || state.policy !== planned.basis.policy)
    return { events: [], result: { kind: 'stale' } };
  const limit = dailyActionLimit(context.tier);
  if (limit !== null && actionsOnDayOf(state, planned.decidedAt) >= limit)
    return {
      events: [],
      result: refused(
        429,
        'quota_exceeded',
        `The agent has used all ${limit} governed actions of today (UTC) allowed on tier ${context.tier}: the count starts again at 00:00 UTC, and a higher tier allows more.`,
      ),
    };
  const { action, evaluation, verdict, sealed, nonces } = planned;
  const data: AgentActionDecided = {
    agent_id: planned.agentId,
    tenant_id: planned.tenantId,
    record: sealed.record,
    leaf_hash: sealed.leafHash,
    log: planned.log,
    action_type: action.type,
    verdict: verdict.verdict,
    would_block: verdict.would_block,
    gates: evaluation.gates as AgentActionDecided['gates'],
    content: action.content,
    content_nonce: nonces.content,
    principal: { kind: action.principal.kind, id: action.principal.id },
    principal_nonce: nonces.principal,
    evidence_class: action.evidence_class,
    ...(action.tool_class === undefined ? {} : { tool_class: action.tool_class }),
    decided_at: planned.decidedAt,
  };
  const governance = evolveAgentGovernance(state.governance, actionDecisionOutcome(data));
  return {
    events: [agentEvent(planned.tenantId, context, 'AgentActionDecided', data)],
    result: { kind: 'decided', leaf_hash: sealed.leafHash, lifecycle: governance.lifecycle },
  };
}

export type PolicyRefusal = Refusal<'not_found' | 'invalid_request'>;
export type PolicyResult = { kind: 'changed' | 'unchanged'; policy_hash: string };

/**
 * Replaces the agent's policy (what its actions' gates apply). A must_not pattern that cannot be
 * checked in linear time is refused; the policy in force again changes nothing.
 */
export function decideChangePolicy(
  state: AgentState,
  input: { policy: AgentPolicy; changedBy: string },
  context: AgentCommandContext,
): Decision<PolicyResult | PolicyRefusal, AgentEvent> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing as PolicyRefusal };
  for (const rule of input.policy.g1_must_not) {
    const problem = mustNotPatternProblem(rule.pattern);
    if (problem !== null)
      return {
        events: [],
        result: refused(400, 'invalid_request', `The must_not rule ${rule.id} cannot be used: ${problem}.`),
      };
  }
  const policyHash = canonicalHash(input.policy);
  if (state.policy !== null && canonicalHash(state.policy) === policyHash)
    return { events: [], result: { kind: 'unchanged', policy_hash: policyHash } };
  return {
    events: [
      agentEvent(state.tenant_id, context, 'AgentPolicyChanged', {
        agent_id: state.agent_id,
        tenant_id: state.tenant_id,
        policy: input.policy,
        policy_hash: policyHash,
        changed_by: input.changedBy,
        changed_at: context.now.toISOString(),
      }),
    ],
    result: { kind: 'changed', policy_hash: policyHash },
  };
}
