/**
 * What `GET .../event-log` shows of each event of an agent's stream: an allow-list per event type.
 * A member not listed is never shown, so a member added to an event later stays private until it is
 * listed here; an event type not listed shows its type, place and time with empty `data`. Left out on
 * purpose: nonces (they open commitments), content and gate reasons, principals, hashes of secrets
 * (`key_hash`), configs (shown by the agent's own routes), records (public in the log, by leaf hash).
 */
import { leafHashText } from '../../../domain/platform/ids';

const SHOWN: Readonly<Record<string, readonly string[]>> = {
  AgentCreated: [
    'agent_id',
    'name',
    'model',
    'model_provider',
    'governance_mode',
    'sandbox_session_id',
    'created_at',
  ],
  AgentConfigVersioned: [
    'version',
    'config_hash',
    'previous_config_hash',
    'cause',
    'from_version',
    'leaf_hash',
    'log',
    'versioned_at',
  ],
  AgentPassportIssued: ['leaf_hash', 'log', 'issued_at'],
  AgentStarted: ['sandbox_session_id', 'started_at'],
  AgentStopped: ['stopped_at'],
  AgentCheckpointCreated: [
    'checkpoint_id',
    'config_version',
    'profile_version',
    'memory_position',
    'cause',
    'created_at',
  ],
  AgentRestored: ['checkpoint_id', 'config_version', 'restored_at'],
  AgentModeChanged: ['mode', 'changed_at'],
  AgentDeleted: ['deleted_at'],
  ApiKeyCreated: ['key_id', 'name', 'prefix', 'scopes', 'created_at'],
  ApiKeyRevoked: ['key_id', 'revoked_at'],
  AgentActionDecided: [
    'action_type',
    'verdict',
    'would_block',
    'evidence_class',
    'tool_class',
    'leaf_hash',
    'log',
    'decided_at',
  ],
};

/** Members holding a leaf hash (64 hex in events), shown as the API writes them: `sha256:<hex>`. */
const LEAF_HASHES = new Set(['leaf_hash']);
const HEX64 = /^[0-9a-f]{64}$/;

/** The members of `data` an event of `type` shows, in the listing's order. */
export function shownData(type: string, data: unknown): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  const members = SHOWN[type];
  if (!members || typeof data !== 'object' || data === null) return shown;
  const source = data as Record<string, unknown>;
  for (const name of members) {
    if (!(name in source)) continue;
    const value = source[name];
    shown[name] =
      LEAF_HASHES.has(name) && typeof value === 'string' && HEX64.test(value) ? leafHashText(value) : value;
  }
  return shown;
}
