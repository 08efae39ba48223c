import { MAX_HEAD_BYTES, takeRequests } from './http1-requests';

const request = (body: string, extraHeaders = '') =>
  Buffer.from(
    `POST /hook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`,
  );

describe('takeRequests', () => {
  it('given one whole request, then it is taken with its method, target and body, and nothing is left', () => {
    const framed = takeRequests(request('{"type":"leaf_admitted"}', 'X-GOV-Event-Id: evt_1\r\n'));
    expect(framed.error).toBeUndefined();
    expect(framed.rest.length).toBe(0);
    expect(framed.requests).toEqual([
      { method: 'POST', target: '/hook', close: false, body: Buffer.from('{"type":"leaf_admitted"}') },
    ]);
  });

  it('given field names in any case, then Content-Length and Connection: close are found', () => {
    const bytes = Buffer.from('POST /hook HTTP/1.1\r\nCONNECTION: Close\r\ncontent-LENGTH: 2\r\n\r\n{}');
    expect(takeRequests(bytes).requests).toEqual([
      { method: 'POST', target: '/hook', close: true, body: Buffer.from('{}') },
    ]);
  });

  it('given three requests in one read, then all three are taken in order', () => {
    const framed = takeRequests(Buffer.concat([request('{"n":1}'), request('{"n":2}'), request('{"n":3}')]));
    expect(framed.requests.map((r) => JSON.parse(r.body.toString()).n)).toEqual([1, 2, 3]);
    expect(framed.rest.length).toBe(0);
  });

  it('given a request split at every byte, then it is taken once, when its last byte arrives', () => {
    const bytes = Buffer.concat([request('{"n":1}'), request('{"n":2}')]);
    const taken: string[] = [];
    let pending: Buffer = Buffer.alloc(0);
    for (let i = 0; i < bytes.length; i++) {
      const framed = takeRequests(Buffer.concat([pending, bytes.subarray(i, i + 1)]));
      expect(framed.error).toBeUndefined();
      taken.push(...framed.requests.map((r) => r.body.toString()));
      pending = framed.rest;
    }
    expect(taken).toEqual(['{"n":1}', '{"n":2}']);
    expect(pending.length).toBe(0);
  });

  it('given a body of multi-byte characters, then Content-Length counts bytes, not characters', () => {
    const framed = takeRequests(Buffer.concat([request('{"s":"Ω→é"}'), request('{"n":2}')]));
    expect(framed.requests.map((r) => r.body.toString())).toEqual(['{"s":"Ω→é"}', '{"n":2}']);
  });

  it('given a chunked body, then it is refused, naming the encoding', () => {
    const framed = takeRequests(
      Buffer.from('POST /hook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{"n":1}\r\n0\r\n\r\n'),
    );
    expect(framed.requests).toHaveLength(0);
    expect(framed.error).toMatch(/Transfer-Encoding of chunked/);
  });

  it('given a malformed request line or a bad Content-Length, then each is refused', () => {
    expect(takeRequests(Buffer.from('POST /hook\r\n\r\n')).error).toMatch(/request line/);
    expect(takeRequests(Buffer.from('POST /hook HTTP/2\r\n\r\n')).error).toMatch(/request line/);
    expect(takeRequests(Buffer.from('POST /hook HTTP/1.1\r\nContent-Length: -1\r\n\r\n')).error).toMatch(
      /Content-Length of "-1"/,
    );
  });

  it('given a request taken before a malformed one, then the good one is still returned', () => {
    const framed = takeRequests(Buffer.concat([request('{"n":1}'), Buffer.from('GARBAGE\r\n\r\n')]));
    expect(framed.requests).toHaveLength(1);
    expect(framed.error).toMatch(/request line/);
  });

  it('given a head that never ends, then it is refused past the limit and not before', () => {
    const start = Buffer.from('POST /hook HTTP/1.1\r\nX-Long: ');
    const under = Buffer.concat([start, Buffer.alloc(MAX_HEAD_BYTES - start.length, 'a')]);
    expect(takeRequests(under).error).toBeUndefined();
    expect(takeRequests(Buffer.concat([under, Buffer.from('a')])).error).toMatch(/head over/);
  });
});
