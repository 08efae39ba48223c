import type { AgentDirectory, PlatformServices, SessionDirectory } from '../../command-api/platform/services';
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
    agentDirectory: NO_AGENTS,
    sessionDirectory: NO_SESSIONS,
  };
}

// Until the agents feature (plat-agents) and the sessions read model (plat-auth) are wired in: no
// agent, key or session exists, so every caller is refused.
const NO_AGENTS: AgentDirectory = { ownerOf: async () => null, keyByHash: async () => null };
const NO_SESSIONS: SessionDirectory = { byTokenHash: async () => null };
