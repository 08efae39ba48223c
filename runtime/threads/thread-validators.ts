/**
 * The admission's validator round and envelope seal on the validator thread
 * (validator-thread.ts): the same in-process validators and node key, the same bytes; only
 * the CPU moves off the admission path. The rounds asked during one event-loop turn (concurrent
 * admissions) travel in messages of up to ROUNDS_PER_MESSAGE; each answer comes back on its own.
 */
import type { KeyObject } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import type { AdmissionCertifier, CertifiedEnvelope } from '../../domain/governance/admission-round';
import { QuorumNotReachedError, ValidatorNetworkError } from '../../domain/governance/validators';
import { startWorker } from '../support/worker-entry';
import type {
  RoundAnswer,
  RoundBatch,
  RoundFailure,
  RoundItem,
  ValidatorThreadData,
} from './validator-thread-protocol';

/**
 * Rounds sent to the thread as soon as this many are asked, rather than all at the end of the turn.
 * A burst of admissions (all connections answered by one tree head ask again together) takes the main
 * thread tens of milliseconds to parse; sending early lets the thread sign the first rounds meanwhile,
 * where one message at the end would leave it idle until then and make the last round wait for all.
 */
export const ROUNDS_PER_MESSAGE = 4;

interface Waiting {
  resolve(certified: CertifiedEnvelope): void;
  reject(error: Error): void;
}

export class ValidatorThread {
  private thread: Worker | null = null;
  private nextId = 0;
  /** Rounds asked this turn, and those sent and not yet answered. */
  private batch: Array<{ item: RoundItem; waiting: Waiting }> = [];
  private readonly sent = new Map<number, Waiting>();
  private closed = false;

  constructor(
    private readonly validatorKeys: readonly KeyObject[],
    /** The node key, which seals the envelopes. */
    private readonly authorityKey: KeyObject,
  ) {}

  /** A thread started now, so that the first admission does not wait for it. */
  static start(validatorKeys: readonly KeyObject[], authorityKey: KeyObject): ValidatorThread {
    const validatorThread = new ValidatorThread(validatorKeys, authorityKey);
    validatorThread.running();
    return validatorThread;
  }

  /** Ends the thread; rounds still unanswered fail. */
  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    this.thread = null;
    this.failAll(new Error('the validator thread is closed'));
    await thread?.terminate();
  }

  /** Runs the validator round and seals the envelope, on the thread. */
  readonly certify: AdmissionCertifier = (request, fields) => {
    if (this.closed) return Promise.reject(new Error('the validator thread is closed'));
    return new Promise<CertifiedEnvelope>((resolve, reject) => {
      if (this.batch.length === 0) setImmediate(() => this.flush());
      this.batch.push({ item: { id: this.nextId++, request, fields }, waiting: { resolve, reject } });
      if (this.batch.length >= ROUNDS_PER_MESSAGE) this.flush();
    });
  };

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    try {
      const thread = this.running();
      for (const { item, waiting } of batch) this.sent.set(item.id, waiting);
      thread.postMessage({ rounds: batch.map((entry) => entry.item) } satisfies RoundBatch);
    } catch (error) {
      // A request that cannot be cloned (or a thread that cannot start) fails its round, not the process.
      for (const { item, waiting } of batch) {
        this.sent.delete(item.id);
        waiting.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  /** The thread, started on first use and again after it died (its unanswered rounds failed). */
  private running(): Worker {
    if (this.thread) return this.thread;
    const data: ValidatorThreadData = {
      privateKeys: [...this.validatorKeys],
      authorityKey: this.authorityKey,
    };
    const thread = startWorker(__dirname, __filename, 'validator-thread', data);
    // An idle validator thread must not keep a stopping process alive.
    thread.unref();
    thread.on('message', (answer: RoundAnswer) => this.answered(answer));
    const died = (error: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      this.failAll(error);
    };
    thread.on('error', died);
    thread.on('exit', (code) => died(new Error(`the validator thread exited (code ${code})`)));
    this.thread = thread;
    return thread;
  }

  private answered(answer: RoundAnswer): void {
    const waiting = this.sent.get(answer.id);
    this.sent.delete(answer.id);
    if (!waiting) return;
    if ('certified' in answer) waiting.resolve(answer.certified);
    else waiting.reject(roundError(answer.failure));
  }

  private failAll(error: Error): void {
    for (const waiting of [...this.sent.values(), ...this.batch.map((entry) => entry.waiting)])
      waiting.reject(error);
    this.sent.clear();
    this.batch = [];
  }
}

/** The round's own error again, so that the route answers it as it would an inline round's. */
function roundError(failure: RoundFailure): Error {
  switch (failure.kind) {
    case 'quorum':
      return new QuorumNotReachedError(failure.accepted, failure.quorum, failure.reasons, failure.votes);
    case 'network':
      return new ValidatorNetworkError(failure.accepted, failure.quorum, failure.failures);
    case 'error':
      return new Error(failure.message);
  }
}
