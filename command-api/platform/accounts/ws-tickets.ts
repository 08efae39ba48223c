/**
 * WebSocket tickets: `POST /v1/ws-ticket {agent_id}` mints one for one of the caller's agents; the
 * chat socket redeems it (`redeemTicket`) when it is opened with `?ticket=`. Single use, bound to the
 * user and the agent, 30 seconds. Issue and use are events of the user's stream (only the ticket's
 * hash), so any process can redeem a ticket another minted, and only once.
 */
import type { Request, Response } from 'express';
import type { WsTicketBody } from '../../../event-schemas';
import type { PlatformErrorCode } from '../../../runtime/http/platform-errors';
import { sendPlatformError } from '../../../runtime/http/platform-errors';
import { sendRefusal } from '../refusal';
import type { PlatformServices } from '../services';
import { callerOf } from './access';
import { hashToken, issueUserToken, userOfToken } from './tokens';
import { decideIssueTicket, decideRedeemTicket, TICKET_REFUSED } from './user-commands';
import { userStream } from './user-state';

export function issueTicket(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const caller = callerOf(res);
    const agentId = (req.body as WsTicketBody).agent_id;
    const owner = await services.agentDirectory.ownerOf(agentId);
    if (caller.kind !== 'session' || owner?.userId !== caller.userId) {
      sendPlatformError(
        res,
        404,
        'not_found',
        'no agent with this id belongs to you (it may have been deleted)',
      );
      return;
    }
    const ticket = issueUserToken('wst', caller.userId);
    const decided = await services.users.execute(userStream(caller.userId), (state) =>
      decideIssueTicket(
        state,
        { agentId, sessionId: caller.sessionId, ticketHash: hashToken(ticket) },
        { now: services.clock(), correlationId: res.locals.correlationId as string },
      ),
    );
    if (decided.kind === 'refused') {
      sendRefusal(res, decided);
      return;
    }
    res.status(200).json({ ticket, expires_at: decided.expires_at });
  };
}

export type TicketRedemption =
  | { ok: true; userId: string; agentId: string }
  | { ok: false; status: number; error: PlatformErrorCode; detail: string };

/**
 * Uses a ticket up to open `agentId`'s chat socket: the user it was minted for, or why not (unknown,
 * used or expired: 401; minted for another agent: 403, and the ticket stays usable for its own).
 */
export async function redeemTicket(
  services: Pick<PlatformServices, 'users' | 'clock'>,
  ticket: string,
  agentId: string,
  correlationId = 'ws-ticket',
): Promise<TicketRedemption> {
  const userId = userOfToken('wst', ticket);
  if (!userId) return { ok: false, status: 401, error: 'unauthorized', detail: TICKET_REFUSED };
  const decided = await services.users.execute(userStream(userId), (state) =>
    decideRedeemTicket(
      state,
      { ticketHash: hashToken(ticket), agentId },
      { now: services.clock(), correlationId },
    ),
  );
  if (decided.kind === 'refused')
    return { ok: false, status: decided.status, error: decided.error, detail: decided.message };
  return { ok: true, userId: decided.user_id, agentId: decided.agent_id };
}
