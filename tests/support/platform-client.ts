/**
 * The agent platform from a test's side: a started server whose sign-in mail goes to an SMTP server in
 * the test (the `smtp-server` package), signing in by the emailed link as a person would, an operator's
 * admin grant, and requests with a session cookie (and the platform's Origin) or an agent key.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { decideChangeRole } from '../../command-api/platform/accounts/user-commands';
import { userStream } from '../../command-api/platform/accounts/user-state';
import { userIdOfEmail } from '../../domain/platform/ids';
import { startTestServer, type TestServer } from './governance-client';
import { MailCatcher, signInByMail } from './mail-catcher';

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

/** A user signed in by the emailed link. */
interface SignedInUser {
  email: string;
  cookie: string;
}

/** A suite's platform: the started server, a client of it, and two users signed in. */
export interface PlatformSuite {
  server: PlatformTestServer;
  client: PlatformClient;
  alice: SignedInUser;
  bob: SignedInUser;
}

/**
 * Starts the platform before the suite's tests, with its client and two users signed in (alice and
 * bob), hands them to `use`, and disposes of the server after the tests.
 */
export function usePlatformSuite(
  prefix: string,
  use: (suite: PlatformSuite) => void,
  options: Parameters<typeof startPlatformTestServer>[1] = {},
): void {
  let server: PlatformTestServer | undefined;
  beforeAll(async () => {
    server = await startPlatformTestServer(prefix, options);
    const client = new PlatformClient(server);
    use({ server, client, alice: await client.newUser('alice'), bob: await client.newUser('bob') });
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
  });
}

/** A user's session as a request's credentials. */
export const session = (user: { cookie: string }): Credentials => ({ cookie: user.cookie });

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
  signIn(email: string): Promise<{ cookie: string }> {
    return signInByMail(this.server.platformUrl, this.server.mail, email);
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
