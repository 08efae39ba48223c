/**
 * The in-process validators on a thread of their own: examining a bundle (its canonical hash, the
 * gate rules) and signing four votes is most of an admission's CPU, and here it uses the second core.
 * The validators of one process see the same bundle bytes, so they share one examination of it.
 * The node's envelope signature and leaf hash are made here too, for the same reason.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { sealEnvelope } from '../domain/envelope';
import {
  createLocalValidators,
  type Examination,
  examineBundle,
  type VoteRequest,
} from '../domain/validators';
import type {
  SealAnswer,
  SealItem,
  ValidatorThreadData,
  VoteAnswer,
  VoteBatch,
  VotedBatch,
} from './validator-thread-protocol';

const { privateKeys, authorityKey } = workerData as ValidatorThreadData;
const validators = createLocalValidators(privateKeys);
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

function seal({ id, unsigned }: SealItem): SealAnswer {
  try {
    if (!authorityKey) throw new Error('this validator thread holds no authority key');
    return { id, sealed: sealEnvelope(unsigned, authorityKey) };
  } catch (error) {
    return { id, error: messageOf(error) };
  }
}

// Each answer goes back as soon as it is made, not with the rest of its batch: an admission waiting
// for its votes proceeds while the thread works on the others, so admissions do not move in convoys.
port.on('message', (batch: VoteBatch) => {
  for (const item of batch.seals) port.postMessage({ items: [], sealed: [seal(item)] } satisfies VotedBatch);
  for (const { id, request, validators: asked } of batch.items) {
    port.postMessage({ items: [{ id, answers: answers(request, asked) }], sealed: [] } satisfies VotedBatch);
  }
});
