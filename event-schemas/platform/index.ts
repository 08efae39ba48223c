/**
 * Every schema of the agent platform, by the name code refers to it with (the clearinghouse's are in
 * ../governance/index.ts). One namespace for both: `urn:gov:command:<name>`, `urn:gov:event:<Type>`,
 * `urn:gov:record:<name>`, `urn:gov:response:<name>`; names are unique across the two.
 */

import authCallback from './commands/auth-callback.json';
import authLogin from './commands/auth-login.json';
import changeAgentMode from './commands/change-agent-mode.json';
import costEstimate from './commands/cost-estimate.json';
import createAgent from './commands/create-agent.json';
import createApiKey from './commands/create-api-key.json';
import governAction from './commands/govern-action.json';
import restoreAgent from './commands/restore-agent.json';
import rollbackAgent from './commands/rollback-agent.json';
import storeVaultKey from './commands/store-vault-key.json';
import updateAgent from './commands/update-agent.json';
import wsTicketBody from './commands/ws-ticket.json';
import agentActionDecided from './events/AgentActionDecided.json';
import agentCheckpointCreated from './events/AgentCheckpointCreated.json';
import agentConfigVersioned from './events/AgentConfigVersioned.json';
import agentCreated from './events/AgentCreated.json';
import agentDeleted from './events/AgentDeleted.json';
import agentModeChanged from './events/AgentModeChanged.json';
import agentPassportIssued from './events/AgentPassportIssued.json';
import agentPolicyChanged from './events/AgentPolicyChanged.json';
import agentRestored from './events/AgentRestored.json';
import agentStarted from './events/AgentStarted.json';
import agentStopped from './events/AgentStopped.json';
import apiKeyCreated from './events/ApiKeyCreated.json';
import apiKeyRevoked from './events/ApiKeyRevoked.json';
import sessionEnded from './events/SessionEnded.json';
import sessionStarted from './events/SessionStarted.json';
import signInRequested from './events/SignInRequested.json';
import userRegistered from './events/UserRegistered.json';
import userRoleChanged from './events/UserRoleChanged.json';
import vaultDataKeyCreated from './events/VaultDataKeyCreated.json';
import vaultKeyDeleted from './events/VaultKeyDeleted.json';
import vaultKeyStored from './events/VaultKeyStored.json';
import wsTicketIssued from './events/WsTicketIssued.json';
import wsTicketRedeemed from './events/WsTicketRedeemed.json';
import agentAction from './records/agent-action.json';
import agentConfig from './records/agent-config.json';
import agentPassport from './records/agent-passport.json';
import agentPolicy from './records/agent-policy.json';
import agentSettings from './records/agent-settings.json';
import agent from './responses/agent.json';
import agentCheckpoints from './responses/agent-checkpoints.json';
import agentCreatedResponse from './responses/agent-created.json';
import agentDeletedResponse from './responses/agent-deleted.json';
import agentEventLog from './responses/agent-event-log.json';
import agentHealth from './responses/agent-health.json';
import agentList from './responses/agent-list.json';
import agentQuota from './responses/agent-quota.json';
import agentRestoredResponse from './responses/agent-restored.json';
import agentStoppedResponse from './responses/agent-stopped.json';
import agentVersionHealth from './responses/agent-version-health.json';
import apiKey from './responses/api-key.json';
import apiKeyCreatedResponse from './responses/api-key-created.json';
import apiKeyList from './responses/api-key-list.json';
import apiKeyRevokedResponse from './responses/api-key-revoked.json';
import authLoginAccepted from './responses/auth-login-accepted.json';
import authMe from './responses/auth-me.json';
import authSessions from './responses/auth-sessions.json';
import authSignedIn from './responses/auth-signed-in.json';
import governedAction from './responses/governed-action.json';
import leafProof from './responses/leaf-proof.json';
import platformArchitecture from './responses/platform-architecture.json';
import platformCapabilities from './responses/platform-capabilities.json';
import platformChannels from './responses/platform-channels.json';
import platformCostEstimate from './responses/platform-cost-estimate.json';
import platformCostModel from './responses/platform-cost-model.json';
import platformError from './responses/platform-error.json';
import platformHealth from './responses/platform-health.json';
import platformServices from './responses/platform-services.json';
import platformTiers from './responses/platform-tiers.json';
import platformVersion from './responses/platform-version.json';
import tenantQuotaSummary from './responses/tenant-quota-summary.json';
import vaultDeleted from './responses/vault-deleted.json';
import vaultEntry from './responses/vault-entry.json';
import vaultList from './responses/vault-list.json';
import vaultStored from './responses/vault-stored.json';
import wsTicket from './responses/ws-ticket.json';

/** Request bodies, by command name. */
export const platformCommandSchemas = {
  'create-agent': createAgent,
  'update-agent': updateAgent,
  'change-agent-mode': changeAgentMode,
  'rollback-agent': rollbackAgent,
  'restore-agent': restoreAgent,
  'create-api-key': createApiKey,
  'govern-action': governAction,
  'auth-login': authLogin,
  'auth-callback': authCallback,
  'ws-ticket': wsTicketBody,
  'cost-estimate': costEstimate,
  'store-vault-key': storeVaultKey,
} as const;

/** Domain event payloads (`data`), by event type. */
export const platformEventSchemas = {
  AgentCreated: agentCreated,
  AgentConfigVersioned: agentConfigVersioned,
  AgentPassportIssued: agentPassportIssued,
  AgentStarted: agentStarted,
  AgentStopped: agentStopped,
  AgentCheckpointCreated: agentCheckpointCreated,
  AgentRestored: agentRestored,
  AgentModeChanged: agentModeChanged,
  AgentDeleted: agentDeleted,
  AgentActionDecided: agentActionDecided,
  AgentPolicyChanged: agentPolicyChanged,
  ApiKeyCreated: apiKeyCreated,
  ApiKeyRevoked: apiKeyRevoked,
  SignInRequested: signInRequested,
  UserRegistered: userRegistered,
  SessionStarted: sessionStarted,
  SessionEnded: sessionEnded,
  UserRoleChanged: userRoleChanged,
  WsTicketIssued: wsTicketIssued,
  WsTicketRedeemed: wsTicketRedeemed,
  VaultDataKeyCreated: vaultDataKeyCreated,
  VaultKeyStored: vaultKeyStored,
  VaultKeyDeleted: vaultKeyDeleted,
} as const;

/** Records: the documents admitted to the log (commitments, never content) and their parts. */
export const platformRecordSchemas = {
  'agent-policy': agentPolicy,
  'agent-passport': agentPassport,
  'agent-config': agentConfig,
  'agent-action': agentAction,
  'agent-settings': agentSettings,
} as const satisfies Record<string, { $id: string; title: string }>;

/** Response bodies of the platform's HTTP API (its OpenAPI document is built from them). */
export const platformResponseSchemas = {
  'platform-error': platformError,
  'platform-health': platformHealth,
  'platform-version': platformVersion,
  'platform-architecture': platformArchitecture,
  'platform-services': platformServices,
  'platform-capabilities': platformCapabilities,
  'platform-tiers': platformTiers,
  'platform-channels': platformChannels,
  'platform-cost-model': platformCostModel,
  'platform-cost-estimate': platformCostEstimate,
  agent,
  'agent-created': agentCreatedResponse,
  'agent-list': agentList,
  'agent-health': agentHealth,
  'agent-checkpoints': agentCheckpoints,
  'agent-stopped': agentStoppedResponse,
  'agent-restored': agentRestoredResponse,
  'agent-version-health': agentVersionHealth,
  'agent-deleted': agentDeletedResponse,
  'api-key': apiKey,
  'api-key-created': apiKeyCreatedResponse,
  'api-key-list': apiKeyList,
  'api-key-revoked': apiKeyRevokedResponse,
  'auth-me': authMe,
  'auth-login-accepted': authLoginAccepted,
  'auth-signed-in': authSignedIn,
  'auth-sessions': authSessions,
  'ws-ticket': wsTicket,
  'vault-entry': vaultEntry,
  'vault-list': vaultList,
  'vault-stored': vaultStored,
  'vault-deleted': vaultDeleted,
  'agent-quota': agentQuota,
  'tenant-quota-summary': tenantQuotaSummary,
  'agent-event-log': agentEventLog,
  'governed-action': governedAction,
  'leaf-proof': leafProof,
} as const satisfies Record<string, { $id: string; title: string }>;
