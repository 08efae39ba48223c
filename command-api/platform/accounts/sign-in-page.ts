/**
 * The page an emailed sign-in link opens (`GET /v1/auth/callback?token=…`). Mail security scanners and
 * link previewers fetch every link in a mail, so the GET uses nothing up: it shows one button, whose
 * form POSTs the token back, and only that POST signs in.
 *
 * The page stands alone: no script, no external asset, one inline style allowed by its hash. Its
 * Content-Security-Policy allows nothing else, a form posting only to this origin, and no framing (a
 * framed button could be clicked by a trick). Every interpolated string is HTML-escaped.
 */
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { escapeHtml } from '../../../domain/governance/wording';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}' +
  'button{font:inherit;padding:.5rem 1.5rem;cursor:pointer}';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * `strict-origin`, not `no-referrer`: with `no-referrer` a browser sends the form's POST with
 * `Origin: null`, which the login-CSRF check must refuse (an attacker's page can send it too). With
 * `strict-origin` the Referer is the origin alone, so the token in this page's URL never leaves in one.
 */
const HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'strict-origin',
  'X-Content-Type-Options': 'nosniff',
};

function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export interface LiveLink {
  /** Where the form posts: the platform's public URL of the callback. */
  action: string;
  token: string;
  email: string;
  /** When the link stops working (ISO 8601). */
  expiresAt: string;
}

/** The page of a live link: who signs in, and the button that does it. */
export function signInPage(link: LiveLink): string {
  return page(
    'Sign in to the agent platform',
    [
      `<p>You are signing in as <strong>${escapeHtml(link.email)}</strong>.</p>`,
      `<form method="post" action="${escapeHtml(link.action)}">`,
      `<input type="hidden" name="token" value="${escapeHtml(link.token)}">`,
      '<button type="submit">Sign in</button>',
      '</form>',
      `<p>This link works once, until ${escapeHtml(link.expiresAt)}. If you did not ask to sign in, close this page.</p>`,
    ].join('\n'),
  );
}

/** The page of a link that no longer works, saying why and what to do. */
export function deadLinkPage(detail: string): string {
  return page('This sign-in link does not work', `<p>${escapeHtml(detail)}</p>`);
}

export function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set(HEADERS).type('html').send(html);
}
