import type { PlatformServices, PlatformUpstream } from '../../command-api/platform/services';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import type { CoreServices } from '../core/services';
import type { Keyring } from '../keys/keyring';

/**
 * The agent platform's services: the same core as the clearinghouse's (one event store, one read
 * store, one set of logs and sequencers) and the platform's own parts. A feature that binds a port
 * (SMTP, the vault, a model provider) adds its adapter's name to `bindings`, which /health reports.
 */
export function composePlatformServices(
  core: CoreServices,
  keyring: Keyring,
  upstream: PlatformUpstream,
): PlatformServices {
  return {
    ...core,
    bindings: { ...core.bindings },
    authority: { ...keyring.authority, nodeId: authorityNodeIdOf(keyring.authority.publicKey) },
    upstream,
  };
}
