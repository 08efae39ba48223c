/**
 * The webhooks benchmark's receiver, in a process of its own: a real receiver is a third party on
 * another machine, and one inside the benchmark's process would share the load generator's event
 * loop, so that every delivery it took would slow the admissions being measured. It answers every
 * request 200 and reports what it received to its parent (fork IPC) in batches.
 *
 * It reads HTTP/1.1 from bare sockets (http1-requests.ts) rather than through node:http's server.
 * On this 2-core machine the receiver's CPU is taken from the server being measured, which a receiver
 * elsewhere would not take: with 100 webhooks, the node:http receiver cost ~80 µs of CPU per admission
 * and this one ~52 (3 interleaved pairs; both parse every body and report to the parent), so the
 * ratio of admissions with and without webhooks measures the dispatcher more and the receiver less.
 * A request it cannot frame is answered 400, the connection closed and the reason printed.
 */
import net, { type AddressInfo } from 'node:net';
import { takeRequests } from './http1-requests';

/** What the receiver tells its parent. */
export type ReceiverMessage = { kind: 'listening'; url: string } | { kind: 'receipts'; receipts: Receipt[] };

export interface Receipt {
  /** Wall-clock ms when the body was complete. */
  at: number;
  type: string;
  event_id: string;
  admitted_at?: string;
}

const REPORT_EVERY_MS = 50;
const OK = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
const BAD_REQUEST = Buffer.from('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');

function receiptOf(body: Buffer, at: number): Receipt {
  const { type, event_id, admitted_at } = JSON.parse(body.toString('utf8')) as Omit<Receipt, 'at'>;
  return { at, type, event_id, ...(admitted_at ? { admitted_at } : {}) };
}

function main(): void {
  const send = (message: ReceiverMessage) => process.send?.(message);
  let pending: Receipt[] = [];
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    let unread: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const framed = takeRequests(unread.length === 0 ? chunk : Buffer.concat([unread, chunk]));
      unread = framed.rest;
      const at = Date.now();
      for (const request of framed.requests) pending.push(receiptOf(request.body, at));
      const answers = framed.requests.map(() => OK);
      const closing = framed.requests.some((request) => request.close);
      if (framed.error) {
        process.stderr.write(`webhook receiver: refused ${framed.error}\n`);
        socket.end(Buffer.concat([...answers, BAD_REQUEST]));
      } else if (closing) socket.end(Buffer.concat(answers));
      else if (answers.length > 0) socket.write(answers.length === 1 ? OK : Buffer.concat(answers));
    });
    socket.on('error', () => socket.destroy());
  });
  setInterval(() => {
    if (pending.length === 0) return;
    send({ kind: 'receipts', receipts: pending });
    pending = [];
  }, REPORT_EVERY_MS);
  // The parent ending ends the receiver.
  process.on('disconnect', () => process.exit(0));
  server.listen(0, '127.0.0.1', () =>
    send({ kind: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }),
  );
}

if (require.main === module) main();
