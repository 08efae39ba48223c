/**
 * HTTP/1.1 requests framed from the bytes of one connection, for the webhooks benchmark's receiver
 * (webhook-receiver-process.ts). It reads what the dispatcher sends, and nothing else: a request line,
 * header fields, and a body of Content-Length bytes, several requests per read or one split across
 * reads. A chunked body or a malformed head is an error, so a change in what the dispatcher sends
 * stops the benchmark instead of being misread.
 */

export interface Http1Request {
  method: string;
  target: string;
  /** Field names in lower case. */
  headers: Map<string, string>;
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
    const head = parseHead(bytes.toString('latin1', offset, headEnd));
    if (typeof head === 'string') return { requests, rest: bytes.subarray(offset), error: head };
    const bodyStart = headEnd + HEAD_END.length;
    if (bytes.length < bodyStart + head.length) break;
    requests.push({ ...head.request, body: bytes.subarray(bodyStart, bodyStart + head.length) });
    offset = bodyStart + head.length;
  }
  return { requests, rest: bytes.subarray(offset) };
}

/** The request line and fields of a head, and its body's length; or why it is refused. */
function parseHead(text: string): { request: Omit<Http1Request, 'body'>; length: number } | string {
  const lines = text.split('\r\n');
  const [method, target, version, ...extra] = (lines[0] ?? '').split(' ');
  if (!method || !target || extra.length > 0 || !/^HTTP\/1\.[01]$/.test(version ?? ''))
    return `a malformed request line: ${JSON.stringify(lines[0])}`;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) return `a malformed header field: ${JSON.stringify(line)}`;
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  if (headers.has('transfer-encoding'))
    return `a Transfer-Encoding of ${headers.get('transfer-encoding')} (only Content-Length bodies are read)`;
  const declared = headers.get('content-length') ?? '0';
  const length = Number(declared);
  if (!/^\d+$/.test(declared) || !Number.isSafeInteger(length))
    return `a Content-Length of ${JSON.stringify(declared)}`;
  return { request: { method, target, headers }, length };
}
