/**
 * Requests to a worker thread that does one kind of CPU work for the main thread (the validator round,
 * sealing records): the requests asked during one event-loop turn travel in messages of up to
 * `perMessage` (sent as soon as that many are asked, so the thread starts on the first while the main
 * thread parses the rest; the remainder at the end of the turn), and each answer comes back in its own
 * message, as soon as it is made, so requests do not move in convoys. A thread that dies fails what
 * it had not answered and is started again on the next request.
 */
import type { Worker } from 'node:worker_threads';

interface Waiting<R> {
  resolve(result: R): void;
  reject(error: Error): void;
}

export interface BatchedWorkerSpec<Item, Answer, Result> {
  /** What the thread is called in errors: `the validator thread`. */
  name: string;
  perMessage: number;
  /** Starts the thread (it is unref'd here: an idle thread never keeps a stopping process alive). */
  start(): Worker;
  /** The message carrying a batch of requests, each with its id. */
  message(items: Array<Item & { id: number }>): unknown;
  /** An answer message: the id it answers, and its result or its error. */
  answer(message: Answer): { id: number; result: Result } | { id: number; error: Error };
}

export class BatchedWorker<Item extends object, Answer, Result> {
  private thread: Worker | null = null;
  private nextId = 0;
  private batch: Array<{ item: Item & { id: number }; waiting: Waiting<Result> }> = [];
  private readonly sent = new Map<number, Waiting<Result>>();
  private closed = false;

  constructor(private readonly spec: BatchedWorkerSpec<Item, Answer, Result>) {}

  request(item: Item): Promise<Result> {
    if (this.closed) return Promise.reject(new Error(`${this.spec.name} is closed`));
    return new Promise<Result>((resolve, reject) => {
      if (this.batch.length === 0) setImmediate(() => this.flush());
      this.batch.push({ item: { ...item, id: this.nextId++ }, waiting: { resolve, reject } });
      if (this.batch.length >= this.spec.perMessage) this.flush();
    });
  }

  /** Ends the thread; requests still unanswered fail. */
  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    this.thread = null;
    this.failAll(new Error(`${this.spec.name} is closed`));
    await thread?.terminate();
  }

  /** The thread, started on first use and again after it died (its unanswered requests failed). */
  running(): Worker {
    if (this.thread) return this.thread;
    const thread = this.spec.start();
    thread.unref();
    thread.on('message', (message: Answer) => this.answered(this.spec.answer(message)));
    const died = (error: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      this.failAll(error);
    };
    thread.on('error', died);
    thread.on('exit', (code) => died(new Error(`${this.spec.name} exited (code ${code})`)));
    this.thread = thread;
    return thread;
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    try {
      const thread = this.running();
      for (const { item, waiting } of batch) this.sent.set(item.id, waiting);
      thread.postMessage(this.spec.message(batch.map((entry) => entry.item)));
    } catch (error) {
      // A request that cannot be cloned (or a thread that cannot start) fails, not the process.
      for (const { item, waiting } of batch) {
        this.sent.delete(item.id);
        waiting.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  private answered(answer: { id: number; result: Result } | { id: number; error: Error }): void {
    const waiting = this.sent.get(answer.id);
    this.sent.delete(answer.id);
    if (!waiting) return;
    if ('error' in answer) waiting.reject(answer.error);
    else waiting.resolve(answer.result);
  }

  private failAll(error: Error): void {
    for (const waiting of [...this.sent.values(), ...this.batch.map((entry) => entry.waiting)])
      waiting.reject(error);
    this.sent.clear();
    this.batch = [];
  }
}
