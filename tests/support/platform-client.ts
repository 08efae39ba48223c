/**
 * The agent platform from a test's side: a started server whose sign-in mail goes to an SMTP server in
 * the test (the `smtp-server` package), signing in by the emailed link as a person would, an operator's
 * admin grant, and requests with a session cookie (and the platform's Origin) or an agent key.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { SMTPServer } from 'smtp-server';
import { decideChangeRole } from '../../command-api/platform/accounts/user-commands';
import { userStream } from '../../command-api/platform/accounts/user-state';
import { userIdOfEmail } from '../../domain/platform/ids';
import { startTestServer, type TestServer } from './governance-client';

interface Mail {
  to: string;
  body: string;
}

/** An SMTP server that keeps every message it is given. */
class MailCatcher {
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

export interface PlatformTestServer extends TestServer {
  mail: MailCatcher;
  /** The platform's base URL (changes with a restart). */
  readonly platformUrl: string;
}

/**
 * `env` is read at every start: a test may change it before a restart. `logger` receives the server's
 * log lines.
 */
export async function startPlatformTestServer(
  prefix: string,
  options: { env?: Record<string, string>; logger?: Logger } = {},
): Promise<PlatformTestServer> {
  const mail = new MailCatcher();
  const smtpUrl = await mail.start();
  const env = Object.assign(options.env ?? {}, { GOV_SMTP_URL: smtpUrl });
  const server = await startTestServer(prefix, {
    env,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const dispose = server.dispose.bind(server);
  const platform = Object.assign(server, {
    mail,
    async dispose() {
      await dispose();
      await mail.close();
    },
  });
  // Read when asked: a restart listens on a new port.
  Object.defineProperty(platform, 'platformUrl', { get: () => server.server.platformUrl });
  return platform as PlatformTestServer;
}

/** Who calls: a session cookie (sent with the platform's Origin), a bearer key, or nobody. */
export type Credentials = { cookie: string } | { key: string } | null;

export interface PlatformAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export class PlatformClient {
  constructor(private readonly server: PlatformTestServer) {}

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    credentials: Credentials,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<PlatformAnswer<T>> {
    const base = this.server.platformUrl;
    const all: Record<string, string> = { ...headers };
    if (credentials && 'cookie' in credentials) {
      all.cookie = `gov_session=${credentials.cookie}`;
      all.origin ??= base;
    }
    if (credentials && 'key' in credentials) all.authorization = `Bearer ${credentials.key}`;
    if (body !== undefined) all['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, {
      method,
      headers: all,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : null) as T,
      headers: response.headers,
    };
  }

  /** Signs in by the emailed link, as a person would: the session cookie's value. */
  async signIn(email: string): Promise<{ cookie: string }> {
    const seen = this.server.mail.mails.length;
    const login = await this.request('POST', '/v1/auth/login', null, { email });
    if (login.status !== 202 && login.status !== 200)
      throw new Error(`login answered ${login.status}: ${JSON.stringify(login.body)}`);
    const mail = await this.server.mail.next(email, seen);
    const link = /https?:\/\/\S+\/v1\/auth\/callback\?token=[A-Za-z0-9_.-]+/.exec(
      quotedPrintable(mail.body),
    )?.[0];
    if (!link) throw new Error('the sign-in mail holds no link');
    const followed = await fetch(link, { headers: { accept: 'application/json' }, redirect: 'manual' });
    const cookie = /gov_session=([^;]+)/.exec(followed.headers.get('set-cookie') ?? '')?.[1];
    if (!cookie) throw new Error(`following the link answered ${followed.status} without a session cookie`);
    return { cookie };
  }

  /** A new address, signed in. */
  async newUser(label = 'user'): Promise<{ email: string; cookie: string }> {
    const email = `${label}-${randomUUID().slice(0, 8)}@example.com`;
    return { email, ...(await this.signIn(email)) };
  }

  /** What an operator's `gov` command does: the admin role for the user of `email`, then seen by the read models. */
  async grantAdmin(email: string): Promise<void> {
    const platform = this.server.server.platform;
    const outcome = await platform.users.execute(userStream(userIdOfEmail(email)), (state) =>
      decideChangeRole(
        state,
        { role: 'admin', operator: 'test' },
        { now: platform.clock(), correlationId: 'test' },
      ),
    );
    if (outcome.position !== null) await platform.awaitProjections(outcome.position, ['UserRoleChanged']);
  }
}
