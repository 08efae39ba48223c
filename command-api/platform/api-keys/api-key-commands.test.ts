/** Given/when/then for an agent's API keys: create (hash only, scopes), revoke once, none for a deleted agent. */
import { deciderSpecification, refusedWith } from '../../engine/decider-specification';
import type { AgentDecision } from '../agents/agent-commands';
import { type AgentEvent, type AgentState, agentAggregate } from '../agents/agent-state';
import {
  API_KEY_SCOPES,
  decideCreateApiKey,
  decideRevokeApiKey,
  MAX_KEYS_PER_AGENT,
} from './api-key-commands';

const AGENT = `svc_${'a'.repeat(26)}`;
const TENANT = `ten_${'2'.repeat(24)}`;
const NOW = new Date('2026-03-01T10:00:00.000Z');
const context = { now: NOW, correlationId: 'c' };
const keyId = (n: number) => `key_${n.toString(16).padStart(24, '0')}`;
const HASH = 'f'.repeat(64);

type Command =
  | { type: 'create'; n: number; name?: string; scopes?: string[] }
  | { type: 'revoke'; n: number };

const decide = (state: AgentState, command: Command): AgentDecision<unknown> =>
  command.type === 'create'
    ? decideCreateApiKey(
        state,
        {
          ...(command.name ? { name: command.name } : {}),
          ...(command.scopes ? { scopes: command.scopes as never } : {}),
        },
        { keyId: keyId(command.n), prefix: 'svc_sk_abcdefg', hash: HASH },
        context,
      )
    : decideRevokeApiKey(state, keyId(command.n), context);

const given = deciderSpecification(agentAggregate, decide);

const created: AgentEvent = {
  type: 'AgentCreated',
  data: {
    agent_id: AGENT,
    owner_id: `usr_${'1'.repeat(24)}`,
    tenant_id: TENANT,
    name: 'A',
    model: 'offline',
    model_provider: 'offline',
    governance_mode: 'enforce',
    sandbox_session_id: `sbx_${'3'.repeat(24)}`,
    created_at: NOW.toISOString(),
  },
};
const keyCreated = (n: number): AgentEvent => ({
  type: 'ApiKeyCreated',
  data: {
    agent_id: AGENT,
    key_id: keyId(n),
    name: null,
    prefix: 'svc_sk_abcdefg',
    key_hash: HASH,
    scopes: ['chat'],
    created_at: NOW.toISOString(),
  },
});

describe('API keys of an agent', () => {
  it('given an agent, when a key is made without scopes, then ApiKeyCreated with its hash and every scope', () => {
    given([created])
      .when({ type: 'create', n: 1, name: 'ci' })
      .then([
        {
          type: 'ApiKeyCreated',
          data: {
            agent_id: AGENT,
            key_id: keyId(1),
            name: 'ci',
            prefix: 'svc_sk_abcdefg',
            key_hash: HASH,
            scopes: [...API_KEY_SCOPES],
            created_at: NOW.toISOString(),
          },
        },
      ]);
  });

  it('given an agent, when a key is made with scopes, then it holds just those', () => {
    given([created])
      .when({ type: 'create', n: 1, scopes: ['chat', 'memory:read'] })
      .then([
        { ...keyCreated(1), data: { ...keyCreated(1).data, scopes: ['chat', 'memory:read'] } } as AgentEvent,
      ]);
  });

  it(`given ${MAX_KEYS_PER_AGENT} keys in force, when another is made, then 409 conflict; after a revocation it is made`, () => {
    const full = Array.from({ length: MAX_KEYS_PER_AGENT }, (_, i) => keyCreated(i + 1));
    given([created, ...full])
      .when({ type: 'create', n: 999 })
      .thenThrows(refusedWith('conflict', 409));
    const revoked: AgentEvent = {
      type: 'ApiKeyRevoked',
      data: { agent_id: AGENT, key_id: keyId(1), revoked_at: NOW.toISOString() },
    };
    given([created, ...full, revoked])
      .when({ type: 'create', n: 999 })
      .then([
        { ...keyCreated(999), data: { ...keyCreated(999).data, scopes: [...API_KEY_SCOPES] } } as AgentEvent,
      ]);
  });

  it('given a key, when revoked, then ApiKeyRevoked; revoked again or unknown, then 404 not_found', () => {
    given([created, keyCreated(1)])
      .when({ type: 'revoke', n: 1 })
      .then([
        { type: 'ApiKeyRevoked', data: { agent_id: AGENT, key_id: keyId(1), revoked_at: NOW.toISOString() } },
      ]);
    const revoked: AgentEvent = {
      type: 'ApiKeyRevoked',
      data: { agent_id: AGENT, key_id: keyId(1), revoked_at: NOW.toISOString() },
    };
    given([created, keyCreated(1), revoked])
      .when({ type: 'revoke', n: 1 })
      .thenThrows(refusedWith('not_found', 404));
    given([created]).when({ type: 'revoke', n: 2 }).thenThrows(refusedWith('not_found', 404));
  });

  it('given a deleted agent, when a key is made, then 404 not_found', () => {
    const deleted: AgentEvent = {
      type: 'AgentDeleted',
      data: { agent_id: AGENT, deleted_by: `usr_${'1'.repeat(24)}`, deleted_at: NOW.toISOString() },
    };
    given([created, deleted]).when({ type: 'create', n: 1 }).thenThrows(refusedWith('not_found', 404));
  });
});
