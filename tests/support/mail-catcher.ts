/**
 * Mail from the platform in a test or a benchmark: an SMTP server (the `smtp-server` package) that
 * keeps every message, and signing in by the link a sign-in mail carries, as a person would.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  to: string;
  body: string;
}

/** An SMTP server that keeps every message it is given. */
export class MailCatcher {
  readonly mails: Mail[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address).join(',');
        this.mails.push({ to, body: Buffer.concat(chunks).toString('utf8') });
        for (const wake of this.waiters) wake();
        callback();
      });
    },
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next mail to `to` after the `seen` first ones of all mail, waited for (5 s at most). */
  async next(to: string, seen: number): Promise<Mail> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const mail = this.mails.slice(seen).find((candidate) => candidate.to === to);
      if (mail) return mail;
      if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          resolve();
        };
        this.waiters.add(wake);
        setTimeout(wake, 100);
      });
    }
  }
}

/** A message body's text with quoted-printable soft breaks and escapes undone. */
function quotedPrintable(body: string): string {
  return body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The sign-in link a mail carries (its text decoded from quoted-printable). */
export function signInLinkOf(mail: Mail): string {
  const link = /https?:\/\/\S+\/v1\/auth\/callback\?token=[A-Za-z0-9_.-]+/.exec(
    quotedPrintable(mail.body),
  )?.[0];
  if (!link) throw new Error('the sign-in mail holds no link');
  return link;
}

/**
 * Signs in at the platform `platformUrl` by the link mailed to `mail` (a server started with
 * GOV_SMTP_URL of that catcher), as a person would: opens the link (twice: a mail scanner's fetch must
 * not use it up), then posts the page's form. The session cookie's value.
 */
export async function signInByMail(
  platformUrl: string,
  mail: MailCatcher,
  email: string,
): Promise<{ cookie: string }> {
  const seen = mail.mails.length;
  const login = await fetch(`${platformUrl}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  if (login.status !== 202 && login.status !== 200)
    throw new Error(`login answered ${login.status}: ${await login.text()}`);
  const link = signInLinkOf(await mail.next(email, seen));
  const form = await openSignInPage(link);
  await openSignInPage(link);
  const posted = await fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(link).origin },
    body: new URLSearchParams({ token: form.token }).toString(),
    redirect: 'manual',
  });
  const cookie = /gov_session=([^;]+)/.exec(posted.headers.get('set-cookie') ?? '')?.[1];
  if (posted.status !== 303 || !cookie)
    throw new Error(`the sign-in form answered ${posted.status} without a session cookie`);
  return { cookie };
}

/** The form of a sign-in link's page: where it posts and the token it carries (the page's own HTML). */
async function openSignInPage(link: string): Promise<{ action: string; token: string }> {
  const page = await fetch(link, { redirect: 'manual' });
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  const token = /<input type="hidden" name="token" value="([^"]+)">/.exec(html)?.[1];
  if (page.status !== 200 || !action || !token)
    throw new Error(`the sign-in link's page answered ${page.status} without its form`);
  return { action, token };
}
