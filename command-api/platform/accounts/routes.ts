/** The accounts feature's commands: sign-in, sign-out, session revocation, WebSocket tickets. */
import type { NextFunction, Request, Response } from 'express';
import { clientAddressKey } from '../../../runtime/http/client-address';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { platformErrorResponse, sendPlatformError } from '../../../runtime/http/platform-errors';
import { RequestRateLimiter } from '../../../runtime/http/rate-limit';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';
import type { PlatformServices } from '../services';
import { SESSION } from './access';
import { logout, revokeSession } from './sessions';
import {
  CALLBACK_PATH,
  completeSignIn,
  LOGIN_ACCEPTED_DETAIL,
  refuseCrossSiteSignIn,
  requestSignIn,
  showSignInPage,
} from './sign-in';
import { SIGN_IN_REQUESTS_PER_WINDOW } from './user-commands';
import { issueTicket } from './ws-tickets';

const HOUR_MS = 3_600_000;

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
};

const invalidBody = platformErrorResponse(
  'invalid_request: the body is not JSON, or does not match the schema (detail says what is wrong).',
  ['invalid_request'],
);

/**
 * Sign-in links one client address may ask for per clock hour (GOV_SIGN_INS_PER_IP_HOUR), whatever
 * the addresses: one client cannot mail-bomb many inboxes. (Per inbox, the user's stream limits it.)
 */
function limitSignInsPerClient(services: PlatformServices) {
  const limiter = new RequestRateLimiter(services.clock, HOUR_MS);
  return (req: Request, res: Response, next: NextFunction): void => {
    const perHour = services.config.signInsPerIpHour;
    const wait = limiter.take(clientAddressKey(req), perHour);
    if (wait === null) {
      next();
      return;
    }
    sendPlatformError(
      res,
      429,
      'rate_limited',
      `more than ${perHour} sign-in links were asked for from this address in an hour; retry in ${wait} s`,
      { headers: { 'Retry-After': String(wait) } },
    );
  };
}

export const accountCommandRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'post',
    path: '/v1/auth/login',
    access: PUBLIC,
    body: { command: 'auth-login', description: 'The address to send the sign-in link to.' },
    use: (services) => [limitSignInsPerClient(services)],
    tags: ['auth'],
    operationId: 'requestSignIn',
    summary: 'Email a one-time sign-in link',
    description:
      'Sends a sign-in link (`{platform_url}/v1/auth/callback?token=…`, single use, valid 15 minutes: it opens a page whose button signs in) to the address, by SMTP (GOV_SMTP_URL); on a server without SMTP the link is written to its log instead. The answer is the same whether or not the address has signed in before. The first sign-in of an address creates its user and the governance tenant it owns (tier L1).',
    responses: {
      '202': {
        description: `Accepted: ${LOGIN_ACCEPTED_DETAIL}.`,
        content: json(schema('urn:gov:response:auth-login-accepted')),
      },
      '400': invalidBody,
      '429': {
        ...platformErrorResponse(
          `rate_limited: ${SIGN_IN_REQUESTS_PER_WINDOW} links were sent to this address in the last 15 minutes, or this client address asked for more than GOV_SIGN_INS_PER_IP_HOUR in the current clock hour. Nothing was sent.`,
          ['rate_limited'],
        ),
        headers: RETRY_AFTER,
      },
      '503': {
        ...platformErrorResponse('service_unavailable: the mail could not be handed to the SMTP server.', [
          'service_unavailable',
        ]),
        headers: RETRY_AFTER,
      },
    },
    handler: requestSignIn,
  },
  {
    method: 'get',
    path: CALLBACK_PATH,
    access: PUBLIC,
    query: [
      {
        name: 'token',
        description: "The token of the sign-in link (`sit_…`), as the mail's link carries it.",
        schema: { type: 'string' },
        required: true,
      },
    ],
    tags: ['auth'],
    operationId: 'showSignInPage',
    summary: 'Open a sign-in link: a page with the button that signs in',
    description:
      'The emailed link. It uses nothing up (mail scanners and link previewers fetch every link in a mail): it answers a self-contained HTML page (no script, no external assets, `Cache-Control: no-store`, a Content-Security-Policy that allows only its form posting to this origin) whose one button POSTs the token to /v1/auth/callback. A link that is unknown, used or expired answers a page that says so, with 401.',
    responses: {
      '200': {
        description:
          'The link works: the page with the button that signs in (the address it signs in as, and until when the link works).',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      '400': platformErrorResponse('invalid_request: no token, or another query parameter.', [
        'invalid_request',
      ]),
      '401': {
        description:
          'The link is unknown, already used or expired: a page that says so and how to request a new one (POST /v1/auth/login).',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
    handler: showSignInPage,
  },
  {
    method: 'post',
    path: CALLBACK_PATH,
    access: PUBLIC,
    body: {
      command: 'auth-callback',
      description:
        "The link's token: the sign-in page's form (application/x-www-form-urlencoded), or JSON from an API client.",
      form: true,
    },
    use: (services) => [refuseCrossSiteSignIn(services)],
    tags: ['auth'],
    operationId: 'completeSignIn',
    summary: 'Sign in with the token of a sign-in link: start a session',
    description:
      "Uses the link up and starts a session of 30 days: sets the cookie `gov_session` (HttpOnly, SameSite=Lax, Path=/, Secure when the platform is served over https). The sign-in page's form is sent on to the platform root (303); a JSON body gets the session as JSON (200). A request whose Origin (or, without one, Referer) is not the platform's is refused (login CSRF); one with neither (an API client) is taken.",
    responses: {
      '200': {
        description: 'Signed in (a JSON body); the cookie is set.',
        headers: { 'Set-Cookie': { description: 'gov_session=…', schema: { type: 'string' } } },
        content: json(schema('urn:gov:response:auth-signed-in')),
      },
      '303': {
        description:
          "Signed in (the page's form); the cookie is set and the browser is sent on to the platform root.",
        headers: {
          Location: { description: 'The platform root.', schema: { type: 'string' } },
          'Set-Cookie': { description: 'gov_session=…', schema: { type: 'string' } },
        },
      },
      '400': invalidBody,
      '401': platformErrorResponse(
        'unauthorized: the link is unknown, already used or expired. Request a new one (POST /v1/auth/login).',
        ['unauthorized'],
      ),
      '403': platformErrorResponse(
        "csrf_rejected: the request's Origin (or Referer) is not the platform's public URL (or is `null`).",
        ['csrf_rejected'],
      ),
    },
    handler: completeSignIn,
  },
  {
    method: 'post',
    path: '/v1/auth/logout',
    access: SESSION,
    body: 'none',
    tags: ['auth'],
    operationId: 'logout',
    summary: "End the caller's session",
    description:
      'Ends the session of the cookie (an event: it stops working at once, on every process) and clears the cookie.',
    responses: {
      '204': { description: 'Signed out.' },
      '400': platformErrorResponse('invalid_request: a body that is not empty.', ['invalid_request']),
    },
    handler: logout,
  },
  {
    method: 'delete',
    path: '/v1/auth/sessions/:sessionId',
    access: SESSION,
    params: [
      {
        name: 'sessionId',
        description: "One of the caller's sessions (`ses_…`, from GET /v1/auth/sessions).",
        schema: { type: 'string', pattern: '^ses_[0-9a-f]{24}$' },
      },
    ],
    tags: ['auth'],
    operationId: 'revokeSession',
    summary: "Revoke one of the caller's sessions",
    description: "Ends another session of the caller's (a lost device), or this one (then as logout).",
    responses: {
      '204': { description: 'Revoked.' },
      '404': platformErrorResponse('not_found: the caller has no live session with this id.', ['not_found']),
    },
    handler: revokeSession,
  },
  {
    method: 'post',
    path: '/v1/ws-ticket',
    access: SESSION,
    body: {
      command: 'ws-ticket',
      description: "The agent whose chat socket the ticket opens: one of the caller's.",
    },
    tags: ['auth'],
    operationId: 'mintWsTicket',
    summary: 'Mint a single-use WebSocket ticket',
    description:
      "For the chat socket of one of the caller's agents (`/v1/agents/{agentId}/chat?ticket=…`): works once, for 30 seconds, for that agent only. Browser sessions only.",
    responses: {
      '200': { description: 'The ticket (shown once).', content: json(schema('urn:gov:response:ws-ticket')) },
      '400': invalidBody,
      '404': platformErrorResponse('not_found: no agent with this id belongs to the caller.', ['not_found']),
      '429': {
        ...platformErrorResponse(
          'rate_limited: the caller holds 20 unused tickets; they expire within 30 s.',
          ['rate_limited'],
        ),
        headers: RETRY_AFTER,
      },
    },
    handler: issueTicket,
  },
];
