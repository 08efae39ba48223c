/**
 * Runs chunk checks on worker threads (or inline, with `workers: 0`). Workers start on demand, up to
 * the count asked for, so a small stream does not pay for threads it cannot use.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CHECK_WORKER_MARK, type CheckAnswer, type CheckRequest, type CheckWorkerData } from './check-worker';
import { type AuditChunk, ChunkRunner } from './chunks';
import type { ChunkResult } from './event-facts';
import { prepareTrust, type TrustWire, trustFromWire } from './trust';

export interface ChunkChecker {
  check(chunk: AuditChunk): Promise<ChunkResult>;
  /** Stops the threads once their link parts are closed (they can then be gathered). */
  close(): Promise<void>;
}

export function createChunkChecker(workers: number, trust: TrustWire, linkDir: string | null): ChunkChecker {
  return workers <= 0 ? new InlineChecker(trust, linkDir) : new WorkerChecker(workers, trust, linkDir);
}

class InlineChecker implements ChunkChecker {
  private readonly runner: ChunkRunner;

  constructor(trust: TrustWire, linkDir: string | null) {
    this.runner = new ChunkRunner(prepareTrust(trustFromWire(trust)), linkDir);
  }

  check(chunk: AuditChunk): Promise<ChunkResult> {
    return this.runner.run(chunk);
  }

  async close(): Promise<void> {
    this.runner.close();
  }
}

interface Task {
  id: number;
  chunk: AuditChunk;
  resolve(result: ChunkResult): void;
  reject(error: Error): void;
}

/** How long a thread may take to close its link part before it is stopped anyway. */
const CLOSE_TIMEOUT_MS = 10_000;

class WorkerChecker implements ChunkChecker {
  private readonly threads: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: Task[] = [];
  private readonly running = new Map<number, Task>();
  private readonly closed = new Map<Worker, () => void>();
  private nextId = 0;
  private failure: Error | null = null;
  private closing = false;

  constructor(
    private readonly max: number,
    private readonly trust: TrustWire,
    private readonly linkDir: string | null,
  ) {}

  check(chunk: AuditChunk): Promise<ChunkResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, chunk, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.threads.map(async (thread) => {
        if (!this.failure) {
          const closed = new Promise<void>((resolve) => this.closed.set(thread, resolve));
          thread.postMessage({ kind: 'close' } satisfies CheckRequest);
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            closed,
            new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS))),
          ]);
          clearTimeout(timer);
        }
        await thread.terminate();
      }),
    );
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const thread = this.idle.pop() ?? (this.threads.length < this.max ? this.start() : undefined);
      if (!thread) return;
      const task = this.queue.shift()!;
      this.running.set(task.id, task);
      thread.postMessage({ kind: 'check', id: task.id, chunk: task.chunk } satisfies CheckRequest);
    }
  }

  private start(): Worker {
    const data: CheckWorkerData = { mark: CHECK_WORKER_MARK, trust: this.trust, linkDir: this.linkDir };
    // The same extension as this file: .js when built, .ts under a TypeScript loader (tsx, jest), where
    // the thread needs the loader registered too.
    const entry = path.join(__dirname, `check-worker${path.extname(__filename)}`);
    const thread = entry.endsWith('.ts')
      ? new Worker(`require('tsx/cjs');require(${JSON.stringify(entry)});`, { eval: true, workerData: data })
      : new Worker(entry, { workerData: data });
    thread.on('message', (answer: CheckAnswer) => this.answered(thread, answer));
    thread.on('error', (error) => this.fail(error));
    thread.on('exit', (code) => {
      if (!this.closing) this.fail(new Error(`an audit worker thread exited unexpectedly (code ${code})`));
    });
    this.threads.push(thread);
    return thread;
  }

  private answered(thread: Worker, answer: CheckAnswer): void {
    if (answer.kind === 'closed') {
      this.closed.get(thread)?.();
      return;
    }
    const task = this.running.get(answer.id);
    if (!task) return;
    this.running.delete(answer.id);
    if (answer.kind === 'failed')
      task.reject(new Error(`an audit worker failed on a chunk: ${answer.error}`));
    else task.resolve(answer.result);
    this.idle.push(thread);
    this.pump();
  }

  /** A thread that dies takes the audit with it: its chunks' checks are lost, and a partial audit would lie. */
  private fail(error: Error): void {
    this.failure ??= error;
    for (const task of [...this.running.values(), ...this.queue]) task.reject(this.failure);
    this.running.clear();
    this.queue.length = 0;
  }
}
