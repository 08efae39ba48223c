import { logMailer } from '../../adapters/mail/log-mailer';
import { smtpMailer } from '../../adapters/mail/smtp-mailer';
import { AggregateWriter } from '../../command-api/engine/aggregate-writer';
import { tenantAggregate } from '../../command-api/governance/tenants/tenant-state';
import { userAggregate } from '../../command-api/platform/accounts/user-state';
import { ReadModelAgentDirectory } from '../../command-api/platform/agents/agent-directory';
import { nodeRecordSealer } from '../../command-api/platform/agents/agent-records';
import { agentAggregate } from '../../command-api/platform/agents/agent-state';
import type { PlatformServices, PlatformUpstream } from '../../command-api/platform/services';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { buildAgentAction } from '../../domain/platform/records';
import { readModelSessions } from '../../read-api/platform/accounts/accounts';
import type { CoreServices } from '../core/services';
import type { Keyring } from '../keys/keyring';
import { RecordSealThread } from '../threads/thread-record-sealer';

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
  const { config } = core;
  const authority = { ...keyring.authority, nodeId: authorityNodeIdOf(keyring.authority.publicKey) };
  // Governed actions' records are signed on a thread of their own where the validator round has one
  // (GOV_VALIDATOR_THREAD), and only when the platform serves at all (not with GOV_PLATFORM_PORT=off).
  const sealThread =
    config.validatorThread && config.platformPort !== null
      ? RecordSealThread.start(keyring.authority.privateKey)
      : null;
  return {
    ...core,
    bindings: {
      ...core.bindings,
      ...(config.smtpUrl ? { smtp: 'nodemailer' } : {}),
      // Where the vault's master key comes from (never the key).
      vault: config.vaultKey ? 'aes-256-gcm (GOV_VAULT_KEY)' : 'aes-256-gcm (keys/vault-master.key)',
    },
    authority,
    upstream,
    agents: new AggregateWriter(core.eventStore, agentAggregate),
    agentRecords: nodeRecordSealer(authority),
    agentDirectory: new ReadModelAgentDirectory(core.readModels),
    sessionDirectory: readModelSessions(core.readModels),
    users: new AggregateWriter(core.eventStore, userAggregate),
    // Only new tenants' streams are written here (a user's at its first sign-in): the clearinghouse's
    // own writer never has them cached, and the append's `no-stream` guards the rest.
    tenants: new AggregateWriter(core.eventStore, tenantAggregate),
    mailer: config.smtpUrl
      ? smtpMailer(config.smtpUrl, config.mailFrom)
      : logMailer(core.logger.child({ component: 'mail' })),
    vaultMasterKey: config.vaultKey ?? keyring.vaultMasterKey,
    sealAction: sealThread
      ? sealThread.seal
      : async (input, nonces) => buildAgentAction(input, nonces, authority),
    closeThreads: async () => sealThread?.close(),
  };
}
