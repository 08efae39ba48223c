/**
 * G3 secret detectors: credentials of well-known providers and of this service, private key blocks,
 * passwords in URLs and password-like assignments. Each pattern is compiled once; each starts only
 * where a token can start (a look-behind), so a long run of letters is scanned once, not once per
 * position. A match that passes the pattern but not its check (a key made of one repeated letter, a
 * `eyJ…` that is not a JWT header) is not a finding.
 */
import { type Finding, matches, withoutOverlaps } from './finding';

interface SecretPattern {
  kind: string;
  /** Global regex. */
  pattern: RegExp;
  /** Where the finding is, or null when the match is not one (a placeholder, …); absent = the whole match. */
  locate?: (match: RegExpExecArray) => Span | null;
  /** A substring without which the pattern cannot match: skips the scan on most text. */
  needle?: string;
}

/** Characters a token is made of; a token does not start right after one of them. */
const TOKEN_START = '(?<![A-Za-z0-9_-])';
const TOKEN_END = '(?![A-Za-z0-9_-])';

/** Drawn from a random alphabet rather than typed: letters and digits, and not a handful of repeated characters. */
function looksRandom(text: string): boolean {
  return /[0-9]/.test(text) && /[A-Za-z]/.test(text) && new Set(text).size >= 8;
}

function isJwt(token: string): boolean {
  const header = token.slice(0, token.indexOf('.'));
  try {
    const decoded: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    return decoded !== null && typeof decoded === 'object' && 'alg' in decoded;
  } catch {
    return false;
  }
}

/** Values that stand for a secret in documentation or templates rather than being one. */
const PLACEHOLDER =
  /^(?:\*+|x+|\.+|-+|<[^>]*>|\$\{[^}]*\}|\$[A-Z_][A-Z0-9_]*|\{\{[^}]*\}\}|%s|null|none|nil|undefined|true|false|redacted|\[redacted[^\]]*\]|changeme|your[_-]?\w*)$/i;

function notPlaceholder(value: string): boolean {
  return !PLACEHOLDER.test(value);
}

/**
 * A password after `name: value` in prose ("password: please ask Bob") is often a word: a bare
 * lower-case word counts only after `=` (code, configuration, query strings); a quoted value (JSON,
 * YAML) or one holding a digit, a symbol or a capital counts after either.
 */
function passwordValue(value: string, separator: string, quoted: boolean): boolean {
  if (!notPlaceholder(value)) return false;
  return quoted || separator !== ':' || !/^[a-z]+$/.test(value);
}

/** The value of `name = value`, `name: value`, `"name": "value"`, with `prefix_` names (`DB_PASSWORD`). */
function assignment(names: string): RegExp {
  return new RegExp(
    `(?<![A-Za-z0-9_-])(?:[A-Za-z0-9]+[_-])*(?:${names})["']?[ \\t]*(?<separator>:=|=>|=|:)[ \\t]*` +
      `(?:"(?<quoted>[^"\\r\\n]{3,})"|'(?<single>[^'\\r\\n]{3,})'|(?<bare>[^\\s"',;&<>]{3,}))`,
    'gi',
  );
}

/** The assigned value's span, or null for a placeholder or a word in prose. */
function assignedValue(
  match: RegExpExecArray,
  accept: (value: string, separator: string, quoted: boolean) => boolean,
): Span | null {
  const groups = match.groups!;
  const value = groups.quoted ?? groups.single ?? groups.bare!;
  const quoted = groups.bare === undefined;
  if (!accept(value, groups.separator!, quoted)) return null;
  const end = match.index + match[0].length - (quoted ? 1 : 0);
  return { start: end - value.length, end };
}

interface Span {
  start: number;
  end: number;
}

/** The whole match, when `check` accepts its `value` group (the random part after a provider's prefix) or, without one, the whole match. */
function token(check: (value: string) => boolean): (match: RegExpExecArray) => Span | null {
  return (match) => (check(match.groups?.value ?? match[0]) ? wholeMatch(match) : null);
}

function wholeMatch(match: RegExpExecArray): Span {
  return { start: match.index, end: match.index + match[0].length };
}

const PASSWORD_NAMES = 'password|passwd|passphrase|secret';
const TOKEN_NAMES =
  'client[_-]?secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|bearer[_-]?token|token';

/** The patterns, most specific first: of two findings at one place, the earlier listed wins a tie. */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    kind: 'private_key',
    // Through the END line when there is one; a block cut short still leaks the key, so then to the end.
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g,
    needle: 'PRIVATE KEY',
  },
  {
    kind: 'platform_api_key',
    pattern: new RegExp(`${TOKEN_START}svc_sk_[A-Za-z0-9_-]{43}${TOKEN_END}`, 'g'),
    needle: 'svc_sk_',
  },
  {
    kind: 'gov_api_key',
    pattern: new RegExp(`${TOKEN_START}gov_(?:live|test)_[0-9a-f]{16}_[A-Za-z0-9_-]{43}${TOKEN_END}`, 'g'),
    needle: 'gov_',
  },
  {
    kind: 'anthropic_api_key',
    pattern: new RegExp(`${TOKEN_START}sk-ant-(?<value>[A-Za-z0-9_-]{20,})`, 'g'),
    locate: token(looksRandom),
    needle: 'sk-ant-',
  },
  {
    kind: 'openai_api_key',
    // Legacy `sk-` + 48, and the project, service-account and admin keys (`sk-proj-…`, …).
    pattern: new RegExp(
      `${TOKEN_START}sk-(?!ant-)(?:proj-|svcacct-|admin-)?(?<value>[A-Za-z0-9_-]{20,})`,
      'g',
    ),
    locate: token(looksRandom),
    needle: 'sk-',
  },
  {
    kind: 'aws_access_key_id',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'github_token',
    pattern: new RegExp(
      `${TOKEN_START}(?:gh[pousr]_(?<value>[A-Za-z0-9]{36,})|github_pat_(?<pat>[A-Za-z0-9_]{40,}))${TOKEN_END}`,
      'g',
    ),
    locate: (match) => (looksRandom(match.groups!.value ?? match.groups!.pat!) ? wholeMatch(match) : null),
  },
  {
    kind: 'slack_token',
    pattern: new RegExp(`${TOKEN_START}xox[baprs]-(?<value>[A-Za-z0-9-]{10,})${TOKEN_END}`, 'g'),
    locate: token((value) => /[0-9]/.test(value)),
    needle: 'xox',
  },
  {
    kind: 'google_api_key',
    pattern: new RegExp(`${TOKEN_START}AIza[0-9A-Za-z_-]{35}${TOKEN_END}`, 'g'),
    needle: 'AIza',
  },
  {
    kind: 'stripe_secret_key',
    pattern: new RegExp(`${TOKEN_START}(?:sk|rk)_(?:live|test)_(?<value>[0-9A-Za-z]{16,})${TOKEN_END}`, 'g'),
    locate: token(looksRandom),
  },
  {
    kind: 'jwt',
    pattern: new RegExp(
      `${TOKEN_START}eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*${TOKEN_END}`,
      'g',
    ),
    locate: token(isJwt),
    needle: 'eyJ',
  },
  {
    kind: 'url_password',
    // scheme://user:password@host: the finding is `user:password`, so the URL stays readable.
    pattern:
      /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:\/\/(?<value>[^\s:/?#@]+:(?<password>[^\s/?#@]+))@(?=[^\s/?#@])/g,
    locate: (match) => {
      if (!notPlaceholder(match.groups!.password!)) return null;
      // `value` ends where the `@` that closes the match begins.
      const end = match.index + match[0].length - 1;
      return { start: end - match.groups!.value!.length, end };
    },
    needle: '://',
  },
  {
    kind: 'token_assignment',
    // `api_key=…`, `"access_token": "…"`: keys and tokens are long and random, unlike the words of prose.
    pattern: assignment(TOKEN_NAMES),
    locate: (match) => assignedValue(match, (value) => notPlaceholder(value) && looksRandom(value)),
  },
  {
    kind: 'password_assignment',
    // `password=…`, `DB_PASSWORD: …`, `"secret": "…"`: the finding is the value.
    pattern: assignment(PASSWORD_NAMES),
    locate: (match) => assignedValue(match, passwordValue),
  },
];

export const SECRET_KINDS: readonly string[] = SECRET_PATTERNS.map((p) => p.kind);

/** The secrets in the text, in text order, one finding per stretch (`password=sk-…` is one secret). */
export function detectSecrets(text: string): Finding[] {
  const findings: Finding[] = [];
  for (const spec of SECRET_PATTERNS) {
    if (spec.needle !== undefined && !text.includes(spec.needle)) continue;
    for (const match of matches(spec.pattern, text)) {
      const span = spec.locate ? spec.locate(match) : wholeMatch(match);
      if (span !== null)
        findings.push({ kind: spec.kind, category: 'secret', start: span.start, end: span.end });
    }
  }
  return withoutOverlaps(findings);
}
