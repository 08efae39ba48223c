import pino, { type Logger } from 'pino';

/** Paths that may hold secrets; pino replaces them before a line is written. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  // The platform's session cookie.
  'req.headers.cookie',
  'headers.cookie',
  'cookie',
  'api_key',
  '*.api_key',
  'secret',
  '*.secret',
  'key_hash',
  '*.key_hash',
];

/** Structured JSON logs on stdout; request lines carry the correlation id. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gov-clearinghouse', pid: process.pid },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
