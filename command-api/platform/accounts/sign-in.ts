/**
 * Passwordless sign-in. `POST /v1/auth/login {email}` appends a sign-in request (the hash of a new
 * single-use token) to the address's user stream and mails the link. Following the link
 * (`GET /v1/auth/callback?token=…`) shows a page with one button and uses nothing up (mail scanners
 * fetch links too); its form's `POST /v1/auth/callback` uses the token up and starts a session, whose
 * cookie it sets. The first sign-in of an address registers the user and the governance tenant it owns.
 */
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { newSessionId, userIdOfEmail } from '../../../domain/platform/ids';
import type { AuthCallbackBody, AuthLoginBody } from '../../../event-schemas';
import { WrongExpectedVersionError } from '../../../ports/event-store';
import { sendPlatformError } from '../../../runtime/http/platform-errors';
import {
  decideRegisterTenant,
  decideRegistration,
  TenantExistsError,
} from '../../governance/tenants/register-tenant';
import { sendRefusal } from '../refusal';
import type { PlatformServices } from '../services';
import { notCrossSite, SESSION_COOKIE } from './access';
import { deadLinkPage, sendPage, signInPage } from './sign-in-page';
import { hashToken, issueToken, issueUserToken, userOfToken } from './tokens';
import {
  decideRequestSignIn,
  decideStartSession,
  firstTenantId,
  LINK_REFUSED,
  pendingSignIn,
  SESSION_TTL_MS,
  SIGN_IN_TTL_MS,
} from './user-commands';
import { userStream } from './user-state';

/** Where a sign-in link leads (on the platform's public URL). */
export const CALLBACK_PATH = '/v1/auth/callback';

export const LOGIN_ACCEPTED_DETAIL =
  'if the address can receive mail, a sign-in link is on its way; it works once, for 15 minutes';

function context(services: PlatformServices, res: Response) {
  return { now: services.clock(), correlationId: res.locals.correlationId as string };
}

export function requestSignIn(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const email = (req.body as AuthLoginBody).email.trim().toLowerCase();
    const userId = userIdOfEmail(email);
    const token = issueUserToken('sit', userId);
    const decided = await services.users.execute(userStream(userId), (state) =>
      decideRequestSignIn(state, { userId, email, tokenHash: hashToken(token) }, context(services, res)),
    );
    if (decided.kind === 'refused') {
      sendRefusal(res, decided);
      return;
    }
    const link = `${services.config.platformPublicUrl}${CALLBACK_PATH}?token=${token}`;
    try {
      await services.mailer.send({
        to: email,
        subject: 'Your sign-in link',
        text: [
          'Open this link and press "Sign in" to sign in to the agent platform:',
          '',
          link,
          '',
          `It works once, for ${SIGN_IN_TTL_MS / 60_000} minutes. If you did not ask to sign in, ignore this mail.`,
        ].join('\n'),
      });
    } catch (error) {
      // The server's reply may quote the address: only its codes are logged.
      const { code, responseCode } = error as { code?: string; responseCode?: number };
      (res.locals.logger ?? services.logger).error(
        { code, responseCode },
        'a sign-in mail could not be sent',
      );
      sendPlatformError(
        res,
        503,
        'service_unavailable',
        'the sign-in mail could not be sent just now; retry in a minute',
        { headers: { 'Retry-After': '60' } },
      );
      return;
    }
    res.status(202).json({ detail: LOGIN_ACCEPTED_DETAIL, expires_in: SIGN_IN_TTL_MS / 1000 });
  };
}

/**
 * The link's page (`GET`): uses nothing up, so a mail scanner's fetch leaves the link working. A live
 * link's page (200) has the button that signs in; a dead one's (401, as the POST would answer) says so.
 */
export function showSignInPage(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const link = await liveLink(services, token);
    if (!link) {
      sendPage(res, 401, deadLinkPage(LINK_REFUSED));
      return;
    }
    const action = `${services.config.platformPublicUrl}${CALLBACK_PATH}`;
    sendPage(res, 200, signInPage({ action, token, email: link.email, expiresAt: link.expires_at }));
  };
}

/** The pending link of `token` and its user's address, as the user's stream holds them now; null if none. */
async function liveLink(
  services: PlatformServices,
  token: string,
): Promise<{ email: string; expires_at: string } | null> {
  const userId = userOfToken('sit', token);
  if (!userId) return null;
  const tokenHash = hashToken(token);
  // A decision that appends nothing: the writer checks its cached state against the stream first, so a
  // link sent through another process is seen.
  const { found } = await services.users.execute(userStream(userId), (state) => {
    const link = pendingSignIn(state, tokenHash, services.clock());
    return { events: [], result: { found: link && { email: state.email, expires_at: link.expires_at } } };
  });
  return found;
}

const CROSS_SITE_DETAIL =
  "a sign-in link is completed from the platform's own page: this request's Origin (or Referer) is another site's";

/**
 * Login CSRF: a form on another site must not sign a visitor's browser in as the attacker. The POST
 * starts a session rather than using one, so it is checked here, not by the session access.
 */
export function refuseCrossSiteSignIn(services: PlatformServices) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (notCrossSite(req, services.config.platformPublicUrl)) next();
    else sendPlatformError(res, 403, 'csrf_rejected', CROSS_SITE_DETAIL);
  };
}

/**
 * Signing in (`POST`, the page's form or a JSON body): the link is used up and a session starts, whose
 * cookie the answer sets. The form is sent on to the platform's root with 303; a JSON client gets the
 * session as JSON (200).
 */
export function completeSignIn(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { token } = req.body as AuthCallbackBody;
    const userId = userOfToken('sit', token);
    if (!userId) {
      sendPlatformError(res, 401, 'unauthorized', LINK_REFUSED);
      return;
    }
    const stream = userStream(userId);
    const tokenHash = hashToken(token);
    const before = await services.users.state(stream);
    // Checked before a first sign-in registers a tenant, so a dead link registers none (the decision
    // below checks again, on the state it decides on).
    if (!pendingSignIn(before, tokenHash, services.clock())) {
      sendPlatformError(res, 401, 'unauthorized', LINK_REFUSED);
      return;
    }
    if (!before.registered) await registerTenant(services, res, before.email, firstTenantId(before));
    const sessionToken = issueToken();
    const decided = await services.users.execute(stream, (state) =>
      decideStartSession(
        state,
        {
          signInTokenHash: tokenHash,
          sessionId: newSessionId(),
          sessionTokenHash: hashToken(sessionToken),
        },
        context(services, res),
      ),
    );
    if (decided.kind === 'refused') {
      sendRefusal(res, decided);
      return;
    }
    await services.readYourWrite(decided.position as number, ['UserRegistered', 'SessionStarted']);
    setSessionCookie(services, res, sessionToken);
    if (req.is('application/x-www-form-urlencoded')) {
      res.status(303).location(`${services.config.platformPublicUrl}/`).end();
      return;
    }
    res.status(200).json({
      session_id: decided.session_id,
      expires_at: decided.expires_at,
      email: decided.email,
      tenant_id: decided.tenant_id,
    });
  };
}

/**
 * The tenant a user owns: registered as the clearinghouse registers one (a live L1 tenant), with the
 * user's address, under the id every attempt at the user's first sign-in names (`firstTenantId`):
 * registered already (by a racing attempt, or an earlier one that failed after it) is as good. Its API
 * key is drawn and only its hash kept, as always, but it is shown to no one: the user works through the
 * platform, with a session.
 */
async function registerTenant(
  services: PlatformServices,
  res: Response,
  email: string,
  tenantId: string,
): Promise<void> {
  const registration = decideRegisterTenant({ email, mode: 'live' }, services.clock(), {
    tenantId,
    nodeId: `node_${randomBytes(12).toString('hex')}`,
  });
  let position: number | null;
  try {
    ({ position } = await services.tenants.execute(
      registration.stream,
      (state) => decideRegistration(state, registration, res.locals.correlationId as string),
      { create: true },
    ));
  } catch (error) {
    // The stream exists: as this writer knows it (TenantExistsError) or as the store does.
    if (!(error instanceof TenantExistsError || error instanceof WrongExpectedVersionError)) throw error;
    position = await registeredAt(services, registration.stream);
  }
  // Read models advance on the events they read: wait at the registration's own position.
  if (position !== null) await services.readYourWrite(position, ['TenantRegistered']);
}

/** Where the tenant stream's registration (its first event) is in the store. */
async function registeredAt(services: PlatformServices, stream: string): Promise<number | null> {
  for await (const event of services.eventStore.readStream(stream, { maxCount: 1 })) return event.position;
  return null;
}

/** `gov_session`: HttpOnly, SameSite=Lax, Path=/, Secure when the platform is served over https. */
function setSessionCookie(services: PlatformServices, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: services.config.platformPublicUrl.startsWith('https:'),
    maxAge: SESSION_TTL_MS,
  });
}

/** Tells the browser to forget the cookie (after its session ended). */
export function clearSessionCookie(services: PlatformServices, res: Response): void {
  res.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: services.config.platformPublicUrl.startsWith('https:'),
  });
}
