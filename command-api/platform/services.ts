import type { KeyObject } from 'node:crypto';
import type { AgentActionInput, SealedRecord } from '../../domain/platform/records';
import type { AgentAction } from '../../event-schemas';
import type { Mailer } from '../../ports/mailer';
import type { UpstreamCheck } from '../../runtime/core/health-checks';
import type { CoreServices } from '../../runtime/core/services';
import type { AggregateWriter } from '../engine/aggregate-writer';
import type { TenantEvent, TenantState } from '../governance/tenants/tenant-state';
import type { UserEvent, UserState } from './accounts/user-state';
import type { AgentRecordSealer } from './agents/agent-commands';
import type { AgentEvent, AgentState } from './agents/agent-state';

/**
 * What the agent platform's routes and handlers use: the shared core (the same event store, read
 * store and logs as the clearinghouse) and the platform's own parts. Each feature adds its parts here;
 * runtime/wiring/compose-platform.ts builds them.
 */
export interface PlatformServices extends CoreServices {
  /** The node's key: platform records are signed with it, as the clearinghouse's envelopes are. */
  authority: { privateKey: KeyObject; publicKey: KeyObject; nodeId: string };
  /** Runs commands on agent aggregates (stream `agent-<id>`): lifecycle, config versions, checkpoints, keys. */
  agents: AggregateWriter<AgentState, AgentEvent>;
  /** Signs the agents' leaf records (config versions, passports) with the node key. */
  agentRecords: AgentRecordSealer;
  /** Agents and their API keys, as the access layer (command-api/platform/accounts/access.ts) reads them. */
  agentDirectory: AgentDirectory;
  /** Live sign-in sessions, as the access layer reads them. */
  sessionDirectory: SessionDirectory;
  /** Runs commands on users' streams (`user-<usr_…>`): sign-in, sessions, role, WS tickets. */
  users: AggregateWriter<UserState, UserEvent>;
  /** Registers the governance tenant a user owns at its first sign-in (stream `tenant-<id>`). */
  tenants: AggregateWriter<TenantState, TenantEvent>;
  /** Sends sign-in links: over SMTP (GOV_SMTP_URL), else to the log. */
  mailer: Mailer;
  /** The vault's master key (GOV_VAULT_KEY, else `<data>/keys/vault-master.key`): wraps users' data keys. */
  vaultMasterKey: Buffer;
  /**
   * What `GET /health` asks beyond the stores, as the process's deployment reaches them: the bus (where
   * this process has one), the shared log's sequencer, the clearinghouse.
   */
  upstream: PlatformUpstream;
  /**
   * Builds and signs a governed action's record (GOV_AGENT_ACTION_V1) with the node key: on the record
   * sealing thread where threads sign (runtime/threads/thread-record-sealer.ts), else inline.
   */
  sealAction(
    input: AgentActionInput,
    nonces: { content: string; principal: string },
  ): Promise<SealedRecord<AgentAction>>;
  /** Ends the platform's own threads (the record sealing thread), when the process stops. */
  closeThreads(): Promise<void>;
}

/** Who owns an agent, and the `svc_` keys of agents: what owner and key scoping are checked against. */
export interface AgentDirectory {
  /** The agent's owner and the owner's tenant; null for an unknown or deleted agent. */
  ownerOf(agentId: string): Promise<{ userId: string; tenantId: string } | null>;
  /** The key whose raw value hashes (SHA-256) to `sha256Hex`; null for an unknown or revoked key. */
  keyByHash(sha256Hex: string): Promise<AgentKeyHolder | null>;
  /**
   * Called after this process deleted the agent (no `keyId`) or revoked its key `keyId`, once the read
   * model has applied it: a directory that remembers answers drops those.
   */
  forget?(agentId: string, keyId?: string): void;
}

export interface AgentKeyHolder {
  keyId: string;
  agentId: string;
  userId: string;
  tenantId: string;
  /** The scopes the key holds (`chat`, `memory:read`, …); empty: every scope of its agent. */
  scopes: string[];
}

/** Sign-in sessions, found by the hash of the cookie's token (the token itself is never stored). */
export interface SessionDirectory {
  /** The session whose token hashes (SHA-256) to `sha256Hex` with its user as the user is now; null for an unknown or ended one. */
  byTokenHash(sha256Hex: string): Promise<SessionHolder | null>;
}

export interface SessionHolder {
  sessionId: string;
  userId: string;
  email: string;
  role: 'user' | 'admin';
  tenantId: string;
  /** ISO 8601; the access layer refuses the session from then on. */
  expiresAt: string;
}

export interface PlatformUpstream {
  bus?: UpstreamCheck;
  log_sequencer: UpstreamCheck;
  clearinghouse: UpstreamCheck;
}
