/**
 * HTTP/1.1 requests framed from the bytes of one connection, for the webhooks benchmark's receiver
 * (webhook-receiver-process.ts). It reads what the dispatcher sends, and nothing else: a request line,
 * header fields, and a body of Content-Length bytes, several requests per read or one split across
 * reads. A chunked body or a malformed request line is an error, so a change in what the dispatcher
 * sends stops the benchmark instead of being misread. Only the fields framing needs are looked at
 * (the receiver shares the cores with the server being measured: every µs it spends is taken from it).
 */

interface Http1Request {
  method: string;
  target: string;
  /** The request asks for the connection to be closed after its answer (`Connection: close`). */
  close: boolean;
  body: Buffer;
}

export interface Framed {
  requests: Http1Request[];
  /** The bytes of a request not yet complete: to be prefixed to the connection's next read. */
  rest: Buffer;
  /** Set when the bytes after `requests` are not a request this reader takes. */
  error?: string;
}

/** A head without its blank line past this many bytes is refused. */
export const MAX_HEAD_BYTES = 65_536;
const HEAD_END = Buffer.from('\r\n\r\n');
const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/;
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*([^\r]*)/i;
const TRANSFER_ENCODING = /\r\ntransfer-encoding:[ \t]*([^\r]*)/i;
const CONNECTION_CLOSE = /\r\nconnection:[ \t]*close[ \t]*(?:\r|$)/i;

/** Every complete request at the start of `bytes`, in order, and what is left of them. */
export function takeRequests(bytes: Buffer): Framed {
  const requests: Http1Request[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = bytes.indexOf(HEAD_END, offset);
    if (headEnd < 0) {
      if (bytes.length - offset > MAX_HEAD_BYTES)
        return {
          requests,
          rest: bytes.subarray(offset),
          error: `a request head over ${MAX_HEAD_BYTES} bytes`,
        };
      break;
    }
    const head = bytes.toString('latin1', offset, headEnd);
    const lineEnd = head.indexOf('\r\n');
    const line = REQUEST_LINE.exec(lineEnd < 0 ? head : head.slice(0, lineEnd));
    if (!line)
      return refuse(
        requests,
        bytes,
        offset,
        `a malformed request line: ${JSON.stringify(head.split('\r\n')[0])}`,
      );
    const encoding = TRANSFER_ENCODING.exec(head);
    if (encoding)
      return refuse(
        requests,
        bytes,
        offset,
        `a Transfer-Encoding of ${encoding[1]} (only Content-Length bodies are read)`,
      );
    const declared = CONTENT_LENGTH.exec(head)?.[1]?.trim() ?? '0';
    const length = Number(declared);
    if (!/^\d+$/.test(declared) || !Number.isSafeInteger(length))
      return refuse(requests, bytes, offset, `a Content-Length of ${JSON.stringify(declared)}`);
    const bodyStart = headEnd + HEAD_END.length;
    if (bytes.length < bodyStart + length) break;
    requests.push({
      method: line[1]!,
      target: line[2]!,
      close: CONNECTION_CLOSE.test(head),
      body: bytes.subarray(bodyStart, bodyStart + length),
    });
    offset = bodyStart + length;
  }
  return { requests, rest: bytes.subarray(offset) };
}

function refuse(requests: Http1Request[], bytes: Buffer, offset: number, error: string): Framed {
  return { requests, rest: bytes.subarray(offset), error };
}
