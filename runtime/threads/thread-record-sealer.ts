/**
 * The governed actions' records built and signed on the record sealing thread (record-seal-thread.ts),
 * as the evidence path's validator round runs on its thread (thread-validators.ts), batched the same
 * way (batched-worker.ts). Same key, same bytes as `buildAgentAction` inline; only the CPU moves off
 * the main thread.
 */
import type { KeyObject } from 'node:crypto';
import type { AgentActionInput, SealedRecord } from '../../domain/platform/records';
import type { AgentAction } from '../../event-schemas';
import { startWorker } from '../support/worker-entry';
import { BatchedWorker } from './batched-worker';
import type { RecordSealThreadData, SealAnswer, SealBatch, SealItem } from './record-seal-thread-protocol';

/** Sent as soon as this many are asked, so the thread signs the first while the main thread parses the rest. */
const SEALS_PER_MESSAGE = 8;

export class RecordSealThread {
  private readonly worker: BatchedWorker<Omit<SealItem, 'id'>, SealAnswer, SealedRecord<AgentAction>>;

  private constructor(authorityKey: KeyObject) {
    this.worker = new BatchedWorker<Omit<SealItem, 'id'>, SealAnswer, SealedRecord<AgentAction>>({
      name: 'the record sealing thread',
      perMessage: SEALS_PER_MESSAGE,
      start: () =>
        startWorker(__dirname, __filename, 'record-seal-thread', {
          authorityKey,
        } satisfies RecordSealThreadData),
      message: (items) => ({ items }) satisfies SealBatch,
      answer: (answer: SealAnswer) =>
        'error' in answer
          ? { id: answer.id, error: new Error(answer.error) }
          : { id: answer.id, result: { record: answer.record, leafHash: answer.leafHash } },
    });
  }

  /** A thread started now, so that the first action does not wait for it. */
  static start(authorityKey: KeyObject): RecordSealThread {
    const sealer = new RecordSealThread(authorityKey);
    sealer.worker.running();
    return sealer;
  }

  /** Ends the thread; records still unanswered fail. */
  close(): Promise<void> {
    return this.worker.close();
  }

  /** Builds and signs the action's record on the thread. */
  readonly seal = (
    input: AgentActionInput,
    nonces: { content: string; principal: string },
  ): Promise<SealedRecord<AgentAction>> => this.worker.request({ input, nonces });
}
