import { AggregateWriter } from '../../command-api/engine/aggregate-writer';
import { ReadModelAgentDirectory } from '../../command-api/platform/agents/agent-directory';
import { nodeRecordSealer } from '../../command-api/platform/agents/agent-records';
import { agentAggregate } from '../../command-api/platform/agents/agent-state';
import type { PlatformServices, SessionDirectory } from '../../command-api/platform/services';
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
    agents: new AggregateWriter(core.eventStore, agentAggregate),
    agentRecords: nodeRecordSealer(keyring.authority.privateKey),
    agentDirectory: new ReadModelAgentDirectory(core.readModels),
    sessionDirectory: NO_SESSIONS,
  };
}

// Until the sessions read model (plat-auth) is wired in: no session exists, so every caller is refused.
const NO_SESSIONS: SessionDirectory = { byTokenHash: async () => null };
