/**
 * The store's side of its writer thread (event-writer-thread.ts). One group is in flight at a time:
 * appends arriving meanwhile wait and form the next group, so a slow fsync makes groups bigger rather
 * than queueing many small ones. A thread that dies fails the group it held (its outcome is unknown:
 * an idempotent retry with the same event ids settles it) and is started again for the next one.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../runtime/support/worker-entry';
import type { WriterReport, WriterRequest, WriterThreadData } from './event-writer-protocol';
import { type AppendOutcome, type AppendRequest, outcomeFromWire } from './group-commit';

interface Waiting {
  resolve(outcomes: AppendOutcome[]): void;
  reject(error: Error): void;
}

export class EventWriterThread {
  private thread: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private closing: Promise<void> | null = null;

  constructor(private readonly file: string) {}

  /** Commits the group on the writer thread; rejects (nothing stored) when its transaction fails. */
  commit(group: AppendRequest[], recordedAt: string): Promise<AppendOutcome[]> {
    if (this.closing) return Promise.reject(new Error('the event store writer is closed'));
    const id = this.nextId++;
    return new Promise<AppendOutcome[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.post({ kind: 'commit', id, group, recordedAt });
    });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const thread = this.thread;
      if (!thread) return;
      const closed = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
      thread.postMessage({ kind: 'close' } satisfies WriterRequest);
      await Promise.race([closed, new Promise((resolve) => thread.once('message', resolve))]);
      await thread.terminate();
      this.thread = null;
    })();
    return this.closing;
  }

  private post(request: WriterRequest): void {
    this.thread ??= this.start();
    this.thread.postMessage(request);
  }

  private start(): Worker {
    const data: WriterThreadData = { file: this.file };
    const thread = startWorker(__dirname, __filename, 'event-writer-thread', data);
    thread.on('message', (report: WriterReport) => {
      if (report.kind !== 'committed' && report.kind !== 'failed') return;
      const waiting = this.waiting.get(report.id);
      this.waiting.delete(report.id);
      if (report.kind === 'committed') waiting?.resolve(report.outcomes.map(outcomeFromWire));
      else waiting?.reject(Object.assign(new Error(report.message), { code: report.code }));
    });
    const lost = (reason: string) => {
      if (this.thread === thread) this.thread = null;
      const error = new Error(
        `the event store's writer thread stopped (${reason}); whether the pending appends were stored is unknown: retry them with the same event ids`,
      );
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    thread.on('error', (error) => lost(error.message));
    thread.on('exit', (code) => {
      if (!this.closing) lost(`exit code ${code}`);
    });
    return thread;
  }
}
