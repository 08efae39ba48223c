/**
 * The vault's decisions, against the user's stream (`user-<usr_…>`): a model key stored for one agent
 * and provider (replacing the one before), or deleted. Pure: the handler seals the key before (with the
 * data key the state names, or a new one it wraps), so a decision only checks that the data key it
 * sealed with is still the user's. A refusal appends nothing.
 */
import type { VaultProvider } from '../../../domain/platform/vault';
import {
  type UserCommandContext as Context,
  noEvents,
  type UserDecision,
  type UserState,
  userEvent,
  vaultEntryId,
} from '../accounts/user-state';
import { type Refusal, refused } from '../refusal';

export interface StoreVaultKey {
  agentId: string;
  provider: VaultProvider;
  prefix: string;
  /** The data key the key was sealed with: the user's (`newDataKey` absent), or the new one. */
  dataKeyId: string;
  sealedKey: string;
  /** Present when the user had no data key: it is made with this key. */
  newDataKey?: { master_key_id: string; wrapped_key: string };
}

export type VaultStored = { kind: 'stored'; prefix: string; stored_at: string; replaced: boolean };

/** Another request of the user made or used a data key between the seal and the decision: seal again. */
export const DATA_KEY_RACE =
  'the vault changed while this key was being sealed (another request made its data key): send it again';

export function decideStoreVaultKey(
  state: UserState,
  command: StoreVaultKey,
  context: Context,
): UserDecision<VaultStored | Refusal> {
  if (!state.registered) return noEvents(unknownUser());
  const current = state.vault.data_key;
  const sealedWithCurrent = command.newDataKey === undefined && current?.data_key_id === command.dataKeyId;
  const makesTheFirst = command.newDataKey !== undefined && current === null;
  if (!sealedWithCurrent && !makesTheFirst) return noEvents(refused(409, 'conflict', DATA_KEY_RACE));
  const at = context.now.toISOString();
  const events: UserDecision<VaultStored>['events'] = [];
  if (command.newDataKey)
    events.push(
      userEvent(state.user_id, context.correlationId, 'VaultDataKeyCreated', {
        user_id: state.user_id,
        data_key_id: command.dataKeyId,
        ...command.newDataKey,
        created_at: at,
      }),
    );
  events.push(
    userEvent(state.user_id, context.correlationId, 'VaultKeyStored', {
      user_id: state.user_id,
      agent_id: command.agentId,
      provider: command.provider,
      prefix: command.prefix,
      data_key_id: command.dataKeyId,
      sealed_key: command.sealedKey,
      stored_at: at,
    }),
  );
  const replaced = state.vault.entries.has(vaultEntryId(command.agentId, command.provider));
  return { events, result: { kind: 'stored', prefix: command.prefix, stored_at: at, replaced } };
}

export type VaultDeleted = { kind: 'deleted'; deleted_at: string };

export function decideDeleteVaultKey(
  state: UserState,
  command: { agentId: string; provider: VaultProvider },
  context: Context,
): UserDecision<VaultDeleted | Refusal> {
  if (!state.registered) return noEvents(unknownUser());
  if (!state.vault.entries.has(vaultEntryId(command.agentId, command.provider)))
    return noEvents(
      refused(
        404,
        'not_found',
        `the agent has no ${command.provider} key in the vault: GET .../vault lists the stored ones`,
      ),
    );
  const at = context.now.toISOString();
  return {
    events: [
      userEvent(state.user_id, context.correlationId, 'VaultKeyDeleted', {
        user_id: state.user_id,
        agent_id: command.agentId,
        provider: command.provider,
        deleted_at: at,
      }),
    ],
    result: { kind: 'deleted', deleted_at: at },
  };
}

function unknownUser(): Refusal {
  return refused(404, 'not_found', 'no such user: sign in first (POST /v1/auth/login)');
}
