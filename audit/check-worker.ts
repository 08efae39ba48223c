/**
 * The worker thread of the audit: parses, schema-checks, hashes and verifies the signatures of the
 * chunks it is given, writes their link facts to its part of the link index, and answers with their
 * facts and discrepancies. Imported by the main thread too (for its types and constants, and so that
 * builds compile it); it serves only inside an audit worker.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type AuditChunk, ChunkRunner } from './chunks';
import type { AuditScope } from './event-checks';
import { type ChunkResult, transferablesOf } from './event-facts';
import { prepareTrust, type TrustWire, trustFromWire } from './trust';

export const CHECK_WORKER_MARK = 'gov-audit-check-worker';

export interface CheckWorkerData {
  mark: typeof CHECK_WORKER_MARK;
  trust: TrustWire;
  /** The audit's link index folder, or null when links are not checked. */
  linkDir: string | null;
  scope: AuditScope;
}

export type CheckRequest = { kind: 'check'; id: number; chunk: AuditChunk } | { kind: 'close' };

export type CheckAnswer =
  | { kind: 'checked'; id: number; result: ChunkResult }
  | { kind: 'failed'; id: number; error: string }
  | { kind: 'closed' };

function serve(data: CheckWorkerData): void {
  const port = parentPort!;
  const runner = new ChunkRunner(prepareTrust(trustFromWire(data.trust)), data.linkDir, data.scope);
  const answer = (message: CheckAnswer) =>
    port.postMessage(message, message.kind === 'checked' ? transferablesOf(message.result) : []);
  const handle = async (request: CheckRequest): Promise<void> => {
    if (request.kind === 'close') {
      runner.close();
      answer({ kind: 'closed' });
      return;
    }
    try {
      answer({ kind: 'checked', id: request.id, result: await runner.run(request.chunk) });
    } catch (error) {
      answer({ kind: 'failed', id: request.id, error: (error as Error)?.stack ?? String(error) });
    }
  };
  // One request at a time, in the order given: the thread may already hold its next chunk (and the
  // close) while it checks one, and starts it the moment it has answered.
  let work = Promise.resolve();
  port.on('message', (request: CheckRequest) => {
    work = work.then(() => handle(request));
  });
}

if (!isMainThread && (workerData as Partial<CheckWorkerData> | null)?.mark === CHECK_WORKER_MARK)
  serve(workerData as CheckWorkerData);
