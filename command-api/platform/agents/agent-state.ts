/**
 * The agent aggregate: everything one agent's commands are decided against, folded from its stream
 * `agent-<agent_id>` (lifecycle, config versions, checkpoints, and the agent's API keys, whose rules
 * need the agent's own state: a deleted agent takes no key).
 */
import {
  type AgentGovernanceState,
  actionDecisionOutcome,
  evolveAgentGovernance,
  initialAgentGovernance,
} from '../../../domain/platform/verdict';
import type { AgentPolicy, AgentSettings, EventPayloads } from '../../../event-schemas';
import type { AGENT_EVENT_TYPES } from '../../../projectors/platform/agents';
import type { Aggregate, NewEventOf } from '../../engine/aggregate-writer';
import { PersistentMap } from '../../engine/persistent-map';

/** The events of an agent's stream. */
export type AgentEvent = {
  [T in AgentEventType]: { type: T; data: EventPayloads[T] };
}[AgentEventType];

/** The agents read model's events, and the governed actions' (actions/), which it does not read. */
export type AgentEventType = (typeof AGENT_EVENT_TYPES)[number] | 'AgentActionDecided' | 'AgentPolicyChanged';

interface CheckpointState {
  config_version: number;
  profile_version: number;
  memory_position: number;
}

export interface AgentState {
  /** False until `AgentCreated`. */
  exists: boolean;
  deleted: boolean;
  agent_id: string;
  owner_id: string;
  tenant_id: string;
  state: 'stopped' | 'running';
  mode: 'chat' | 'autonomous';
  sandbox_session_id: string;
  /** The config in force (version `config_version`), null before the first version. */
  config: AgentSettings | null;
  config_version: number;
  config_hash: string | null;
  /** The leaf hash of the version in force: the next version's record is chained to it. */
  config_leaf_hash: string | null;
  /** Every config version's content, by version number. */
  versions: PersistentMap<AgentSettings>;
  checkpoints: PersistentMap<CheckpointState>;
  /** The agent's keys by key id: revoked or not. */
  keys: PersistentMap<{ revoked: boolean }>;
  /** The policy its actions' gates apply; null: the default (`DEFAULT_AGENT_POLICY`). */
  policy: AgentPolicy | null;
  /** Observables, consecutive blocks and lifecycle (ACTIVE, QUARANTINE), folded over its actions' verdicts. */
  governance: AgentGovernanceState;
  /** Governed actions decided on the UTC day `day` (YYYY-MM-DD): the daily quota's count. */
  actions_today: { day: string; count: number };
  /** Escalated actions held for a person's review, by leaf hash (hex). */
  pending_review: PersistentMap<{ action_type: string; decided_at: string }>;
}

function initialAgentState(): AgentState {
  return {
    exists: false,
    deleted: false,
    agent_id: '',
    owner_id: '',
    tenant_id: '',
    state: 'stopped',
    mode: 'chat',
    sandbox_session_id: '',
    config: null,
    config_version: 0,
    config_hash: null,
    config_leaf_hash: null,
    versions: PersistentMap.empty(),
    checkpoints: PersistentMap.empty(),
    keys: PersistentMap.empty(),
    policy: null,
    governance: initialAgentGovernance(),
    actions_today: { day: '', count: 0 },
    pending_review: PersistentMap.empty(),
  };
}

function evolveAgent(state: AgentState, event: AgentEvent): AgentState {
  switch (event.type) {
    case 'AgentCreated': {
      const data = event.data;
      return {
        ...state,
        exists: true,
        agent_id: data.agent_id,
        owner_id: data.owner_id,
        tenant_id: data.tenant_id,
        sandbox_session_id: data.sandbox_session_id,
      };
    }
    case 'AgentConfigVersioned': {
      const data = event.data;
      return {
        ...state,
        config: data.config,
        config_version: data.version,
        config_hash: data.config_hash,
        config_leaf_hash: data.leaf_hash,
        versions: state.versions.set(String(data.version), data.config),
      };
    }
    case 'AgentStarted':
      return { ...state, state: 'running', sandbox_session_id: event.data.sandbox_session_id };
    case 'AgentStopped':
      return { ...state, state: 'stopped' };
    case 'AgentCheckpointCreated': {
      const { checkpoint_id, config_version, profile_version, memory_position } = event.data;
      return {
        ...state,
        checkpoints: state.checkpoints.set(checkpoint_id, {
          config_version,
          profile_version,
          memory_position,
        }),
      };
    }
    case 'AgentModeChanged':
      return { ...state, mode: event.data.mode };
    case 'AgentDeleted':
      return { ...state, deleted: true, state: 'stopped' };
    case 'ApiKeyCreated':
      return { ...state, keys: state.keys.set(event.data.key_id, { revoked: false }) };
    case 'ApiKeyRevoked':
      return { ...state, keys: state.keys.set(event.data.key_id, { revoked: true }) };
    case 'AgentPolicyChanged':
      return { ...state, policy: event.data.policy };
    case 'AgentActionDecided': {
      const data = event.data;
      const day = data.decided_at.slice(0, 10);
      const count = state.actions_today.day === day ? state.actions_today.count + 1 : 1;
      return {
        ...state,
        governance: evolveAgentGovernance(state.governance, actionDecisionOutcome(data)),
        actions_today: { day, count },
        pending_review:
          data.verdict === 'ESCALATE'
            ? state.pending_review.set(data.leaf_hash, {
                action_type: data.action_type,
                decided_at: data.decided_at,
              })
            : state.pending_review,
      };
    }
    default:
      // AgentPassportIssued, AgentRestored: recorded for the read side; no rule reads them.
      return state;
  }
}

export const agentAggregate: Aggregate<AgentState, AgentEvent> = {
  initial: initialAgentState,
  evolve: evolveAgent,
};

export function agentStream(agentId: string): string {
  return `agent-${agentId}`;
}

/** What every agent command knows besides its body: the time and the request it came with. */
export interface AgentCommandContext {
  now: Date;
  correlationId: string;
}

/** An event of the agent's stream, with the metadata every agent command gives its events. */
export function agentEvent<T extends AgentEventType>(
  tenantId: string,
  context: Pick<AgentCommandContext, 'correlationId'>,
  type: T,
  data: EventPayloads[T],
): NewEventOf<AgentEvent> {
  return {
    type,
    data,
    tenant_id: tenantId,
    correlation_id: context.correlationId,
    causation_id: null,
  } as NewEventOf<AgentEvent>;
}
