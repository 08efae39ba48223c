/** Given/when/then for a user's stream: sign-in links, sessions, the admin role, WebSocket tickets. */
import { deciderSpecification, refusedWith } from '../../engine/decider-specification';
import {
  decideChangeRole,
  decideEndSession,
  decideIssueTicket,
  decideRedeemTicket,
  decideRequestSignIn,
  decideStartSession,
  firstTenantId,
} from './user-commands';
import { type UserEvent, type UserState, userAggregate } from './user-state';

const USER = `usr_${'a'.repeat(24)}`;
const EMAIL = 'ada@example.com';
const SESSION = `ses_${'1'.repeat(24)}`;
const SESSION_2 = `ses_${'2'.repeat(24)}`;
const AGENT = `svc_${'a'.repeat(26)}`;
const OTHER_AGENT = `svc_${'b'.repeat(26)}`;
const hash = (c: string) => c.repeat(64);
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const iso = (ms: number) => at(ms).toISOString();
const MIN = 60_000;
const DAY = 24 * 60 * MIN;

const requested = (token: string, ms = 0): UserEvent => ({
  type: 'SignInRequested',
  data: {
    user_id: USER,
    email: EMAIL,
    token_hash: hash(token),
    requested_at: iso(ms),
    expires_at: iso(ms + 15 * MIN),
  },
});
/** The tenant of the user whose first link was '1'. */
const TENANT = firstTenantId(userAggregate.evolve(userAggregate.initial(), requested('1')));
const registered = (ms = MIN): UserEvent => ({
  type: 'UserRegistered',
  data: { user_id: USER, email: EMAIL, tenant_id: TENANT, registered_at: iso(ms) },
});
const started = (session: string, token: string, link: string, ms = MIN): UserEvent => ({
  type: 'SessionStarted',
  data: {
    user_id: USER,
    session_id: session,
    token_hash: hash(token),
    sign_in_token_hash: hash(link),
    started_at: iso(ms),
    expires_at: iso(ms + 30 * DAY),
  },
});
const ticketIssued = (ticket: string, agent = AGENT, ms = 2 * MIN): UserEvent => ({
  type: 'WsTicketIssued',
  data: {
    user_id: USER,
    agent_id: agent,
    session_id: SESSION,
    ticket_hash: hash(ticket),
    issued_at: iso(ms),
    expires_at: iso(ms + 30_000),
  },
});

const spec = <C>(decide: (state: UserState, command: C) => { events: UserEvent[]; result: unknown }) =>
  deciderSpecification(userAggregate, decide as never);

describe('sign-in requests', () => {
  const given = spec((state, command: { token: string; ms: number }) =>
    decideRequestSignIn(
      state,
      { userId: USER, email: EMAIL, tokenHash: hash(command.token) },
      { now: at(command.ms), correlationId: 'c' },
    ),
  );

  it('given nothing, when a link is requested, then SignInRequested with the token hash, valid 15 minutes', () => {
    given([])
      .when({ token: '1', ms: 0 })
      .then([requested('1')]);
  });

  it('given 5 links in the last 15 minutes, when a sixth is requested, then 429 rate_limited and nothing appended', () => {
    const five = ['1', '2', '3', '4', '5'].map((t, i) => requested(t, i * MIN));
    given(five)
      .when({ token: '6', ms: 10 * MIN })
      .thenThrows(refusedWith('rate_limited', 429));
  });

  it('given 5 links, the first 15 minutes ago, when another is requested, then it is sent', () => {
    const five = ['1', '2', '3', '4', '5'].map((t, i) => requested(t, i * MIN));
    given(five)
      .when({ token: '6', ms: 15 * MIN })
      .then([requested('6', 15 * MIN)]);
  });
});

describe('following a sign-in link', () => {
  const given = spec((state, command: { link: string; ms: number; session?: string }) =>
    decideStartSession(
      state,
      {
        signInTokenHash: hash(command.link),
        sessionId: command.session ?? SESSION,
        sessionTokenHash: hash('s'),
      },
      { now: at(command.ms), correlationId: 'c' },
    ),
  );

  it('given a new address with a link, when it is followed, then the user is registered with its tenant and a session starts', () => {
    given([requested('1')])
      .when({ link: '1', ms: MIN })
      .then([registered(), started(SESSION, 's', '1')]);
  });

  it('given two links of a new address, when the second is followed, then the tenant is the one the first request names, as for the first link', () => {
    given([requested('1'), requested('2', MIN)])
      .when({ link: '2', ms: 2 * MIN })
      .then([registered(2 * MIN), started(SESSION, 's', '2', 2 * MIN)]);
    expect(TENANT).toMatch(/^ten_[0-9a-f]{24}$/);
    expect(firstTenantId(userAggregate.evolve(userAggregate.initial(), requested('2')))).not.toBe(TENANT);
  });

  it('given a registered user, when a new link is followed, then only a session starts (its tenant stays)', () => {
    given([requested('1'), registered(), started(SESSION, 's', '1'), requested('2', 2 * MIN)])
      .when({ link: '2', ms: 3 * MIN, session: SESSION_2 })
      .then([started(SESSION_2, 's', '2', 3 * MIN)]);
  });

  it('given a link already followed, when it is followed again, then 401 unauthorized', () => {
    given([requested('1'), registered(), started(SESSION, 's', '1')])
      .when({ link: '1', ms: 2 * MIN })
      .thenThrows(refusedWith('unauthorized', 401));
  });

  it('given a link of 15 minutes ago, when it is followed, then 401 unauthorized', () => {
    given([requested('1')])
      .when({ link: '1', ms: 15 * MIN })
      .thenThrows(refusedWith('unauthorized', 401));
  });

  it('given no link, when an unknown token is followed, then 401 unauthorized', () => {
    given([requested('1')])
      .when({ link: '9', ms: MIN })
      .thenThrows(refusedWith('unauthorized', 401));
  });
});

describe('ending sessions', () => {
  const given = spec((state, command: { session: string; ms: number }) =>
    decideEndSession(
      state,
      { sessionId: command.session, reason: 'logout' },
      { now: at(command.ms), correlationId: 'c' },
    ),
  );
  const history = [requested('1'), registered(), started(SESSION, 's', '1')];

  it('given a live session, when it is ended, then SessionEnded names it and its token hash', () => {
    given(history)
      .when({ session: SESSION, ms: 2 * MIN })
      .then([
        {
          type: 'SessionEnded',
          data: {
            user_id: USER,
            session_id: SESSION,
            token_hash: hash('s'),
            ended_at: iso(2 * MIN),
            reason: 'logout',
          },
        },
      ]);
  });

  it('given the session ended, when it is ended again, then 404 not_found', () => {
    const ended: UserEvent = {
      type: 'SessionEnded',
      data: {
        user_id: USER,
        session_id: SESSION,
        token_hash: hash('s'),
        ended_at: iso(2 * MIN),
        reason: 'logout',
      },
    };
    given([...history, ended])
      .when({ session: SESSION, ms: 3 * MIN })
      .thenThrows(refusedWith('not_found', 404));
  });

  it('given a session past its 30 days, when it is ended, then 404 not_found', () => {
    given(history)
      .when({ session: SESSION, ms: 31 * DAY })
      .thenThrows(refusedWith('not_found', 404));
  });
});

describe('the admin role', () => {
  const given = spec((state, role: 'admin' | 'user') =>
    decideChangeRole(state, { role, operator: 'ops@host' }, { now: at(5 * MIN), correlationId: 'c' }),
  );

  it('given a registered user, when admin is granted, then UserRoleChanged', () => {
    given([requested('1'), registered()])
      .when('admin')
      .then([
        {
          type: 'UserRoleChanged',
          data: {
            user_id: USER,
            role: 'admin',
            previous_role: 'user',
            changed_at: iso(5 * MIN),
            changed_by: 'ops@host',
          },
        },
      ]);
  });

  it('given an admin, when admin is granted again, then nothing happens', () => {
    const granted: UserEvent = {
      type: 'UserRoleChanged',
      data: {
        user_id: USER,
        role: 'admin',
        previous_role: 'user',
        changed_at: iso(2 * MIN),
        changed_by: 'ops',
      },
    };
    given([requested('1'), registered(), granted])
      .when('admin')
      .thenNothingHappened();
  });

  it('given an address that never signed in, when admin is granted, then 404 not_found', () => {
    given([requested('1')])
      .when('admin')
      .thenThrows(refusedWith('not_found', 404));
  });
});

describe('WebSocket tickets', () => {
  const history = [requested('1'), registered(), started(SESSION, 's', '1')];
  const issue = spec((state, command: { ticket: string; ms: number }) =>
    decideIssueTicket(
      state,
      { agentId: AGENT, sessionId: SESSION, ticketHash: hash(command.ticket) },
      { now: at(command.ms), correlationId: 'c' },
    ),
  );
  const redeem = spec((state, command: { ticket: string; agent: string; ms: number }) =>
    decideRedeemTicket(
      state,
      { ticketHash: hash(command.ticket), agentId: command.agent },
      { now: at(command.ms), correlationId: 'c' },
    ),
  );
  const redeemed = (ticket: string, ms: number): UserEvent => ({
    type: 'WsTicketRedeemed',
    data: { user_id: USER, agent_id: AGENT, ticket_hash: hash(ticket), redeemed_at: iso(ms) },
  });

  it('given a session, when a ticket is minted, then WsTicketIssued: its hash, bound to the agent, 30 s', () => {
    issue(history)
      .when({ ticket: 'e', ms: 2 * MIN })
      .then([ticketIssued('e')]);
  });

  it('given 20 unused tickets, when another is minted, then 429 rate_limited', () => {
    const issued = Array.from({ length: 20 }, (_, i): UserEvent => {
      const event = ticketIssued('e') as Extract<UserEvent, { type: 'WsTicketIssued' }>;
      return { ...event, data: { ...event.data, ticket_hash: i.toString(16).padStart(64, '0') } };
    });
    issue([...history, ...issued])
      .when({ ticket: 'e', ms: 2 * MIN + 1000 })
      .thenThrows(refusedWith('rate_limited', 429));
  });

  it('given a ticket, when it is redeemed for its agent within 30 s, then WsTicketRedeemed', () => {
    redeem([...history, ticketIssued('e')])
      .when({ ticket: 'e', agent: AGENT, ms: 2 * MIN + 29_000 })
      .then([redeemed('e', 2 * MIN + 29_000)]);
  });

  it('given a redeemed ticket, when it is redeemed again, then 401 unauthorized', () => {
    redeem([...history, ticketIssued('e'), redeemed('e', 2 * MIN + 1000)])
      .when({ ticket: 'e', agent: AGENT, ms: 2 * MIN + 2000 })
      .thenThrows(refusedWith('unauthorized', 401));
  });

  it('given a ticket of 30 s ago, when it is redeemed, then 401 unauthorized', () => {
    redeem([...history, ticketIssued('e')])
      .when({ ticket: 'e', agent: AGENT, ms: 2 * MIN + 30_000 })
      .thenThrows(refusedWith('unauthorized', 401));
  });

  it('given a ticket for one agent, when it is presented for another, then 403 forbidden (and it is not used up)', () => {
    redeem([...history, ticketIssued('e')])
      .when({ ticket: 'e', agent: OTHER_AGENT, ms: 2 * MIN + 1000 })
      .thenThrows(refusedWith('forbidden', 403));
  });
});

describe('the state stays small', () => {
  it('drops expired links, tickets and sessions as later events arrive', () => {
    const events = [
      requested('1'),
      registered(),
      started(SESSION, 's', '1'),
      ticketIssued('e'),
      requested('2', 31 * DAY),
    ];
    const state = events.reduce(userAggregate.evolve, userAggregate.initial());
    expect(state.sessions).toEqual([]);
    expect(state.tickets).toEqual([]);
    expect(state.sign_ins.map((link) => link.token_hash)).toEqual([hash('2')]);
    expect(state.requested_at).toEqual([iso(31 * DAY)]);
  });
});
