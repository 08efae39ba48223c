/** The accounts feature's reads: the caller (`GET /v1/auth/me`) and its sessions. */
import type { Request, Response } from 'express';
import { callerOf, SESSION } from '../../../command-api/platform/accounts/access';
import type { PlatformServices } from '../../../command-api/platform/services';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { sendPlatformError } from '../../../runtime/http/platform-errors';
import type { Route } from '../../../runtime/http/route-table';
import { accountOf, liveSessionsOf, SESSIONS_LISTED } from './accounts';

export const accountReadRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'get',
    path: '/v1/auth/me',
    access: SESSION,
    tags: ['auth'],
    operationId: 'getMe',
    summary: 'The signed-in caller: email, role, tier and tenant',
    description:
      'The tier is that of the governance tenant the user owns, as it is now (an operator changes it: `gov tenant tier`); the role is `admin` once an operator granted it (`gov user grant-admin`).',
    responses: {
      '200': { description: 'The caller.', content: json(schema('urn:gov:response:auth-me')) },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      const account = await accountOf(services.readModels, callerOf(res).userId);
      if (!account) {
        // A session names a user and tenant that exist: only a read model rebuilt from scratch lacks them.
        sendPlatformError(
          res,
          503,
          'service_unavailable',
          'the accounts are being re-indexed; retry shortly',
          {
            headers: { 'Retry-After': '5' },
          },
        );
        return;
      }
      res.json(account);
    },
  },
  {
    method: 'get',
    path: '/v1/auth/sessions',
    access: SESSION,
    tags: ['auth'],
    operationId: 'listSessions',
    summary: "The caller's live sessions",
    description: `Sessions neither ended nor expired, newest first (at most ${SESSIONS_LISTED}); revoke one with DELETE /v1/auth/sessions/{sessionId}.`,
    responses: {
      '200': { description: 'The sessions.', content: json(schema('urn:gov:response:auth-sessions')) },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      const caller = callerOf(res);
      const sessions = await liveSessionsOf(services.readModels, caller.userId, services.clock());
      res.json({
        sessions: sessions.map((session) => ({
          session_id: session.session_id,
          started_at: session.started_at,
          expires_at: session.expires_at,
          current: caller.kind === 'session' && caller.sessionId === session.session_id,
        })),
      });
    },
  },
];
