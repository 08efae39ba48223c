/**
 * The worker thread of the audit: parses, schema-checks, hashes and verifies the signatures of the
 * chunks it is given, writes their link facts to its part of the link index, and answers with their
 * facts and discrepancies. Imported by the main thread too (for its types and constants, and so that
 * builds compile it); it serves only inside an audit worker.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type AuditChunk, ChunkRunner } from './chunks';
import type { ChunkResult } from './event-facts';
import { prepareTrust, type TrustWire, trustFromWire } from './trust';

export const CHECK_WORKER_MARK = 'gov-audit-check-worker';

export interface CheckWorkerData {
  mark: typeof CHECK_WORKER_MARK;
  trust: TrustWire;
  /** The audit's link index folder, or null when links are not checked. */
  linkDir: string | null;
}

export type CheckRequest = { kind: 'check'; id: number; chunk: AuditChunk } | { kind: 'close' };

export type CheckAnswer =
  | { kind: 'checked'; id: number; result: ChunkResult }
  | { kind: 'failed'; id: number; error: string }
  | { kind: 'closed' };

function serve(data: CheckWorkerData): void {
  const port = parentPort!;
  const runner = new ChunkRunner(prepareTrust(trustFromWire(data.trust)), data.linkDir);
  const answer = (message: CheckAnswer) => port.postMessage(message);
  port.on('message', (request: CheckRequest) => {
    if (request.kind === 'close') {
      runner.close();
      answer({ kind: 'closed' });
      return;
    }
    runner.run(request.chunk).then(
      (result) => answer({ kind: 'checked', id: request.id, result }),
      (error: unknown) =>
        answer({ kind: 'failed', id: request.id, error: (error as Error)?.stack ?? String(error) }),
    );
  });
}

if (!isMainThread && (workerData as Partial<CheckWorkerData> | null)?.mark === CHECK_WORKER_MARK)
  serve(workerData as CheckWorkerData);
