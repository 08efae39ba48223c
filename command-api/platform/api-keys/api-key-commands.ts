/**
 * An agent's API keys, decided against the agent's stream: a deleted agent takes no key, and a key is
 * revoked once. The raw key never reaches an event: the handler makes it (domain/platform/ids.ts
 * `newApiKey`), shows it once, and hands in its id, prefix and SHA-256 hash.
 */
import type { ApiKeyCreated, CreateApiKeyBody } from '../../../event-schemas';
import { type AgentDecision, type AgentRefusal, refuseMissing } from '../agents/agent-commands';
import { type AgentCommandContext, type AgentState, agentEvent } from '../agents/agent-state';
import { type Refusal, refused } from '../refusal';

/** Every scope a key can hold; a key made without `scopes` holds them all. */
export const API_KEY_SCOPES = [
  'agent:read',
  'agent:write',
  'chat',
  'memory:read',
  'memory:write',
  'tools',
] as const;

/** Keys in force per agent: enough for every client of one agent, few enough to list in one page. */
export const MAX_KEYS_PER_AGENT = 50;

export interface IssuedKey {
  keyId: string;
  prefix: string;
  hash: string;
}

export type ApiKeyCreatedResult = {
  kind: 'created';
  key_id: string;
  name: string | null;
  prefix: string;
  scopes: ApiKeyCreated['scopes'];
  created_at: string;
};

export type ApiKeyRefusal = AgentRefusal | Refusal<'conflict'>;

export function decideCreateApiKey(
  state: AgentState,
  body: CreateApiKeyBody,
  key: IssuedKey,
  context: AgentCommandContext,
): AgentDecision<ApiKeyCreatedResult | ApiKeyRefusal> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  let inForce = 0;
  for (const [, entry] of state.keys) if (!entry.revoked) inForce++;
  if (inForce >= MAX_KEYS_PER_AGENT)
    return {
      events: [],
      result: refused(
        409,
        'conflict',
        `The agent has ${MAX_KEYS_PER_AGENT} keys in force, the most it can hold: revoke one first.`,
      ),
    };
  const scopes: ApiKeyCreated['scopes'] = body.scopes ?? [...API_KEY_SCOPES];
  const data = {
    agent_id: state.agent_id,
    key_id: key.keyId,
    name: body.name ?? null,
    prefix: key.prefix,
    key_hash: key.hash,
    scopes,
    created_at: context.now.toISOString(),
  };
  return {
    events: [agentEvent(state.tenant_id, context, 'ApiKeyCreated', data)],
    result: {
      kind: 'created',
      key_id: data.key_id,
      name: data.name,
      prefix: data.prefix,
      scopes,
      created_at: data.created_at,
    },
  };
}

export type ApiKeyRevokedResult = { kind: 'revoked'; key_id: string; revoked_at: string };

/** Revokes a key of this agent in force; an unknown or revoked one is not found. */
export function decideRevokeApiKey(
  state: AgentState,
  keyId: string,
  context: AgentCommandContext,
): AgentDecision<ApiKeyRevokedResult> {
  const missing = refuseMissing(state);
  if (missing) return { events: [], result: missing };
  const key = state.keys.get(keyId);
  if (!key || key.revoked)
    return {
      events: [],
      result: unknownKey(keyId),
    };
  const at = context.now.toISOString();
  return {
    events: [
      agentEvent(state.tenant_id, context, 'ApiKeyRevoked', {
        agent_id: state.agent_id,
        key_id: keyId,
        revoked_at: at,
      }),
    ],
    result: { kind: 'revoked', key_id: keyId, revoked_at: at },
  };
}

/** A key id the agent has no key in force under (unknown, malformed or revoked): 404 not_found. */
export function unknownKey(keyId: string): AgentRefusal {
  return refused(404, 'not_found', `The agent has no key ${keyId} in force: GET .../api-keys lists them.`);
}
