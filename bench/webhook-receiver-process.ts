/**
 * The webhooks benchmark's receiver, in a process of its own: a real receiver is a third party on
 * another machine, and one inside the benchmark's process would share the load generator's event
 * loop, so that every delivery it took would slow the admissions being measured. It answers every
 * POST 200 and reports what it received to its parent (fork IPC) in batches.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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

function main(): void {
  const send = (message: ReceiverMessage) => process.send?.(message);
  let pending: Receipt[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<Receipt, 'at'>;
      pending.push({
        at: Date.now(),
        type: body.type,
        event_id: body.event_id,
        ...(body.admitted_at ? { admitted_at: body.admitted_at } : {}),
      });
      res.writeHead(200).end();
    });
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
