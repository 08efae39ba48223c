/**
 * Every schema of the agent platform, by the name code refers to it with (the clearinghouse's are in
 * ../governance/index.ts). One namespace for both: `urn:gov:command:<name>`, `urn:gov:event:<Type>`,
 * `urn:gov:record:<name>`, `urn:gov:response:<name>`; names are unique across the two.
 */
import authLogin from './commands/auth-login.json';
import wsTicketBody from './commands/ws-ticket.json';
import sessionEnded from './events/SessionEnded.json';
import sessionStarted from './events/SessionStarted.json';
import signInRequested from './events/SignInRequested.json';
import userRegistered from './events/UserRegistered.json';
import userRoleChanged from './events/UserRoleChanged.json';
import wsTicketIssued from './events/WsTicketIssued.json';
import wsTicketRedeemed from './events/WsTicketRedeemed.json';
import authLoginAccepted from './responses/auth-login-accepted.json';
import authMe from './responses/auth-me.json';
import authSessions from './responses/auth-sessions.json';
import authSignedIn from './responses/auth-signed-in.json';
import platformError from './responses/platform-error.json';
import wsTicket from './responses/ws-ticket.json';

/** Request bodies, by command name. */
export const platformCommandSchemas = {
  'auth-login': authLogin,
  'ws-ticket': wsTicketBody,
} as const;

/** Domain event payloads (`data`), by event type. */
export const platformEventSchemas = {
  SignInRequested: signInRequested,
  UserRegistered: userRegistered,
  SessionStarted: sessionStarted,
  SessionEnded: sessionEnded,
  UserRoleChanged: userRoleChanged,
  WsTicketIssued: wsTicketIssued,
  WsTicketRedeemed: wsTicketRedeemed,
} as const;

/** Records: the documents admitted to the log (commitments, never content) and their parts. */
export const platformRecordSchemas = {} as const satisfies Record<string, { $id: string; title: string }>;

/** Response bodies of the platform's HTTP API (its OpenAPI document is built from them). */
export const platformResponseSchemas = {
  'platform-error': platformError,
  'auth-me': authMe,
  'auth-login-accepted': authLoginAccepted,
  'auth-signed-in': authSignedIn,
  'auth-sessions': authSessions,
  'ws-ticket': wsTicket,
} as const satisfies Record<string, { $id: string; title: string }>;
