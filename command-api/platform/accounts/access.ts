/**
 * Who may call a platform route (runtime/http/route-table.ts `Access`): a browser session (cookie
 * `gov_session`), an admin's session, or, on an agent's routes, its owner's session or a `svc_` key of
 * that agent. Every platform route that is not public takes one of these.
 *
 * A request with an `Authorization` header is a key caller whatever cookie it also sends: browsers do
 * not send that header by themselves, so a key caller is never refused for want of an Origin (CSRF).
 */

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { hashApiKey, isRawApiKey } from '../../../domain/platform/ids';
import {
  type PlatformErrorCode,
  platformErrorResponse,
  sendPlatformError,
} from '../../../runtime/http/platform-errors';
import type { Access } from '../../../runtime/http/route-table';
import type { PlatformServices } from '../services';
import { hashToken, TOKEN } from './tokens';

export const SESSION_COOKIE = 'gov_session';

export type PlatformCaller =
  | {
      kind: 'session';
      userId: string;
      email: string;
      role: 'user' | 'admin';
      tenantId: string;
      sessionId: string;
    }
  | { kind: 'key'; userId: string; tenantId: string; agentId: string; keyId: string; scopes: string[] };

/** The agent of an `/v1/agents/:agentId…` route, set by `agentAccess`. */
export interface AgentRef {
  agentId: string;
  ownerId: string;
  tenantId: string;
}

/** The caller an access admitted. */
export function callerOf(res: Response): PlatformCaller {
  return res.locals.platformCaller as PlatformCaller;
}

/** The agent `agentAccess` admitted the caller to. */
export function agentOf(res: Response): AgentRef {
  return res.locals.platformAgent as AgentRef;
}

// ---- Who the caller is -------------------------------------------------------------------------------

/** The scheme's name is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^bearer +(\S+)$/i;
const COOKIE = new RegExp(`(?:^|;)\\s*${SESSION_COOKIE}=([^;]*)`);

type Presented = { kind: 'key'; value: string } | { kind: 'session'; value: string } | null;

function keyPresented(authorization: string): Presented {
  return { kind: 'key', value: BEARER.exec(authorization)?.[1] ?? '' };
}

function presented(req: Request): Presented {
  const authorization = req.get('authorization');
  if (authorization !== undefined) return keyPresented(authorization);
  const cookie = COOKIE.exec(req.get('cookie') ?? '')?.[1];
  return cookie === undefined ? null : { kind: 'session', value: cookie.trim() };
}

/** The live session of a cookie's token, or null (malformed, unknown, ended or expired). */
async function sessionCaller(services: PlatformServices, token: string): Promise<PlatformCaller | null> {
  if (!TOKEN.test(token)) return null;
  const session = await services.sessionDirectory.byTokenHash(hashToken(token));
  if (!session || Date.parse(session.expiresAt) <= services.clock().getTime()) return null;
  const { sessionId, userId, email, role, tenantId } = session;
  return { kind: 'session', sessionId, userId, email, role, tenantId };
}

/** The holder of a presented `svc_sk_` key, or null (malformed, unknown or revoked). */
async function keyCaller(services: PlatformServices, key: string): Promise<PlatformCaller | null> {
  if (!isRawApiKey(key)) return null;
  const holder = await services.agentDirectory.keyByHash(hashApiKey(key));
  return holder ? { kind: 'key', ...holder, scopes: [...holder.scopes] } : null;
}

const UNAUTHORIZED_DETAIL =
  'sign in (POST /v1/auth/login, then follow the emailed link) or send an agent key as "Authorization: Bearer svc_sk_…"';

function refuse(res: Response, status: number, error: PlatformErrorCode, detail: string): void {
  sendPlatformError(res, status, error, detail);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence for a cookie caller's state-changing request: its `Origin` (or, without one, its
 * `Referer`) must be the platform's public origin. Browsers set `Origin` on every cross-site POST, so
 * a page elsewhere cannot use a visitor's cookie; SameSite=Lax is the second line.
 */
function sameOrigin(req: Request, publicUrl: string): boolean {
  if (SAFE_METHODS.has(req.method)) return true;
  const claimed = claimedOrigin(req);
  return typeof claimed === 'string' && claimed === originOf(publicUrl);
}

/**
 * Login CSRF defence for a request that starts a session (it uses none, so `sameOrigin` cannot be
 * required of API clients, which send neither header): an `Origin` or `Referer` it does send must be
 * the platform's. A browser sends `Origin` on every form POST, as `null` when the posting page hides
 * where it is (a sandboxed frame, `Referrer-Policy: no-referrer`): refused, as a foreign one is.
 */
export function notCrossSite(req: Request, publicUrl: string): boolean {
  const claimed = claimedOrigin(req);
  return claimed === undefined || (claimed !== null && claimed === originOf(publicUrl));
}

/**
 * The origin a request says it comes from: its `Origin`, else its `Referer`'s; null for `Origin: null`
 * or an unreadable one; undefined when it sends neither.
 */
function claimedOrigin(req: Request): string | null | undefined {
  const origin = req.get('origin');
  if (origin !== undefined) return origin === 'null' ? null : originOf(origin);
  const referer = req.get('referer');
  return referer === undefined ? undefined : originOf(referer);
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

const CSRF_DETAIL =
  "a signed-in browser's request that changes something must come from the platform's own pages: its Origin (or Referer) must be the platform's public URL";

/** Admits a session caller (after the CSRF check) into `res.locals`; refuses everyone else. */
function admitSession(services: PlatformServices): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const credentials = presented(req);
    if (credentials?.kind === 'key') {
      if (isRawApiKey(credentials.value))
        refuse(res, 403, 'session_required', 'this route serves signed-in users only, not agent API keys');
      else refuse(res, 401, 'unauthorized', UNAUTHORIZED_DETAIL);
      return;
    }
    const caller = credentials ? await sessionCaller(services, credentials.value) : null;
    if (!caller) {
      refuse(res, 401, 'unauthorized', UNAUTHORIZED_DETAIL);
      return;
    }
    if (!sameOrigin(req, services.config.platformPublicUrl)) {
      refuse(res, 403, 'csrf_rejected', CSRF_DETAIL);
      return;
    }
    res.locals.platformCaller = caller;
    next();
  };
}

function requireAdmin(_req: Request, res: Response, next: NextFunction): void {
  const caller = callerOf(res);
  if (caller.kind === 'session' && caller.role === 'admin') {
    next();
    return;
  }
  refuse(res, 403, 'forbidden', 'this needs the admin role, which an operator grants (gov user grant-admin)');
}

// ---- The accesses --------------------------------------------------------------------------------------

const UNAUTHORIZED_RESPONSE = platformErrorResponse(
  'unauthorized: no session cookie, or one that is unknown, ended or expired (or, where keys are taken, an unknown or revoked key).',
  ['unauthorized'],
);

/** A signed-in user's session (cookie `gov_session`) only: collection routes, tickets, the caller's own account. */
export const SESSION: Access<PlatformServices> = {
  admit: (services) => [admitSession(services)],
  security: [{ session: [] }],
  responses: {
    '401': UNAUTHORIZED_RESPONSE,
    '403': platformErrorResponse(
      "session_required: an agent API key called a route for signed-in users; csrf_rejected: a state-changing request with the session cookie whose Origin (or Referer) is not the platform's public URL.",
      ['session_required', 'csrf_rejected'],
    ),
  },
};

/** A session whose user holds the admin role. */
export const ADMIN: Access<PlatformServices> = {
  ...SESSION,
  require: requireAdmin,
  responses: {
    ...SESSION.responses,
    '403': platformErrorResponse(
      'forbidden: the user does not hold the admin role; session_required: an API key was sent; csrf_rejected: see SESSION.',
      ['forbidden', 'session_required', 'csrf_rejected'],
    ),
  },
};

const byScope = new Map<string, Access<PlatformServices>>();

/**
 * For every `/v1/agents/:agentId…` route: the owner's session, or a key of this agent holding `scope`
 * (when given; a key with no scopes holds every scope of its agent). An unknown or deleted agent, or
 * another user's, answers 404 as if it did not exist; a key of another agent, or without the scope, 403.
 */
export function agentAccess(scope?: string): Access<PlatformServices> {
  const name = scope ?? '';
  let access = byScope.get(name);
  if (!access) {
    access = makeAgentAccess(scope);
    byScope.set(name, access);
  }
  return access;
}

function makeAgentAccess(scope: string | undefined): Access<PlatformServices> {
  const keyRule = scope ? ` holding scope \`${scope}\`` : '';
  return {
    admit: (services) => [admitAgentCaller(services, scope)],
    security: [{ session: [] }, { bearer: [] }],
    responses: {
      '401': UNAUTHORIZED_RESPONSE,
      '403': platformErrorResponse(
        `forbidden: an API key of another agent${scope ? `, or one without scope \`${scope}\`` : ''}; csrf_rejected: a state-changing request with the session cookie whose Origin (or Referer) is not the platform's public URL.`,
        ['forbidden', 'csrf_rejected'],
      ),
      '404': platformErrorResponse(
        `not_found: no such agent for this caller (unknown, deleted, or another user's). Callers: the owner's session, or a key of the agent${keyRule}.`,
        ['not_found'],
      ),
    },
  };
}

const AGENT_NOT_FOUND = 'no agent with this id belongs to you (it may have been deleted)';

interface Refusal {
  status: number;
  error: PlatformErrorCode;
  detail: string;
}

type AgentAdmission = { caller: PlatformCaller; agent: AgentRef } | { refusal: Refusal };

/**
 * Who may call an agent's route: the caller presenting `credentials`, admitted to `agentId` as
 * `agentAccess(scope)` admits (`sameOrigin` is the CSRF check of a cookie caller's request), or why not.
 */
async function admitToAgent(
  services: PlatformServices,
  credentials: Presented,
  agentId: string,
  scope: string | undefined,
  sameOrigin: () => boolean,
): Promise<AgentAdmission> {
  let caller: PlatformCaller | null = null;
  if (credentials?.kind === 'key') caller = await keyCaller(services, credentials.value);
  else if (credentials) caller = await sessionCaller(services, credentials.value);
  if (!caller) return { refusal: { status: 401, error: 'unauthorized', detail: UNAUTHORIZED_DETAIL } };
  if (caller.kind === 'key') {
    if (caller.agentId !== agentId)
      return {
        refusal: { status: 403, error: 'forbidden', detail: 'this API key belongs to another agent' },
      };
    if (scope && caller.scopes.length > 0 && !caller.scopes.includes(scope))
      return {
        refusal: {
          status: 403,
          error: 'forbidden',
          detail: `this API key does not hold scope '${scope}', which this route needs`,
        },
      };
  } else if (!sameOrigin()) return { refusal: { status: 403, error: 'csrf_rejected', detail: CSRF_DETAIL } };
  const owner = await services.agentDirectory.ownerOf(agentId);
  if (!owner || owner.userId !== caller.userId)
    return { refusal: { status: 404, error: 'not_found', detail: AGENT_NOT_FOUND } };
  return { caller, agent: { agentId, ownerId: owner.userId, tenantId: owner.tenantId } };
}

function admitAgentCaller(services: PlatformServices, scope: string | undefined): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const param = req.params.agentId;
    const agentId = typeof param === 'string' ? param : '';
    const admission = await admitToAgent(services, presented(req), agentId, scope, () =>
      sameOrigin(req, services.config.platformPublicUrl),
    );
    if ('refusal' in admission) {
      const { status, error, detail } = admission.refusal;
      refuse(res, status, error, detail);
      return;
    }
    res.locals.platformCaller = admission.caller;
    res.locals.platformAgent = admission.agent;
    next();
  };
}

/**
 * The caller of an agent's route presenting a key in `authorization`, admitted as `agentAccess(scope)`
 * admits it; null for any other caller, or a refused one (the route table's access then words it).
 * For a route's fast path (runtime/http/json-post-fast-path.ts), which takes key callers only.
 */
export async function agentKeyCaller(
  services: PlatformServices,
  authorization: string | undefined,
  agentId: string,
  scope: string | undefined,
): Promise<{ caller: PlatformCaller; agent: AgentRef } | null> {
  if (authorization === undefined) return null;
  const admission = await admitToAgent(services, keyPresented(authorization), agentId, scope, () => false);
  return 'refusal' in admission ? null : admission;
}
