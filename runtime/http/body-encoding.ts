import { isUtf8 } from 'node:buffer';
import type http from 'node:http';

/** A body-parser failure the error handler maps by its `type`. */
class BodyEncodingError extends Error {
  constructor(
    readonly type: 'encoding.invalid' | 'charset.unsupported',
    message: string,
  ) {
    super(message);
  }
}

/**
 * `verify` hook of the JSON body parser: JSON bodies are UTF-8 (RFC 8259 §8.1). The parser would
 * otherwise decode other charsets, and replace invalid UTF-8 bytes with U+FFFD, so a body could be
 * stored as something its sender never wrote.
 */
export function requireUtf8(
  _req: http.IncomingMessage,
  _res: http.ServerResponse,
  body: Buffer,
  encoding: string,
): void {
  if (encoding.toLowerCase() !== 'utf-8')
    throw new BodyEncodingError('charset.unsupported', `the body is declared as ${encoding}`);
  if (!isUtf8(body)) throw new BodyEncodingError('encoding.invalid', 'the body is not valid UTF-8');
}
