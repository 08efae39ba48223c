/** The vault read model holds provider, prefix and time per agent; never a sealed key. */
import { ProjectionSpecification, type SpecEvent } from '../engine/projection-spec';
import { VAULT_ENTRIES, vaultProjection } from './vault';

const given = ProjectionSpecification.for(vaultProjection);
const USER = `usr_${'a'.repeat(24)}`;
const AGENT = `svc_${'a'.repeat(26)}`;
const SEALED = `v1.${'i'.repeat(16)}.${'t'.repeat(22)}.${'c'.repeat(40)}`;
const at = '2026-03-01T10:00:00.000Z';

const stored = (provider: 'openai' | 'google', prefix: string): SpecEvent => ({
  type: 'VaultKeyStored',
  stream: `user-${USER}`,
  data: {
    user_id: USER,
    agent_id: AGENT,
    provider,
    prefix,
    data_key_id: `dk_${'1'.repeat(16)}`,
    sealed_key: SEALED,
    stored_at: at,
  },
});

describe('the vault projection', () => {
  it('given keys stored, replaced and deleted, then one entry per provider left, without the sealed key', async () => {
    await given([stored('openai', 'sk-aaaaa…'), stored('google', 'AIzaSyAA…'), stored('openai', 'sk-bbbbb…')])
      .when([
        {
          type: 'VaultKeyDeleted',
          stream: `user-${USER}`,
          data: { user_id: USER, agent_id: AGENT, provider: 'google', deleted_at: at },
        },
      ])
      .thenDocuments({
        [VAULT_ENTRIES]: {
          [`${AGENT}/openai`]: {
            agent_id: AGENT,
            user_id: USER,
            provider: 'openai',
            prefix: 'sk-bbbbb…',
            stored_at: at,
          },
        },
      });
  });
});
