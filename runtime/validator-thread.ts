/**
 * The in-process validators on a thread of their own: examining a bundle (its canonical hash, the
 * gate rules) and signing four votes is most of an admission's CPU, and here it uses the second core.
 * The validators of one process see the same bundle bytes, so they share one examination of it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  createLocalValidators,
  type Examination,
  examineBundle,
  type VoteRequest,
} from '../domain/validators';
import type { ValidatorThreadData, VoteAnswer, VoteBatch, VotedBatch } from './validator-thread-protocol';

const validators = createLocalValidators((workerData as ValidatorThreadData).privateKeys);
const port = parentPort!;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A throw becomes the asked validators' failure, which the round reports; it never ends the thread. */
function answers(request: VoteRequest, asked: readonly number[]): VoteAnswer[] {
  let examination: Examination;
  try {
    examination = examineBundle(request);
  } catch (error) {
    return asked.map(() => ({ error: messageOf(error) }));
  }
  return asked.map((index) => {
    try {
      return { vote: validators[index]!.signVote(request, examination) };
    } catch (error) {
      return { error: messageOf(error) };
    }
  });
}

port.on('message', (batch: VoteBatch) => {
  const items = batch.items.map(({ id, request, validators: asked }) => ({
    id,
    answers: answers(request, asked),
  }));
  port.postMessage({ items } satisfies VotedBatch);
});
