/**
 * Runs chunk checks on worker threads (or inline, with `workers: 0`). Workers start on demand, up to
 * the count asked for, so a small stream does not pay for threads it cannot use.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../runtime/support/worker-entry';
import { CHECK_WORKER_MARK, type CheckAnswer, type CheckRequest, type CheckWorkerData } from './check-worker';
import { type AuditChunk, ChunkRunner } from './chunks';
import type { AuditScope } from './event-checks';
import type { ChunkResult } from './event-facts';
import { prepareTrust, type TrustWire, trustFromWire } from './trust';

export interface ChunkChecker {
  check(chunk: AuditChunk): Promise<ChunkResult>;
  /** Stops the threads once their link parts are closed (they can then be gathered). */
  close(): Promise<void>;
}

export function createChunkChecker(
  workers: number,
  trust: TrustWire,
  linkDir: string | null,
  scope: AuditScope = 'all',
): ChunkChecker {
  return workers <= 0
    ? new InlineChecker(trust, linkDir, scope)
    : new WorkerChecker(workers, trust, linkDir, scope);
}

class InlineChecker implements ChunkChecker {
  private readonly runner: ChunkRunner;

  constructor(trust: TrustWire, linkDir: string | null, scope: AuditScope) {
    this.runner = new ChunkRunner(prepareTrust(trustFromWire(trust)), linkDir, scope);
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
/**
 * Chunks a thread holds at once: it starts its next chunk as soon as it has answered, without waiting
 * for the main thread (busy with the ordered, sequential part) to hand it one.
 */
const CHUNKS_PER_THREAD = 2;

class WorkerChecker implements ChunkChecker {
  private readonly threads: Worker[] = [];
  /** Chunks handed to each thread and not answered yet. */
  private readonly load = new Map<Worker, number>();
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
    private readonly scope: AuditScope,
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
      const thread = this.nextThread();
      if (!thread) return;
      const task = this.queue.shift()!;
      this.running.set(task.id, task);
      this.load.set(thread, (this.load.get(thread) ?? 0) + 1);
      thread.postMessage({ kind: 'check', id: task.id, chunk: task.chunk } satisfies CheckRequest);
    }
  }

  /** An idle thread, else a new one (up to the maximum), else the least busy one with room. */
  private nextThread(): Worker | undefined {
    let least: Worker | undefined;
    for (const thread of this.threads) {
      const load = this.load.get(thread) ?? 0;
      if (load === 0) return thread;
      if (load < CHUNKS_PER_THREAD && (least === undefined || load < this.load.get(least)!)) least = thread;
    }
    return this.threads.length < this.max ? this.start() : least;
  }

  private start(): Worker {
    const data: CheckWorkerData = {
      mark: CHECK_WORKER_MARK,
      trust: this.trust,
      linkDir: this.linkDir,
      scope: this.scope,
    };
    const thread = startWorker(__dirname, __filename, 'check-worker', data);
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
    this.load.set(thread, (this.load.get(thread) ?? 1) - 1);
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
