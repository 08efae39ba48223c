/**
 * Validators whose votes are made on the validator thread (runtime/validator-thread.ts). They are the
 * same in-process validators with the same keys: only the CPU they use moves off the admission path.
 * The asks of one event-loop turn (a round asks every validator at once, and concurrent admissions
 * run their rounds together) travel in one message each way.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import type { EnvelopeSealer, SealedEnvelope } from '../domain/envelope';
import { type Validator, type VoteRequest, validatorIdOf } from '../domain/validators';
import type { ValidatorVote } from '../event-schemas';
import type {
  SealItem,
  ValidatorThreadData,
  VoteBatch,
  VotedBatch,
  VoteItem,
} from './validator-thread-protocol';
import { startWorker } from './worker-entry';

interface Waiting {
  resolve(vote: ValidatorVote): void;
  reject(error: Error): void;
}

interface SealWaiting {
  resolve(sealed: SealedEnvelope): void;
  reject(error: Error): void;
}

interface PendingItem {
  item: VoteItem;
  /** One per entry of item.validators, in the same order. */
  waiting: Waiting[];
}

export class ValidatorThread {
  readonly validators: readonly Validator[];
  private thread: Worker | null = null;
  private nextId = 0;
  /** Asks of this turn, by request: one item per round however many validators it asks. */
  private batch = new Map<VoteRequest, PendingItem>();
  private readonly sent = new Map<number, PendingItem>();
  /** Envelopes to seal this turn, and those sent and not yet answered. */
  private seals: Array<{ item: SealItem; waiting: SealWaiting }> = [];
  private readonly sentSeals = new Map<number, SealWaiting>();
  private closed = false;

  constructor(
    private readonly privateKeys: readonly KeyObject[],
    /** The node key: with it, `seal` signs and leaf-hashes envelopes on the thread too. */
    private readonly authorityKey: KeyObject | null = null,
  ) {
    this.validators = privateKeys.map((key, index) => {
      const publicKey = createPublicKey(key);
      return {
        id: validatorIdOf(publicKey),
        publicKey,
        // Signed by this process's own keys: re-verifying proves nothing (the auditor verifies).
        inProcess: true,
        vote: (request: VoteRequest) => this.ask(request, index),
      } satisfies Validator;
    });
  }

  /** Validators on a thread started now, so that the first admission does not wait for it. */
  static start(privateKeys: readonly KeyObject[], authorityKey: KeyObject | null = null): ValidatorThread {
    const validatorThread = new ValidatorThread(privateKeys, authorityKey);
    validatorThread.running();
    return validatorThread;
  }

  /** Ends the thread; asks still unanswered fail. */
  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    this.thread = null;
    this.failAll(new Error('the validator thread is closed'));
    await thread?.terminate();
  }

  /** Signs the envelope with the authority key and computes its leaf hash, on the thread. */
  readonly seal: EnvelopeSealer = (unsigned) => {
    if (this.closed) return Promise.reject(new Error('the validator thread is closed'));
    return new Promise<SealedEnvelope>((resolve, reject) => {
      if (this.batch.size === 0 && this.seals.length === 0) setImmediate(() => this.flush());
      this.seals.push({ item: { id: this.nextId++, unsigned }, waiting: { resolve, reject } });
    });
  };

  private ask(request: VoteRequest, index: number): Promise<ValidatorVote> {
    if (this.closed) return Promise.reject(new Error('the validator thread is closed'));
    return new Promise<ValidatorVote>((resolve, reject) => {
      let pending = this.batch.get(request);
      if (!pending) {
        if (this.batch.size === 0 && this.seals.length === 0) setImmediate(() => this.flush());
        pending = { item: { id: this.nextId++, request, validators: [] }, waiting: [] };
        this.batch.set(request, pending);
      }
      pending.item.validators.push(index);
      pending.waiting.push({ resolve, reject });
    });
  }

  private flush(): void {
    const pending = [...this.batch.values()];
    const seals = this.seals;
    this.batch = new Map();
    this.seals = [];
    if (pending.length === 0 && seals.length === 0) return;
    try {
      const thread = this.running();
      for (const entry of pending) this.sent.set(entry.item.id, entry);
      for (const { item, waiting } of seals) this.sentSeals.set(item.id, waiting);
      thread.postMessage({
        items: pending.map((entry) => entry.item),
        seals: seals.map((entry) => entry.item),
      } satisfies VoteBatch);
    } catch (error) {
      // A request that cannot be cloned (or a thread that cannot start) fails its round, not the process.
      for (const entry of pending) {
        this.sent.delete(entry.item.id);
        for (const waiting of entry.waiting) waiting.reject(asError(error));
      }
      for (const { item, waiting } of seals) {
        this.sentSeals.delete(item.id);
        waiting.reject(asError(error));
      }
    }
  }

  /** The thread, started on first use and again after it died (its unanswered asks failed). */
  private running(): Worker {
    if (this.thread) return this.thread;
    const data: ValidatorThreadData = { privateKeys: [...this.privateKeys], authorityKey: this.authorityKey };
    const thread = startWorker(__dirname, __filename, 'validator-thread', data);
    // An idle validator thread must not keep a stopping process alive.
    thread.unref();
    thread.on('message', (voted: VotedBatch) => this.answered(voted));
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

  private answered(voted: VotedBatch): void {
    for (const answer of voted.sealed) {
      const waiting = this.sentSeals.get(answer.id);
      this.sentSeals.delete(answer.id);
      if ('sealed' in answer) waiting?.resolve(answer.sealed);
      else waiting?.reject(new Error(answer.error));
    }
    for (const { id, answers } of voted.items) {
      const entry = this.sent.get(id);
      if (!entry) continue;
      this.sent.delete(id);
      answers.forEach((answer, i) => {
        const waiting = entry.waiting[i];
        if (!waiting) return;
        if ('vote' in answer) waiting.resolve(answer.vote);
        else waiting.reject(new Error(answer.error));
      });
    }
  }

  private failAll(error: Error): void {
    for (const entry of [...this.sent.values(), ...this.batch.values()])
      for (const waiting of entry.waiting) waiting.reject(error);
    for (const waiting of [...this.sentSeals.values(), ...this.seals.map((entry) => entry.waiting)])
      waiting.reject(error);
    this.sent.clear();
    this.batch.clear();
    this.sentSeals.clear();
    this.seals = [];
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
