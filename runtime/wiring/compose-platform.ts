import type { PlatformServices } from '../../command-api/platform/services';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import type { CoreServices } from '../core/services';
import type { Keyring } from '../keys/keyring';

/**
 * The agent platform's services: the same core as the clearinghouse's (one event store, one read
 * store, one set of logs and sequencers) and the platform's own parts.
 */
export function composePlatformServices(core: CoreServices, keyring: Keyring): PlatformServices {
  return {
    ...core,
    authority: { ...keyring.authority, nodeId: authorityNodeIdOf(keyring.authority.publicKey) },
  };
}
