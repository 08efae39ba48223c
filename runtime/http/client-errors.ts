/**
 * Answers for requests Node's HTTP parser refuses before the app sees them (headers too large, a
 * malformed request line, a client too slow): the API's error shape instead of Node's bare status
 * line, then the connection is closed (the rest of what the client sent cannot be trusted).
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from './errors';

/** The most bytes the request line and headers may take together (Node's default, made explicit). */
export const MAX_HEADER_BYTES = 16 * 1024;

export interface ClientErrorLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

type ClientErrorAnswer = { status: number } & Pick<ErrorBody, 'error' | 'message' | 'fields'>;

/** The answer to a parser or timeout error: 431, 413, 408, or 400 for anything else malformed. */
function clientErrorAnswer(code: string | undefined, limits: ClientErrorLimits): ClientErrorAnswer {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        error: 'HEADERS_TOO_LARGE',
        message: `the request line and headers exceed ${MAX_HEADER_BYTES / 1024} KB (${MAX_HEADER_BYTES} bytes); shorten the URL (send long values in a JSON body instead of the query) and drop or shorten large headers such as cookies`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        error: 'PAYLOAD_TOO_LARGE',
        message: 'the chunk extensions of the body are too large; send the body without chunk extensions',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        error: 'REQUEST_TIMEOUT',
        message: `the request was not received in time: the headers must arrive within ${seconds(limits.headersTimeoutMs)} and the whole request within ${seconds(limits.requestTimeoutMs)}; send it again, without pauses`,
      };
    default: {
      const reason = `is not valid HTTP/1.1 (${code ?? 'unparseable'}); check the method, the path and the syntax of each header`;
      return {
        status: 400,
        error: 'INVALID_REQUEST',
        message: `the request ${reason}`,
        fields: [{ pointer: '', reason }],
      };
    }
  }
}

/**
 * Handles the server's `clientError` event: writes the answer when nothing of a response was written
 * on the connection yet (as Node does), then closes it. A reset connection is only closed.
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  limits: ClientErrorLimits,
): void {
  // The parser reports an error again for each later chunk of the same request: answered once, the
  // rest is read and dropped while the answer drains (closing with unread input would reset it away).
  if (answered.has(socket)) return;
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || started) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const { status, ...answer } = clientErrorAnswer(error.code, limits);
  const correlationId = randomUUID();
  const body = JSON.stringify({ ...answer, correlation_id: correlationId } satisfies ErrorBody);
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Correlation-Id: ${correlationId}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
  // A client that never reads must not keep the socket open past a second.
  setTimeout(() => socket.destroy(), 1000).unref();
}

const answered = new WeakSet<Duplex>();

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}
