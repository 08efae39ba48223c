/**
 * The vault's keys at work: sealing a model key for a user (with the user's data key, or a new one
 * wrapped by the master key) and `vaultKeyFor`, which opens an agent's stored key for the model
 * provider adapters. Both fail closed: a master key other than the one that wrapped the user's data
 * key (or an altered value) opens nothing and makes nothing new.
 */
import { randomBytes } from 'node:crypto';
import {
  newVaultDataKey,
  openVaultKey,
  sealVaultKey,
  unwrapVaultDataKey,
  type VaultProvider,
  vaultMasterKeyId,
} from '../../../domain/platform/vault';
import { type UserState, userStream, vaultEntryId } from '../accounts/user-state';
import type { PlatformServices } from '../services';
import type { StoreVaultKey } from './vault-commands';

/** The vault cannot be opened with this server's master key: nothing is decrypted or stored. */
export class VaultLockedError extends Error {
  override readonly name = 'VaultLockedError';
}

function lockedBy(userId: string, expected: string, actual: string): VaultLockedError {
  return new VaultLockedError(
    `the vault data key of ${userId} was wrapped by master key ${expected}, and this server's is ${actual}: ` +
      'start it with the master key the vault was made with (GOV_VAULT_KEY or keys/vault-master.key)',
  );
}

/** The user's data key, opened with the master key; throws VaultLockedError when it does not open. */
function dataKeyOf(services: PlatformServices, state: UserState): { id: string; key: Buffer } | null {
  const current = state.vault.data_key;
  if (!current) return null;
  const masterId = vaultMasterKeyId(services.vaultMasterKey);
  if (current.master_key_id !== masterId) throw lockedBy(state.user_id, current.master_key_id, masterId);
  const key = unwrapVaultDataKey(services.vaultMasterKey, state.user_id, current.wrapped_key);
  if (!key)
    throw new VaultLockedError(
      `the vault data key of ${state.user_id} does not open with the master key ${masterId} it names: the event was altered`,
    );
  return { id: current.data_key_id, key };
}

/**
 * The store command for a model key: sealed with the user's data key as the user's stream has it now,
 * or with a new data key (made here, wrapped by the master key) when the user has none yet.
 */
export async function sealedForStore(
  services: PlatformServices,
  place: { userId: string; agentId: string; provider: VaultProvider },
  apiKey: string,
  prefix: string,
): Promise<StoreVaultKey> {
  const state = await services.users.state(userStream(place.userId));
  const existing = dataKeyOf(services, state);
  if (existing)
    return {
      agentId: place.agentId,
      provider: place.provider,
      prefix,
      dataKeyId: existing.id,
      sealedKey: sealVaultKey(existing.key, place, apiKey),
    };
  const made = newVaultDataKey(services.vaultMasterKey, place.userId);
  return {
    agentId: place.agentId,
    provider: place.provider,
    prefix,
    dataKeyId: `dk_${randomBytes(8).toString('hex')}`,
    sealedKey: sealVaultKey(made.dataKey, place, apiKey),
    newDataKey: { master_key_id: vaultMasterKeyId(services.vaultMasterKey), wrapped_key: made.wrapped },
  };
}

/**
 * The model key stored for the agent and provider, decrypted: for the model provider adapters, never
 * for an answer or a log line. Null when the agent is unknown or deleted or has no key for the
 * provider; throws VaultLockedError when this server's master key cannot open it.
 */
export async function vaultKeyFor(
  services: PlatformServices,
  agentId: string,
  provider: VaultProvider,
): Promise<string | null> {
  const owner = await services.agentDirectory.ownerOf(agentId);
  if (!owner) return null;
  const state = await services.users.state(userStream(owner.userId));
  const entry = state.vault.entries.get(vaultEntryId(agentId, provider));
  if (!entry) return null;
  const dataKey = dataKeyOf(services, state);
  if (!dataKey || dataKey.id !== entry.data_key_id)
    throw new VaultLockedError(`the ${provider} key of ${agentId} names a data key its user does not hold`);
  const key = openVaultKey(dataKey.key, { userId: owner.userId, agentId, provider }, entry.sealed_key);
  if (key === null)
    throw new VaultLockedError(`the ${provider} key of ${agentId} does not open with its data key: altered`);
  return key;
}
