/**
 * The agents read model: agents by id (and by owner, for the list) with their governance record
 * (observables and lifecycle, folded over their actions' verdicts as the agent's stream folds them),
 * their config versions (with what GET .../version-health checks the signed chain with), checkpoints,
 * and their API keys (by key id, found by hash for authentication). A projection of the agents'
 * streams, so a restart rebuilds it.
 */
import {
  type AgentGovernanceState,
  actionDecisionOutcome,
  evolveAgentGovernance,
  initialAgentGovernance,
} from '../../domain/platform/verdict';
import type { AgentConfig, AgentSettings, EventPayloads } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change } from '../../ports/read-store';
import type { Projection, ProjectionState } from '../engine/projection';

export interface AgentView extends AgentSettings {
  agent_id: string;
  owner_id: string;
  tenant_id: string;
  state: 'stopped' | 'running';
  mode: 'chat' | 'autonomous';
  config_version: number;
  /** Hex leaf hash of the passport (null until AgentPassportIssued, in the same append as the creation). */
  passport_leaf_hash: string | null;
  sandbox_session_id: string;
  created_at: string;
  /** When the config, the mode or the state last changed. */
  updated_at: string;
  /** When anything last happened to the agent (keys and governed actions included). */
  last_activity_at: string;
  deleted: boolean;
  /** Observables, consecutive blocks and lifecycle, folded over the verdicts of its governed actions. */
  governance: AgentGovernanceState;
}

export interface ConfigVersionView {
  agent_id: string;
  version: number;
  config: AgentSettings;
  cause: EventPayloads['AgentConfigVersioned']['cause'];
  from_version: number | null;
  nonce: string;
  record: AgentConfig;
  leaf_hash: string;
  log: string;
  versioned_at: string;
}

export interface CheckpointView {
  agent_id: string;
  checkpoint_id: string;
  config_version: number;
  profile_version: number;
  memory_position: number;
  cause: 'stop';
  created_at: string;
}

export interface AgentKeyView {
  key_id: string;
  agent_id: string;
  owner_id: string;
  tenant_id: string;
  name: string | null;
  prefix: string;
  key_hash: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

export const AGENTS = 'agents';
export const AGENT_CONFIG_VERSIONS = 'agent_config_versions';
export const AGENT_CHECKPOINTS = 'agent_checkpoints';
export const AGENT_API_KEYS = 'agent_api_keys';

/** A config version's document id: the agent and the version, zero-padded so ids sort by version. */
export function configVersionId(agentId: string, version: number): string {
  return `${agentId}.${String(version).padStart(8, '0')}`;
}

/** Every event of an agent's stream (`agent-<id>`): the aggregate folds them, this read model reads them. */
export const AGENT_EVENT_TYPES = [
  'AgentCreated',
  'AgentConfigVersioned',
  'AgentPassportIssued',
  'AgentStarted',
  'AgentStopped',
  'AgentCheckpointCreated',
  'AgentRestored',
  'AgentModeChanged',
  'AgentDeleted',
  'ApiKeyCreated',
  'ApiKeyRevoked',
  'AgentActionDecided',
] as const;

export const agentsProjection: Projection = {
  name: 'agents',
  // 2: the governance record, folded over AgentActionDecided.
  version: 2,
  collections: [AGENTS, AGENT_CONFIG_VERSIONS, AGENT_CHECKPOINTS, AGENT_API_KEYS],
  indexes: [
    { collection: AGENTS, fields: ['owner_id', 'deleted'] },
    { collection: AGENT_CONFIG_VERSIONS, fields: ['agent_id'] },
    { collection: AGENT_CHECKPOINTS, fields: ['agent_id'] },
    { collection: AGENT_API_KEYS, fields: ['key_hash'] },
    { collection: AGENT_API_KEYS, fields: ['agent_id'] },
  ],
  eventTypes: AGENT_EVENT_TYPES,
  // Of an action, what its verdict says: never its content, principal or record.
  dataMembers: { AgentActionDecided: ['agent_id', 'verdict', 'would_block', 'gates', 'decided_at'] },
  reads(event) {
    const data = event.data as { agent_id: string; key_id?: string };
    const agent = { collection: AGENTS, id: data.agent_id };
    return event.type === 'ApiKeyRevoked'
      ? [agent, { collection: AGENT_API_KEYS, id: data.key_id! }]
      : [agent];
  },
  async project(event: RecordedEvent, state: ProjectionState): Promise<Change[]> {
    const at = event.position;
    if (event.type === 'AgentCreated') {
      const data = event.data as EventPayloads['AgentCreated'];
      const agent: AgentView = {
        agent_id: data.agent_id,
        owner_id: data.owner_id,
        tenant_id: data.tenant_id,
        name: data.name,
        model: data.model,
        model_provider: data.model_provider,
        governance_mode: data.governance_mode,
        state: 'stopped',
        mode: 'chat',
        config_version: 0,
        passport_leaf_hash: null,
        sandbox_session_id: data.sandbox_session_id,
        created_at: data.created_at,
        updated_at: data.created_at,
        last_activity_at: data.created_at,
        deleted: false,
        governance: initialAgentGovernance(),
      };
      return [{ kind: 'upsert', collection: AGENTS, id: data.agent_id, position: at, data: agent }];
    }
    const agentId = (event.data as { agent_id: string }).agent_id;
    const current = await state.get<AgentView>(AGENTS, agentId);
    if (!current) return [];
    const agent: AgentView = { ...current.data };
    const changes: Change[] = [];
    switch (event.type) {
      case 'AgentConfigVersioned': {
        const data = event.data as EventPayloads['AgentConfigVersioned'];
        Object.assign(agent, data.config, { config_version: data.version, updated_at: data.versioned_at });
        agent.last_activity_at = data.versioned_at;
        const version: ConfigVersionView = {
          agent_id: agentId,
          version: data.version,
          config: data.config,
          cause: data.cause,
          from_version: data.from_version ?? null,
          nonce: data.nonce,
          record: data.record,
          leaf_hash: data.leaf_hash,
          log: data.log,
          versioned_at: data.versioned_at,
        };
        const id = configVersionId(agentId, data.version);
        changes.push({ kind: 'upsert', collection: AGENT_CONFIG_VERSIONS, id, position: at, data: version });
        break;
      }
      case 'AgentPassportIssued':
        agent.passport_leaf_hash = (event.data as EventPayloads['AgentPassportIssued']).leaf_hash;
        break;
      case 'AgentStarted': {
        const data = event.data as EventPayloads['AgentStarted'];
        Object.assign(agent, { state: 'running', sandbox_session_id: data.sandbox_session_id });
        agent.updated_at = agent.last_activity_at = data.started_at;
        break;
      }
      case 'AgentStopped': {
        agent.state = 'stopped';
        agent.updated_at = agent.last_activity_at = (event.data as EventPayloads['AgentStopped']).stopped_at;
        break;
      }
      case 'AgentCheckpointCreated': {
        const data = event.data as EventPayloads['AgentCheckpointCreated'];
        agent.last_activity_at = data.created_at;
        const checkpoint: CheckpointView = { ...data };
        changes.push({
          kind: 'upsert',
          collection: AGENT_CHECKPOINTS,
          id: data.checkpoint_id,
          position: at,
          data: checkpoint,
        });
        break;
      }
      case 'AgentRestored':
        agent.last_activity_at = (event.data as EventPayloads['AgentRestored']).restored_at;
        break;
      case 'AgentModeChanged': {
        const data = event.data as EventPayloads['AgentModeChanged'];
        agent.mode = data.mode;
        agent.updated_at = agent.last_activity_at = data.changed_at;
        break;
      }
      case 'AgentDeleted': {
        const data = event.data as EventPayloads['AgentDeleted'];
        Object.assign(agent, { deleted: true, state: 'stopped' });
        agent.updated_at = agent.last_activity_at = data.deleted_at;
        break;
      }
      case 'ApiKeyCreated': {
        const data = event.data as EventPayloads['ApiKeyCreated'];
        agent.last_activity_at = data.created_at;
        const key: AgentKeyView = {
          key_id: data.key_id,
          agent_id: agentId,
          owner_id: agent.owner_id,
          tenant_id: agent.tenant_id,
          name: data.name,
          prefix: data.prefix,
          key_hash: data.key_hash,
          scopes: data.scopes,
          created_at: data.created_at,
          revoked_at: null,
        };
        changes.push({
          kind: 'upsert',
          collection: AGENT_API_KEYS,
          id: data.key_id,
          position: at,
          data: key,
        });
        break;
      }
      case 'AgentActionDecided': {
        const data = event.data as EventPayloads['AgentActionDecided'];
        agent.governance = evolveAgentGovernance(agent.governance, actionDecisionOutcome(data));
        agent.last_activity_at = data.decided_at;
        break;
      }
      case 'ApiKeyRevoked': {
        const data = event.data as EventPayloads['ApiKeyRevoked'];
        agent.last_activity_at = data.revoked_at;
        const key = await state.get<AgentKeyView>(AGENT_API_KEYS, data.key_id);
        if (key)
          changes.push({
            kind: 'upsert',
            collection: AGENT_API_KEYS,
            id: data.key_id,
            position: at,
            data: { ...key.data, revoked_at: data.revoked_at },
          });
        break;
      }
    }
    changes.push({ kind: 'upsert', collection: AGENTS, id: agentId, position: at, data: agent });
    return changes;
  },
};
