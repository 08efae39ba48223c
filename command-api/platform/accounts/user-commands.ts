/**
 * The decisions of a user's stream: sign-in requests, sessions, the admin role, WebSocket tickets.
 * Pure: the secrets, ids and the time are drawn by the caller, so each decision is a function of the
 * state and the command. A refusal appends nothing and says why in the platform's error words.
 */
import { sha256Hex } from '../../../domain/governance/hash';
import { type Refusal, refused } from '../refusal';
import { hashesMatch } from './tokens';
import {
  type UserCommandContext as Context,
  noEvents,
  type PendingSignIn,
  type PendingTicket,
  type Role,
  SIGN_IN_RATE_WINDOW_MS,
  type UserDecision,
  type UserState,
  userEvent,
} from './user-state';

/** How long a sign-in link works (once). */
export const SIGN_IN_TTL_MS = 15 * 60_000;
/** How long a session lasts unless its user ends it first. */
export const SESSION_TTL_MS = 30 * 24 * 3_600_000;
/** How long a WebSocket ticket works (once). */
export const TICKET_TTL_MS = 30_000;
/** Sign-in links sent to one address per 15 minutes (SIGN_IN_RATE_WINDOW_MS). */
export const SIGN_IN_REQUESTS_PER_WINDOW = 5;
/** Unredeemed, unexpired tickets a user may hold at once. */
export const OPEN_TICKETS_PER_USER = 20;

// ---- Sign-in ---------------------------------------------------------------------------------------------

export interface RequestSignIn {
  userId: string;
  /** Lower-cased. */
  email: string;
  tokenHash: string;
}

/** A sign-in link for the address, unless it was sent too many in the last 15 minutes. */
export function decideRequestSignIn(
  state: UserState,
  command: RequestSignIn,
  context: Context,
): UserDecision<{ kind: 'requested'; expires_at: string } | Refusal> {
  const now = context.now.getTime();
  const recent = state.requested_at.filter((time) => Date.parse(time) > now - SIGN_IN_RATE_WINDOW_MS);
  if (recent.length >= SIGN_IN_REQUESTS_PER_WINDOW) {
    const wait = Math.ceil((Date.parse(recent[0]!) + SIGN_IN_RATE_WINDOW_MS - now) / 1000);
    return noEvents(
      refused(
        429,
        'rate_limited',
        `${SIGN_IN_REQUESTS_PER_WINDOW} sign-in links were sent to this address in the last 15 minutes; use one of them, or retry in ${wait} s`,
        Math.max(1, wait),
      ),
    );
  }
  const expiresAt = new Date(now + SIGN_IN_TTL_MS).toISOString();
  return {
    events: [
      userEvent(command.userId, context.correlationId, 'SignInRequested', {
        user_id: command.userId,
        email: command.email,
        token_hash: command.tokenHash,
        requested_at: context.now.toISOString(),
        expires_at: expiresAt,
      }),
    ],
    result: { kind: 'requested', expires_at: expiresAt },
  };
}

export const LINK_REFUSED =
  'this sign-in link is unknown, already used or expired (links work once, for 15 minutes); request a new one with POST /v1/auth/login';

/** The unexpired link whose token hashes to `tokenHash`, compared in constant time with every pending one. */
export function pendingSignIn(state: UserState, tokenHash: string, now: Date): PendingSignIn | null {
  let found: PendingSignIn | null = null;
  for (const link of state.sign_ins) if (hashesMatch(link.token_hash, tokenHash)) found = link;
  return found && Date.parse(found.expires_at) > now.getTime() ? found : null;
}

export interface StartSession {
  signInTokenHash: string;
  sessionId: string;
  sessionTokenHash: string;
}

/**
 * The tenant a user's first sign-in registers (before deciding it; its `UserRegistered` names it):
 * `ten_` + 24 hex of SHA-256 of the token hash of the user's first sign-in request. Every attempt at a
 * first sign-in (two devices at once, two processes, a retry after a failure) names the same tenant,
 * so it is registered once and none is left without its user. The seed is in the private event store
 * only, so the id cannot be told from the email, as the user id can.
 */
export function firstTenantId(state: UserState): string {
  if (!state.tenant_seed) throw new Error(`user ${state.user_id} has asked for no sign-in link`);
  return `ten_${sha256Hex(`platform tenant\n${state.tenant_seed}`).slice(0, 24)}`;
}

export interface SessionStart {
  kind: 'started';
  session_id: string;
  expires_at: string;
  tenant_id: string;
  email: string;
  role: Role;
  /** This sign-in registered the user (with `firstTenantId` as its tenant). */
  registered: boolean;
}

/**
 * Following a sign-in link: the link is used up and a session starts; the first time, the user is
 * registered with its tenant (`firstTenantId`), which the caller registered first.
 */
export function decideStartSession(
  state: UserState,
  command: StartSession,
  context: Context,
): UserDecision<SessionStart | Refusal> {
  const link = pendingSignIn(state, command.signInTokenHash, context.now);
  if (!link) return noEvents(refused(401, 'unauthorized', LINK_REFUSED));
  const at = context.now.toISOString();
  const expiresAt = new Date(context.now.getTime() + SESSION_TTL_MS).toISOString();
  const events = [];
  if (!state.registered) {
    events.push(
      userEvent(state.user_id, context.correlationId, 'UserRegistered', {
        user_id: state.user_id,
        email: state.email,
        tenant_id: firstTenantId(state),
        registered_at: at,
      }),
    );
  }
  events.push(
    userEvent(state.user_id, context.correlationId, 'SessionStarted', {
      user_id: state.user_id,
      session_id: command.sessionId,
      token_hash: command.sessionTokenHash,
      sign_in_token_hash: link.token_hash,
      started_at: at,
      expires_at: expiresAt,
    }),
  );
  return {
    events,
    result: {
      kind: 'started',
      session_id: command.sessionId,
      expires_at: expiresAt,
      tenant_id: state.registered ? state.tenant_id : firstTenantId(state),
      email: state.email,
      role: state.role,
      registered: !state.registered,
    },
  };
}

// ---- Sessions --------------------------------------------------------------------------------------------

/** Ends one of the user's live sessions: signing out (`logout`) or revoking it from another (`revoked`). */
export function decideEndSession(
  state: UserState,
  command: { sessionId: string; reason: 'logout' | 'revoked' },
  context: Context,
): UserDecision<{ kind: 'ended' } | Refusal> {
  const session = state.sessions.find(
    (live) => live.session_id === command.sessionId && Date.parse(live.expires_at) > context.now.getTime(),
  );
  if (!session)
    return noEvents(
      refused(404, 'not_found', 'you have no live session with this id (it may have ended or expired)'),
    );
  return {
    events: [
      userEvent(state.user_id, context.correlationId, 'SessionEnded', {
        user_id: state.user_id,
        session_id: session.session_id,
        token_hash: session.token_hash,
        ended_at: context.now.toISOString(),
        reason: command.reason,
      }),
    ],
    result: { kind: 'ended' },
  };
}

// ---- The admin role --------------------------------------------------------------------------------------

export interface ChangeRole {
  role: Role;
  operator: string;
  reason?: string;
}

/** An operator grants or revokes the admin role; nothing to append when the user has it already. */
export function decideChangeRole(
  state: UserState,
  command: ChangeRole,
  context: Context,
): UserDecision<{ kind: 'changed'; changed: boolean; previous_role: Role } | Refusal> {
  if (!state.registered)
    return noEvents(
      refused(
        404,
        'not_found',
        'no user with this email has signed in yet; a role is granted after the first sign-in',
      ),
    );
  if (state.role === command.role)
    return noEvents({ kind: 'changed', changed: false, previous_role: state.role });
  return {
    events: [
      userEvent(state.user_id, context.correlationId, 'UserRoleChanged', {
        user_id: state.user_id,
        role: command.role,
        previous_role: state.role,
        changed_at: context.now.toISOString(),
        changed_by: command.operator,
        ...(command.reason ? { reason: command.reason } : {}),
      }),
    ],
    result: { kind: 'changed', changed: true, previous_role: state.role },
  };
}

// ---- WebSocket tickets -----------------------------------------------------------------------------------

export function decideIssueTicket(
  state: UserState,
  command: { agentId: string; sessionId: string; ticketHash: string },
  context: Context,
): UserDecision<{ kind: 'issued'; expires_at: string } | Refusal> {
  const now = context.now.getTime();
  const open = state.tickets.filter((ticket) => Date.parse(ticket.expires_at) > now).length;
  if (open >= OPEN_TICKETS_PER_USER)
    return noEvents(
      refused(
        429,
        'rate_limited',
        `you hold ${OPEN_TICKETS_PER_USER} unused WebSocket tickets; use them or let them expire (30 s)`,
        Math.ceil(TICKET_TTL_MS / 1000),
      ),
    );
  const expiresAt = new Date(now + TICKET_TTL_MS).toISOString();
  return {
    events: [
      userEvent(state.user_id, context.correlationId, 'WsTicketIssued', {
        user_id: state.user_id,
        agent_id: command.agentId,
        session_id: command.sessionId,
        ticket_hash: command.ticketHash,
        issued_at: context.now.toISOString(),
        expires_at: expiresAt,
      }),
    ],
    result: { kind: 'issued', expires_at: expiresAt },
  };
}

export const TICKET_REFUSED =
  'this WebSocket ticket is unknown, already used or expired (tickets work once, for 30 seconds); get a new one with POST /v1/ws-ticket';

/**
 * Opening an agent's chat socket with a ticket: used up when it is unexpired, unused and for this
 * agent. A ticket presented for another agent is refused and stays unused (its holder did nothing wrong
 * with it yet).
 */
export function decideRedeemTicket(
  state: UserState,
  command: { ticketHash: string; agentId: string },
  context: Context,
): UserDecision<{ kind: 'redeemed'; user_id: string; agent_id: string } | Refusal> {
  let found: PendingTicket | null = null;
  for (const ticket of state.tickets) if (hashesMatch(ticket.ticket_hash, command.ticketHash)) found = ticket;
  if (!found || Date.parse(found.expires_at) <= context.now.getTime())
    return noEvents(refused(401, 'unauthorized', TICKET_REFUSED));
  if (found.agent_id !== command.agentId)
    return noEvents(refused(403, 'forbidden', 'this WebSocket ticket was issued for another agent'));
  return {
    events: [
      userEvent(state.user_id, context.correlationId, 'WsTicketRedeemed', {
        user_id: state.user_id,
        agent_id: found.agent_id,
        ticket_hash: found.ticket_hash,
        redeemed_at: context.now.toISOString(),
      }),
    ],
    result: { kind: 'redeemed', user_id: state.user_id, agent_id: found.agent_id },
  };
}
