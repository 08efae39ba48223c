/**
 * The agent's lifecycle and configuration, decided against its stream (pure: the handler brings the
 * ids, nonces and the log; `seal` signs records, which is computation). Every change of name, model,
 * provider or governance mode is a new signed config version chained to the one before; history is
 * never rewritten (a rollback or restore appends a version equal in content to an old one).
 */
import { canonicalHash } from '../../../domain/governance/hash';
import type {
  AgentConfig,
  AgentConfigVersioned,
  AgentPassport,
  AgentSettings,
  ChangeAgentModeBody,
  CreateAgentBody,
  UpdateAgentBody,
} from '../../../event-schemas';
import type { Decision, NewEventOf } from '../../engine/aggregate-writer';
import { type Refusal, refused } from '../refusal';
import { type AgentCommandContext, type AgentEvent, type AgentState, agentEvent } from './agent-state';

/** The built-in offline model: an agent made without naming a model runs on it. */
const DEFAULT_MODEL = 'offline';
const DEFAULT_MODEL_PROVIDER = 'offline';
const DEFAULT_GOVERNANCE_MODE: AgentSettings['governance_mode'] = 'enforce';

/** A signed record, and its RFC 9162 leaf hash (64 hex). */
export interface SealedLeaf<R> {
  record: R;
  leaf_hash: string;
}

/** Makes and signs the agent's leaf records (GOV_AGENT_CONFIG_V1, GOV_AGENT_PASSPORT_V1) with the node key. */
export interface AgentRecordSealer {
  config(input: {
    agentId: string;
    tenantId: string;
    version: number;
    config: AgentSettings;
    /** hex SHA-256 of the config's canonical JSON: committed to with the nonce, never published as it is. */
    configHash: string;
    /** The leaf hash of the version before (null for version 1): the chain of signed versions. */
    previousLeafHash: string | null;
    nonce: string;
    at: string;
  }): SealedLeaf<AgentConfig>;
  passport(input: {
    agentId: string;
    ownerId: string;
    tenantId: string;
    createdAt: string;
    /** The leaf hash of config version 1. */
    configLeafHash: string;
    /** A fresh 32-byte nonce (hex) for the commitment to the owner. */
    ownerNonce: string;
  }): SealedLeaf<AgentPassport>;
}

/** What a command that appends a leaf needs besides the time: where the leaf goes, and its signer. */
export interface LeafContext extends AgentCommandContext {
  /** The owner's tenant's log, read by the handler before the decision (domain/governance/tenant-log.ts). */
  log: string;
  seal: AgentRecordSealer;
  /** A fresh 32-byte nonce (hex) for the config version's commitment. */
  nonce: string;
}

export type AgentRefusal = Refusal<'not_found' | 'agent_running' | 'agent_not_running'>;

export type AgentDecision<R> = Decision<R | AgentRefusal, AgentEvent>;

const NO_AGENT = refused(404, 'not_found', 'No such agent.');

/** A refusal for an agent that does not exist or was deleted: it refuses everything. */
export function refuseMissing(state: AgentState): AgentRefusal | null {
  return state.exists && !state.deleted ? null : NO_AGENT;
}

/** hex SHA-256 of the config's canonical JSON: what versions are chained and compared by. */
export function configHash(config: AgentSettings): string {
  return canonicalHash(config);
}

export interface CreateAgentInput {
  agentId: string;
  ownerId: string;
  tenantId: string;
  sandboxSessionId: string;
  /** A fresh 32-byte nonce (hex) for the passport's commitment to the owner. */
  ownerNonce: string;
  body: CreateAgentBody;
}

export type CreateAgentResult = { kind: 'created'; passport_leaf_hash: string };

/** Creates the agent: stopped, in chat mode, config version 1, and its passport (two leaves). */
export function decideCreateAgent(
  state: AgentState,
  input: CreateAgentInput,
  context: LeafContext,
): AgentDecision<CreateAgentResult> {
  if (state.exists) throw new Error(`agent ${input.agentId} exists already`);
  const at = context.now.toISOString();
  const config: AgentSettings = {
    name: input.body.agent_name ?? `Agent ${input.agentId.slice(4, 10)}`,
    model: input.body.model ?? DEFAULT_MODEL,
    model_provider: input.body.model_provider ?? DEFAULT_MODEL_PROVIDER,
    governance_mode: input.body.governance_mode ?? DEFAULT_GOVERNANCE_MODE,
  };
  const tenantId = input.tenantId;
  const created = agentEvent(tenantId, context, 'AgentCreated', {
    agent_id: input.agentId,
    owner_id: input.ownerId,
    tenant_id: tenantId,
    ...config,
    sandbox_session_id: input.sandboxSessionId,
    created_at: at,
  });
  const version = configVersion(
    {
      agent_id: input.agentId,
      tenant_id: tenantId,
      config_version: 0,
      config_hash: null,
      config_leaf_hash: null,
    },
    config,
    'create',
    context,
  );
  const passport = context.seal.passport({
    agentId: input.agentId,
    ownerId: input.ownerId,
    tenantId,
    createdAt: at,
    configLeafHash: version.leaf_hash,
    ownerNonce: input.ownerNonce,
  });
  const issued = agentEvent(tenantId, context, 'AgentPassportIssued', {
    agent_id: input.agentId,
    tenant_id: tenantId,
    record: passport.record,
    leaf_hash: passport.leaf_hash,
    log: context.log,
    owner_nonce: input.ownerNonce,
    issued_at: at,
  });
  return {
    events: [created, agentEvent(tenantId, context, 'AgentConfigVersioned', version), issued],
    result: { kind: 'created', passport_leaf_hash: passport.leaf_hash },
  };
}

/** The next config version's event: `config` as version n+1, chained to version n, sealed. */
function configVersion(
  state: Pick<AgentState, 'agent_id' | 'tenant_id' | 'config_version' | 'config_hash' | 'config_leaf_hash'>,
  config: AgentSettings,
  cause: AgentConfigVersioned['cause'],
  context: LeafContext,
  fromVersion?: number,
): AgentConfigVersioned {
  const version = state.config_version + 1;
  const hash = configHash(config);
  const at = context.now.toISOString();
  const sealed = context.seal.config({
    agentId: state.agent_id,
    tenantId: state.tenant_id,
    version,
    config,
    configHash: hash,
    previousLeafHash: state.config_leaf_hash,
    nonce: context.nonce,
    at,
  });
  return {
    agent_id: state.agent_id,
    tenant_id: state.tenant_id,
    version,
    config,
    config_hash: hash,
    previous_config_hash: state.config_hash,
    cause,
    ...(fromVersion === undefined ? {} : { from_version: fromVersion }),
    record: sealed.record,
    leaf_hash: sealed.leaf_hash,
    log: context.log,
    nonce: context.nonce,
    versioned_at: at,
  };
}

/** `changed`: a new version was appended; `unchanged`: the config was already that (nothing appended). */
export type ConfigResult = { kind: 'changed' | 'unchanged'; config_version: number };

/**
 * Applies `config` as the next version unless it is the one in force (the same canonical JSON):
 * then nothing is appended.
 */
function reconfigure(
  state: AgentState,
  config: AgentSettings,
  cause: AgentConfigVersioned['cause'],
  context: LeafContext,
  fromVersion?: number,
): { events: NewEventOf<AgentEvent>[]; result: ConfigResult } {
  if (configHash(config) === state.config_hash)
    return { events: [], result: { kind: 'unchanged', config_version: state.config_version } };
  const data = configVersion(state, config, cause, context, fromVersion);
  return {
    events: [agentEvent(state.tenant_id, context, 'AgentConfigVersioned', data)],
    result: { kind: 'changed', config_version: data.version },
  };
}

/** PATCH: the members given replace the config's; a change is one new version, none is nothing. */
export function decideUpdateAgent(
  state: AgentState,
  body: UpdateAgentBody,
  context: LeafContext,
): AgentDecision<ConfigResult> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  const current = state.config as AgentSettings;
  const config: AgentSettings = {
    name: body.agent_name ?? current.name,
    model: body.model ?? current.model,
    model_provider: body.model_provider ?? current.model_provider,
    governance_mode: body.governance_mode ?? current.governance_mode,
  };
  return reconfigure(state, config, 'update', context);
}

/** A new version equal in content to `version` (history is never rewritten). */
export function decideRollback(
  state: AgentState,
  version: number,
  context: LeafContext,
): AgentDecision<ConfigResult> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  const old = state.versions.get(String(version));
  if (!old)
    return {
      events: [],
      result: refused(
        404,
        'not_found',
        `The agent has no config version ${version}: its versions are 1 to ${state.config_version}.`,
      ),
    };
  return reconfigure(state, old, 'rollback', context, version);
}

export type RestoreResult = ConfigResult & { checkpoint_id: string };

/**
 * Brings the config back to the checkpoint's version (a new version, unless it is the one in force)
 * and records the restore. Profile and memory have nothing to restore yet: the checkpoint names
 * profile version 0 and memory position 0 until they exist.
 */
export function decideRestore(
  state: AgentState,
  checkpointId: string,
  context: LeafContext,
): AgentDecision<RestoreResult> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  const checkpoint = state.checkpoints.get(checkpointId);
  if (!checkpoint)
    return {
      events: [],
      result: refused(
        404,
        'not_found',
        `The agent has no checkpoint ${checkpointId}: GET .../checkpoints lists them.`,
      ),
    };
  const config = state.versions.get(String(checkpoint.config_version)) as AgentSettings;
  const { events, result } = reconfigure(state, config, 'restore', context, checkpoint.config_version);
  const restored = agentEvent(state.tenant_id, context, 'AgentRestored', {
    agent_id: state.agent_id,
    checkpoint_id: checkpointId,
    config_version: result.config_version,
    restored_at: context.now.toISOString(),
  });
  return { events: [...events, restored], result: { ...result, checkpoint_id: checkpointId } };
}

export type StartResult = { kind: 'started'; sandbox_session_id: string };

/** stopped → running, in a new runtime session. */
export function decideStart(
  state: AgentState,
  sandboxSessionId: string,
  context: AgentCommandContext,
): AgentDecision<StartResult> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  if (state.state === 'running')
    return {
      events: [],
      result: refused(409, 'agent_running', 'The agent is running already: stop it first to start it anew.'),
    };
  return {
    events: [
      agentEvent(state.tenant_id, context, 'AgentStarted', {
        agent_id: state.agent_id,
        sandbox_session_id: sandboxSessionId,
        started_at: context.now.toISOString(),
      }),
    ],
    result: { kind: 'started', sandbox_session_id: sandboxSessionId },
  };
}

export type StopResult = { kind: 'stopped'; checkpoint_id: string; config_version: number };

/** running → stopped, with an automatic checkpoint of the config version (and profile, memory) in force. */
export function decideStop(
  state: AgentState,
  checkpointId: string,
  context: AgentCommandContext,
): AgentDecision<StopResult> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  if (state.state !== 'running')
    return {
      events: [],
      result: refused(409, 'agent_not_running', 'The agent is not running: start it before stopping it.'),
    };
  const at = context.now.toISOString();
  return {
    events: [
      agentEvent(state.tenant_id, context, 'AgentStopped', { agent_id: state.agent_id, stopped_at: at }),
      agentEvent(state.tenant_id, context, 'AgentCheckpointCreated', {
        agent_id: state.agent_id,
        checkpoint_id: checkpointId,
        config_version: state.config_version,
        profile_version: 0,
        memory_position: 0,
        cause: 'stop',
        created_at: at,
      }),
    ],
    result: { kind: 'stopped', checkpoint_id: checkpointId, config_version: state.config_version },
  };
}

export type ModeResult = { kind: 'changed' | 'unchanged'; mode: ChangeAgentModeBody['mode'] };

/** chat ⇄ autonomous; the mode in force again changes nothing. */
export function decideChangeMode(
  state: AgentState,
  mode: ChangeAgentModeBody['mode'],
  context: AgentCommandContext,
): AgentDecision<ModeResult> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  if (state.mode === mode) return { events: [], result: { kind: 'unchanged', mode } };
  return {
    events: [
      agentEvent(state.tenant_id, context, 'AgentModeChanged', {
        agent_id: state.agent_id,
        mode,
        changed_at: context.now.toISOString(),
      }),
    ],
    result: { kind: 'changed', mode },
  };
}

export type DeleteResult = { kind: 'deleted'; deleted_at: string };

/** Permanent: the agent refuses everything after it, and its keys stop working. */
export function decideDeleteAgent(
  state: AgentState,
  deletedBy: string,
  context: AgentCommandContext,
): AgentDecision<DeleteResult> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  const at = context.now.toISOString();
  return {
    events: [
      agentEvent(state.tenant_id, context, 'AgentDeleted', {
        agent_id: state.agent_id,
        deleted_by: deletedBy,
        deleted_at: at,
      }),
    ],
    result: { kind: 'deleted', deleted_at: at },
  };
}
