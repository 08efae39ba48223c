/**
 * The user aggregate: a platform user's stream (`user-<usr_…>`, the id derived from the email, so the
 * stream of an address is found without a lookup and started once). It holds the sign-in requests,
 * the user's registration and role, its sessions and its WebSocket tickets: each single-use secret is
 * decided against this one stream, so a link or a ticket is used once even when two processes race.
 *
 * The user's vault is here too (its data key, wrapped, and the model keys it sealed): a data key is
 * made once per user, however many agents store keys at once.
 *
 * Only hashes of secrets are kept (and the vault's sealed values, which only the master key opens). What has expired is dropped as later events arrive (each decision
 * checks expiry against its own clock anyway), so the state stays small however long the user lives.
 */
import type { GovernanceEvent } from '../../../event-schemas';
import type { Aggregate, Decision, NewEventOf } from '../../engine/aggregate-writer';

export type UserEvent = Extract<
  GovernanceEvent,
  {
    type:
      | 'SignInRequested'
      | 'UserRegistered'
      | 'SessionStarted'
      | 'SessionEnded'
      | 'UserRoleChanged'
      | 'WsTicketIssued'
      | 'WsTicketRedeemed'
      | 'VaultDataKeyCreated'
      | 'VaultKeyStored'
      | 'VaultKeyDeleted';
  }
>;

export type UserDecision<R> = Decision<R, UserEvent>;

/** What a decision of the user's stream is given besides the state and the command. */
export interface UserCommandContext {
  now: Date;
  correlationId: string;
}

/** A decision that appends nothing (a refusal, or nothing to change). */
export const noEvents = <R>(result: R): UserDecision<R> => ({ events: [], result });

export type Role = 'user' | 'admin';

export interface PendingSignIn {
  token_hash: string;
  expires_at: string;
}

export interface LiveSession {
  session_id: string;
  token_hash: string;
  started_at: string;
  expires_at: string;
}

export interface PendingTicket {
  ticket_hash: string;
  agent_id: string;
  expires_at: string;
}

/** A model key in the vault, sealed with the user's data key. */
interface VaultEntry {
  agent_id: string;
  provider: 'openai' | 'anthropic' | 'google';
  prefix: string;
  data_key_id: string;
  sealed_key: string;
  stored_at: string;
}

interface UserVault {
  /** The user's data key, wrapped by the master key; null before the first stored key. */
  readonly data_key: { data_key_id: string; master_key_id: string; wrapped_key: string } | null;
  /** Stored keys by `<agent_id>/<provider>`. */
  readonly entries: ReadonlyMap<string, VaultEntry>;
}

export function vaultEntryId(agentId: string, provider: string): string {
  return `${agentId}/${provider}`;
}

export interface UserState {
  readonly user_id: string;
  /** Signed in at least once (UserRegistered): the user and its tenant exist. */
  readonly registered: boolean;
  readonly email: string;
  readonly tenant_id: string;
  /**
   * The token hash of the user's first sign-in request ('' before one): the tenant its first sign-in
   * registers is named after it (user-commands.ts `firstTenantId`), the same for every racing attempt.
   */
  readonly tenant_seed: string;
  readonly role: Role;
  /** Unused, unexpired sign-in links. */
  readonly sign_ins: readonly PendingSignIn[];
  /** When the sign-in requests of the current rate window were made (the rate limit per address). */
  readonly requested_at: readonly string[];
  readonly sessions: readonly LiveSession[];
  readonly tickets: readonly PendingTicket[];
  readonly vault: UserVault;
}

export function userStream(userId: string): string {
  return `user-${userId}`;
}

export function initialUserState(): UserState {
  return {
    user_id: '',
    registered: false,
    email: '',
    tenant_id: '',
    tenant_seed: '',
    role: 'user',
    sign_ins: [],
    requested_at: [],
    sessions: [],
    tickets: [],
    vault: { data_key: null, entries: new Map() },
  };
}

/** How long the sign-in requests counted against an address's rate limit are remembered. */
export const SIGN_IN_RATE_WINDOW_MS = 15 * 60_000;

/** The moment an event happened (each type names it its own way). */
function timeOf(event: UserEvent): string {
  switch (event.type) {
    case 'SignInRequested':
      return event.data.requested_at;
    case 'UserRegistered':
      return event.data.registered_at;
    case 'SessionStarted':
      return event.data.started_at;
    case 'SessionEnded':
      return event.data.ended_at;
    case 'UserRoleChanged':
      return event.data.changed_at;
    case 'WsTicketIssued':
      return event.data.issued_at;
    case 'WsTicketRedeemed':
      return event.data.redeemed_at;
    case 'VaultDataKeyCreated':
      return event.data.created_at;
    case 'VaultKeyStored':
      return event.data.stored_at;
    case 'VaultKeyDeleted':
      return event.data.deleted_at;
  }
}

/** Drops what no decision after `at` can use: expired links, sessions and tickets, old request times. */
function pruned(state: UserState, at: string): UserState {
  const now = Date.parse(at);
  const live = <T extends { expires_at: string }>(items: readonly T[]) =>
    items.every((item) => Date.parse(item.expires_at) > now)
      ? items
      : items.filter((item) => Date.parse(item.expires_at) > now);
  const since = now - SIGN_IN_RATE_WINDOW_MS;
  const requested = state.requested_at.filter((time) => Date.parse(time) > since);
  return {
    ...state,
    sign_ins: live(state.sign_ins),
    sessions: live(state.sessions),
    tickets: live(state.tickets),
    requested_at: requested.length === state.requested_at.length ? state.requested_at : requested,
  };
}

export function evolveUser(before: UserState, event: UserEvent): UserState {
  const state = pruned(before, timeOf(event));
  switch (event.type) {
    case 'SignInRequested': {
      const { data } = event;
      return {
        ...state,
        user_id: data.user_id,
        email: state.email || data.email,
        tenant_seed: state.tenant_seed || data.token_hash,
        sign_ins: [...state.sign_ins, { token_hash: data.token_hash, expires_at: data.expires_at }],
        requested_at: [...state.requested_at, data.requested_at],
      };
    }
    case 'UserRegistered': {
      const { data } = event;
      return { ...state, registered: true, email: data.email, tenant_id: data.tenant_id };
    }
    case 'SessionStarted': {
      const { data } = event;
      return {
        ...state,
        sign_ins: state.sign_ins.filter((link) => link.token_hash !== data.sign_in_token_hash),
        sessions: [
          ...state.sessions,
          {
            session_id: data.session_id,
            token_hash: data.token_hash,
            started_at: data.started_at,
            expires_at: data.expires_at,
          },
        ],
      };
    }
    case 'SessionEnded':
      return {
        ...state,
        sessions: state.sessions.filter((session) => session.session_id !== event.data.session_id),
      };
    case 'UserRoleChanged':
      return { ...state, role: event.data.role };
    case 'WsTicketIssued': {
      const { data } = event;
      return {
        ...state,
        tickets: [
          ...state.tickets,
          { ticket_hash: data.ticket_hash, agent_id: data.agent_id, expires_at: data.expires_at },
        ],
      };
    }
    case 'WsTicketRedeemed':
      return {
        ...state,
        tickets: state.tickets.filter((ticket) => ticket.ticket_hash !== event.data.ticket_hash),
      };
    case 'VaultDataKeyCreated': {
      const { data_key_id, master_key_id, wrapped_key } = event.data;
      return { ...state, vault: { ...state.vault, data_key: { data_key_id, master_key_id, wrapped_key } } };
    }
    case 'VaultKeyStored': {
      const { user_id: _user, ...entry } = event.data;
      const entries = new Map(state.vault.entries);
      entries.set(vaultEntryId(entry.agent_id, entry.provider), entry);
      return { ...state, vault: { ...state.vault, entries } };
    }
    case 'VaultKeyDeleted': {
      const entries = new Map(state.vault.entries);
      entries.delete(vaultEntryId(event.data.agent_id, event.data.provider));
      return { ...state, vault: { ...state.vault, entries } };
    }
  }
}

export const userAggregate: Aggregate<UserState, UserEvent> = {
  initial: initialUserState,
  evolve: evolveUser,
};

/**
 * A user event with its metadata. Its `tenant_id` (the bus's partition key) is the user id: every
 * event of the stream, before and after the user has a tenant, stays in one partition, in order.
 */
export function userEvent<T extends UserEvent['type']>(
  userId: string,
  correlationId: string,
  type: T,
  data: Extract<UserEvent, { type: T }>['data'],
): NewEventOf<Extract<UserEvent, { type: T }>> {
  return {
    type,
    data,
    tenant_id: userId,
    correlation_id: correlationId,
    causation_id: null,
  } as NewEventOf<Extract<UserEvent, { type: T }>>;
}
