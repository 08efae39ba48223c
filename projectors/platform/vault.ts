/**
 * The vault read model: for each agent, the providers it has a key for, with the key's prefix and when
 * it was stored. Never the key, its ciphertext or the wrapped data key: those stay in the user's stream.
 */
import type { EventPayloads } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change } from '../../ports/read-store';
import type { Projection } from '../engine/projection';

export interface VaultEntryView {
  agent_id: string;
  user_id: string;
  provider: 'openai' | 'anthropic' | 'google';
  prefix: string;
  stored_at: string;
}

export const VAULT_ENTRIES = 'platform_vault_entries';

/** What the vault's writes are awaited on (read-your-write). */
export const VAULT_EVENT_TYPES = ['VaultKeyStored', 'VaultKeyDeleted'] as const;

export const vaultProjection: Projection = {
  name: 'platform-vault',
  version: 1,
  collections: [VAULT_ENTRIES],
  indexes: [{ collection: VAULT_ENTRIES, fields: ['agent_id'] }],
  eventTypes: VAULT_EVENT_TYPES,
  // The sealed key is not even read.
  dataMembers: { VaultKeyStored: ['agent_id', 'user_id', 'provider', 'prefix', 'stored_at'] },
  async project(event: RecordedEvent): Promise<Change[]> {
    const { position } = event;
    if (event.type === 'VaultKeyStored') {
      const { agent_id, user_id, provider, prefix, stored_at } =
        event.data as EventPayloads['VaultKeyStored'];
      const entry: VaultEntryView = { agent_id, user_id, provider, prefix, stored_at };
      return [
        { kind: 'upsert', collection: VAULT_ENTRIES, id: `${agent_id}/${provider}`, position, data: entry },
      ];
    }
    if (event.type === 'VaultKeyDeleted') {
      const { agent_id, provider } = event.data as EventPayloads['VaultKeyDeleted'];
      return [{ kind: 'delete', collection: VAULT_ENTRIES, id: `${agent_id}/${provider}`, position }];
    }
    return [];
  },
};
