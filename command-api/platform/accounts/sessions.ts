/** Ending sessions: signing out (`POST /v1/auth/logout`) and revoking one (`DELETE /v1/auth/sessions/:sessionId`). */
import type { Request, Response } from 'express';
import { sendRefusal } from '../refusal';
import type { PlatformServices } from '../services';
import { callerOf } from './access';
import { clearSessionCookie } from './sign-in';
import { decideEndSession } from './user-commands';
import { userStream } from './user-state';

async function endSession(
  services: PlatformServices,
  res: Response,
  sessionId: string,
  reason: 'logout' | 'revoked',
): Promise<void> {
  const caller = callerOf(res);
  const decided = await services.users.execute(userStream(caller.userId), (state) =>
    decideEndSession(
      state,
      { sessionId, reason },
      { now: services.clock(), correlationId: res.locals.correlationId as string },
    ),
  );
  if (decided.kind === 'refused') {
    sendRefusal(res, decided);
    return;
  }
  // The cookie stops working as soon as the caller has the answer.
  await services.readYourWrite(decided.position as number, ['SessionEnded']);
  if (caller.kind === 'session' && caller.sessionId === sessionId) clearSessionCookie(services, res);
  res.status(204).end();
}

export function logout(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    const caller = callerOf(res);
    await endSession(services, res, caller.kind === 'session' ? caller.sessionId : '', 'logout');
  };
}

export function revokeSession(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    await endSession(services, res, String(req.params.sessionId), 'revoked');
  };
}
