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
import { BatchedWorker } from './batched-worker';
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

export class ValidatorThread {
  private readonly worker: BatchedWorker<Omit<RoundItem, 'id'>, RoundAnswer, CertifiedEnvelope>;

  constructor(
    validatorKeys: readonly KeyObject[],
    /** The node key, which seals the envelopes. */
    authorityKey: KeyObject,
  ) {
    this.worker = new BatchedWorker<Omit<RoundItem, 'id'>, RoundAnswer, CertifiedEnvelope>({
      name: 'the validator thread',
      perMessage: ROUNDS_PER_MESSAGE,
      start: () =>
        startWorker(__dirname, __filename, 'validator-thread', {
          privateKeys: [...validatorKeys],
          authorityKey,
        } satisfies ValidatorThreadData),
      message: (rounds) => ({ rounds }) satisfies RoundBatch,
      answer: (answer) =>
        'certified' in answer
          ? { id: answer.id, result: answer.certified }
          : { id: answer.id, error: roundError(answer.failure) },
    });
  }

  /** A thread started now, so that the first admission does not wait for it. */
  static start(validatorKeys: readonly KeyObject[], authorityKey: KeyObject): ValidatorThread {
    const validatorThread = new ValidatorThread(validatorKeys, authorityKey);
    validatorThread.running();
    return validatorThread;
  }

  /** Ends the thread; rounds still unanswered fail. */
  close(): Promise<void> {
    return this.worker.close();
  }

  /** Runs the validator round and seals the envelope, on the thread. */
  readonly certify: AdmissionCertifier = (request, fields) => this.worker.request({ request, fields });

  /** The thread, started on first use and again after it died (its unanswered rounds failed). */
  private running(): Worker {
    return this.worker.running();
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
