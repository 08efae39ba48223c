/**
 * Specifications of the agents projection: given an agent's events (as its deciders make them), then
 * the agent, its config versions, checkpoints and keys; a redelivered batch leaves the same documents.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { AgentDecision } from '../../command-api/platform/agents/agent-commands';
import {
  decideChangeMode,
  decideCreateAgent,
  decideDeleteAgent,
  decideStart,
  decideStop,
  decideUpdateAgent,
} from '../../command-api/platform/agents/agent-commands';
import { nodeRecordSealer } from '../../command-api/platform/agents/agent-records';
import { type AgentState, agentAggregate } from '../../command-api/platform/agents/agent-state';
import { decideCreateApiKey, decideRevokeApiKey } from '../../command-api/platform/api-keys/api-key-commands';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { INITIAL_OBSERVABLES, nudge, type ObservableOutcome } from '../../domain/governance/observables';
import { initialAgentGovernance } from '../../domain/platform/verdict';
import { ProjectionSpecification, type SpecEvent } from '../engine/projection-spec';
import {
  AGENT_API_KEYS,
  AGENT_CHECKPOINTS,
  AGENT_CONFIG_VERSIONS,
  AGENTS,
  type AgentView,
  agentsProjection,
  configVersionId,
} from './agents';

const given = ProjectionSpecification.for(agentsProjection);
const AGENT = `svc_${'a'.repeat(26)}`;
const OWNER = `usr_${'1'.repeat(24)}`;
const TENANT = `ten_${'2'.repeat(24)}`;
const SESSION = `sbx_${'3'.repeat(24)}`;
const SESSION_2 = `sbx_${'4'.repeat(24)}`;
const CHECKPOINT = `chk_${'5'.repeat(24)}`;
const KEY = `key_${'6'.repeat(24)}`;
const NONCE = '7'.repeat(64);
const NOW = new Date('2026-03-01T10:00:00.000Z');
const LATER = new Date('2026-03-01T11:00:00.000Z');
const node = generateKeyPairSync('ed25519');
const seal = nodeRecordSealer({ privateKey: node.privateKey, nodeId: authorityNodeIdOf(node.publicKey) });

/** The events of each decision in turn, each decided on the state the ones before left. */
function events(...decisions: Array<(state: AgentState) => AgentDecision<unknown>>): SpecEvent[] {
  let state = agentAggregate.initial();
  const out: SpecEvent[] = [];
  for (const decide of decisions)
    for (const event of decide(state).events) {
      state = agentAggregate.evolve(state, event);
      out.push({ type: event.type, data: event.data as object, stream: `agent-${AGENT}` });
    }
  return out;
}

const leaf = (now = NOW) => ({ now, correlationId: 'c', log: 'shared', seal, nonce: NONCE });
const create = (state: AgentState) =>
  decideCreateAgent(
    state,
    {
      agentId: AGENT,
      ownerId: OWNER,
      tenantId: TENANT,
      sandboxSessionId: SESSION,
      ownerNonce: 'b'.repeat(64),
      body: { agent_name: 'Scout' },
    },
    leaf(),
  );

const history = events(
  create,
  (state) => decideUpdateAgent(state, { model: 'm2' }, leaf(LATER)),
  (state) => decideStart(state, SESSION_2, leaf(LATER)),
  (state) => decideStop(state, CHECKPOINT, leaf(LATER)),
  (state) => decideChangeMode(state, 'autonomous', leaf(LATER)),
  (state) =>
    decideCreateApiKey(
      state,
      { name: 'ci', scopes: ['chat'] },
      { keyId: KEY, prefix: 'svc_sk_abcdefg', hash: 'f'.repeat(64) },
      leaf(LATER),
    ),
);
const passport = (history[2]!.data as { leaf_hash: string }).leaf_hash;

const agent: AgentView = {
  agent_id: AGENT,
  owner_id: OWNER,
  tenant_id: TENANT,
  name: 'Scout',
  model: 'm2',
  model_provider: 'offline',
  governance_mode: 'enforce',
  state: 'stopped',
  mode: 'autonomous',
  config_version: 2,
  passport_leaf_hash: passport,
  sandbox_session_id: SESSION_2,
  created_at: NOW.toISOString(),
  updated_at: LATER.toISOString(),
  last_activity_at: LATER.toISOString(),
  deleted: false,
  governance: initialAgentGovernance(),
};

/** The agent as `create` alone leaves it. */
const created: AgentView = {
  ...agent,
  model: 'offline',
  mode: 'chat',
  config_version: 1,
  sandbox_session_id: SESSION,
  updated_at: NOW.toISOString(),
  last_activity_at: NOW.toISOString(),
};

/** An action's decision as the projection reads it (the members it asks for, nothing of the content). */
const decided = (verdict: 'ADMIT' | 'BLOCK', failed: string[], at: string): SpecEvent => ({
  type: 'AgentActionDecided',
  stream: `agent-${AGENT}`,
  data: {
    agent_id: AGENT,
    verdict,
    would_block: failed.length > 0,
    gates: ['G1', 'G2', 'G3', 'G4', 'G5'].map((gate) => ({ gate, passed: !failed.includes(gate) })),
    decided_at: at,
  },
});

describe('the agents projection', () => {
  it('given an admitted action and three blocked ones (the last redelivered), then the agent is in QUARANTINE with its observables nudged once each', async () => {
    const at = (minute: number) => `2026-03-01T10:0${minute}:00.000Z`;
    const creation = events(create);
    const actions = [
      decided('ADMIT', [], at(1)),
      decided('BLOCK', ['G1'], at(2)),
      decided('BLOCK', ['G3'], at(3)),
    ];
    const last = decided('BLOCK', ['G1'], at(4));
    const observables = ['NOMINAL', 'DRIFT', 'BREACH', 'DRIFT'].reduce(
      (o, outcome) => nudge(o, outcome as ObservableOutcome),
      { ...INITIAL_OBSERVABLES },
    );
    await given([...creation, ...actions])
      .when([last], { numberOfTimes: 2 })
      .thenDocuments({
        [AGENTS]: {
          [AGENT]: {
            ...created,
            last_activity_at: at(4),
            governance: {
              lifecycle: 'QUARANTINE',
              observables,
              consecutive_blocks: 3,
              admitted: 1,
              blocked: 3,
              escalated: 0,
              pending_reviews: 0,
              quarantined_at: at(4),
              updated_at: at(4),
            },
          },
        },
      });
  });

  it('given an agent made, changed, started, stopped, in autonomous mode, with a key, then its documents', async () => {
    const versionData = (i: number) =>
      history.filter((event) => event.type === 'AgentConfigVersioned')[i]!.data as Record<string, unknown>;
    const versionDoc = (i: number) => {
      const { config, cause, nonce, record, leaf_hash, log, versioned_at, version } = versionData(i);
      return {
        agent_id: AGENT,
        version,
        config,
        cause,
        from_version: null,
        nonce,
        record,
        leaf_hash,
        log,
        versioned_at,
      };
    };
    await given(history).thenDocuments({
      [AGENTS]: { [AGENT]: agent },
      [AGENT_CONFIG_VERSIONS]: {
        [configVersionId(AGENT, 1)]: versionDoc(0),
        [configVersionId(AGENT, 2)]: versionDoc(1),
      },
      [AGENT_CHECKPOINTS]: {
        [CHECKPOINT]: {
          agent_id: AGENT,
          checkpoint_id: CHECKPOINT,
          config_version: 2,
          profile_version: 0,
          memory_position: 0,
          cause: 'stop',
          created_at: LATER.toISOString(),
        },
      },
      [AGENT_API_KEYS]: {
        [KEY]: {
          key_id: KEY,
          agent_id: AGENT,
          owner_id: OWNER,
          tenant_id: TENANT,
          name: 'ci',
          prefix: 'svc_sk_abcdefg',
          key_hash: 'f'.repeat(64),
          scopes: ['chat'],
          created_at: LATER.toISOString(),
          revoked_at: null,
        },
      },
    });
  });

  it('given a key, when it is revoked and the agent deleted (delivered twice), then the key is revoked and the agent deleted', async () => {
    const more = events(
      create,
      (state) =>
        decideCreateApiKey(state, {}, { keyId: KEY, prefix: 'svc_sk_abcdefg', hash: 'f'.repeat(64) }, leaf()),
      (state) => decideRevokeApiKey(state, KEY, leaf(LATER)),
      (state) => decideDeleteAgent(state, OWNER, leaf(LATER)),
    );
    const revokedAndDeleted = more.slice(-2);
    const before = more.slice(0, -2);
    const at = LATER.toISOString();
    await given(before)
      .when(revokedAndDeleted, { numberOfTimes: 2 })
      .thenDocuments({
        [AGENTS]: {
          [AGENT]: {
            ...created,
            updated_at: at,
            last_activity_at: at,
            deleted: true,
          },
        },
        [AGENT_API_KEYS]: {
          [KEY]: {
            key_id: KEY,
            agent_id: AGENT,
            owner_id: OWNER,
            tenant_id: TENANT,
            name: null,
            prefix: 'svc_sk_abcdefg',
            key_hash: 'f'.repeat(64),
            scopes: ['agent:read', 'agent:write', 'chat', 'memory:read', 'memory:write', 'tools'],
            created_at: NOW.toISOString(),
            revoked_at: at,
          },
        },
      });
  });
});
