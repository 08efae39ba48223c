import { detectSecrets, SECRET_KINDS } from './secrets';

/** Each finding as [kind, the text it covers]: what a test can read; the code never hands out the text. */
function found(text: string): [string, string][] {
  return detectSecrets(text).map((f) => [f.kind, text.slice(f.start, f.end)]);
}

/** Deterministic key material: letters and digits, never a real credential. */
function body(length: number, seed = 7): string {
  const alphabet = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ';
  let out = '';
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out += alphabet[state % alphabet.length];
  }
  return out;
}

const openAiLegacy = `sk-${body(48)}`;
const openAiProject = `sk-proj-${body(40)}_${body(60, 3)}`;
const anthropic = `sk-ant-api03-${body(93)}-${body(6, 5)}AA`;
const awsKeyId = `AKIA${'IOSFODNN7EXAMPLE'}`;
const githubClassic = `ghp_${body(36)}`;
const githubFineGrained = `github_pat_${body(22)}_${body(59, 9)}`;
const slack = `xoxb-${'1234567890'}-${'1234567890123'}-${body(24)}`;
const google = `AIza${body(35)}`;
const stripe = `sk_live_${body(24)}`;
const jwtHeader = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');
const jwtPayload = Buffer.from('{"sub":"1234567890","name":"Ada"}').toString('base64url');
const jwt = `${jwtHeader}.${jwtPayload}.${body(43)}`;
const pem = [
  '-----BEGIN RSA PRIVATE KEY-----',
  `MIIEow${body(58)}`,
  `${body(64, 11)}`,
  '-----END RSA PRIVATE KEY-----',
].join('\n');
const platformKey = `svc_sk_${body(43)}`;
const govKey = `gov_live_0123456789abcdef_${body(43)}`;

describe('G3 secret detectors', () => {
  it.each([
    ['an OpenAI key', `my key is ${openAiLegacy}.`, [['openai_api_key', openAiLegacy]]],
    ['an OpenAI project key', `OPENAI ${openAiProject}`, [['openai_api_key', openAiProject]]],
    ['an Anthropic key (not also an OpenAI one)', `key=${anthropic}`, [['anthropic_api_key', anthropic]]],
    ['an AWS access key id', `aws ${awsKeyId} in us-east-1`, [['aws_access_key_id', awsKeyId]]],
    ['a classic GitHub token', `token ${githubClassic}`, [['github_token', githubClassic]]],
    ['a fine-grained GitHub token', githubFineGrained, [['github_token', githubFineGrained]]],
    ['a Slack bot token', `slack: ${slack}`, [['slack_token', slack]]],
    ['a Google API key', `?key=${google}&q=1`, [['google_api_key', google]]],
    ['a Stripe live secret key', `stripe ${stripe}`, [['stripe_secret_key', stripe]]],
    ['a JWT', `Authorization: Bearer ${jwt}`, [['jwt', jwt]]],
    ['a PEM private key block', `here:\n${pem}\nthanks`, [['private_key', pem]]],
    [
      'a private key block cut short',
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${body(70)}`,
      [['private_key', `-----BEGIN OPENSSH PRIVATE KEY-----\n${body(70)}`]],
    ],
    [
      'a PGP private key block',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----\nabc\n-----END PGP PRIVATE KEY BLOCK-----',
      [['private_key', '-----BEGIN PGP PRIVATE KEY BLOCK-----\nabc\n-----END PGP PRIVATE KEY BLOCK-----']],
    ],
    [
      'a password in a URL (user and password, not the host)',
      'postgres://admin:S3cr3t!@db.example.com:5432/app',
      [['url_password', 'admin:S3cr3t!']],
    ],
    ['a password= assignment', 'login with password=hunter2 now', [['password_assignment', 'hunter2']]],
    [
      'an env-style assignment',
      'DB_PASSWORD="correct horse battery"',
      [['password_assignment', 'correct horse battery']],
    ],
    ['a JSON secret member', '{"client": 1, "secret": "abc"}', [['password_assignment', 'abc']]],
    ['a YAML password with a digit', 'password: tr0ub4dor', [['password_assignment', 'tr0ub4dor']]],
    [
      'a password in a query string',
      '/login?user=ada&password=s3cret&x=1',
      [['password_assignment', 's3cret']],
    ],
    ['an api_key assignment', `api_key = ${body(32)}`, [['token_assignment', body(32)]]],
    ['a platform API key', `Bearer ${platformKey}`, [['platform_api_key', platformKey]]],
    ['a clearinghouse API key', govKey, [['gov_api_key', govKey]]],
  ])('finds %s', (_name, text, expected) => {
    expect(found(text)).toEqual(expected);
  });

  it.each([
    ['sk- in prose', 'we use sk-learn and a task-sk-1 id'],
    ['an sk- placeholder without digits', 'set it to sk-this-is-not-a-real-key-at-all'],
    ['sk- inside a word', `risk-${body(30)} is a ticket`],
    ['an AWS-looking id one character short', `AKIA${'IOSFODNN7EXAMPL'} `],
    ['a GitHub-looking token of one repeated letter', `ghp_${'a'.repeat(36)}`],
    ['a Slack-looking word without digits', 'xoxb-notatokenatall'],
    ['a Google-looking key one character short', `AIza${body(34)} `],
    ['a Stripe-looking key of one repeated letter', `sk_live_${'x'.repeat(24)}`],
    [
      'eyJ… that is not a JWT header',
      `${Buffer.from('{"not":"jwt"}').toString('base64url')}.${jwtPayload}.${body(10)}`,
    ],
    ['a public key block', '-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----'],
    ['a certificate', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
    ['a URL with a user and no password', 'https://ada@example.com/repo.git'],
    ['a colon in a URL path', 'https://example.com/a:b@c'],
    ['a URL password placeholder', `postgres://app:$${'{DB_PASSWORD}'}@db:5432/app and https://u:****@host`],
    ['password in prose', 'Your password: please ask Bob. The password is long.'],
    [
      'an empty or placeholder password',
      `password= ; password=<your password> ; password=changeme ; password=$${'{PW}'}`,
    ],
    ['a token count', 'max_tokens: 4096, token: 12, tokens=5'],
    ['an api key placeholder', 'api_key = YOUR_API_KEY_HERE'],
    ['a platform key one character short', `svc_sk_${body(42)} `],
    ['a clearinghouse key with upper-case hex', `gov_live_0123456789ABCDEF_${body(43)}`],
  ])('does not find %s', (_name, text) => {
    expect(found(text)).toEqual([]);
  });

  it('lists each kind once', () => {
    expect(new Set(SECRET_KINDS).size).toBe(SECRET_KINDS.length);
  });

  it('scans a long token-like run in linear time', () => {
    const text = `${'a'.repeat(200_000)}=${'b'.repeat(200_000)}`;
    const started = process.hrtime.bigint();
    expect(found(text)).toEqual([]);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1_000);
  });
});
