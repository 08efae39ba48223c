/**
 * The in-process validators and the node key on a thread of their own: examining a bundle (its
 * canonical hash, the gate rules), signing four votes and sealing the envelope is most of an
 * admission's CPU, and here it uses the second core. The whole round is one message each way.
 */
import { createPublicKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { certifyAndSeal } from '../../domain/governance/admission-round';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import {
  createLocalValidators,
  type Examination,
  examineBundle,
  QuorumNotReachedError,
  type Validator,
  ValidatorNetworkError,
} from '../../domain/governance/validators';
import type {
  RoundAnswer,
  RoundBatch,
  RoundFailure,
  RoundItem,
  ValidatorThreadData,
} from './validator-thread-protocol';

const { privateKeys, authorityKey } = workerData as ValidatorThreadData;
const validators = createLocalValidators(privateKeys);
const authority = { privateKey: authorityKey, nodeId: authorityNodeIdOf(createPublicKey(authorityKey)) };
const port = parentPort!;

/** The validators of one round: they see the same bundle bytes, so they examine it once between them. */
function sharingOneExamination(): Validator[] {
  let examination: Examination | undefined;
  return validators.map((validator) => ({
    id: validator.id,
    publicKey: validator.publicKey,
    inProcess: true,
    vote: async (request) => {
      examination ??= examineBundle(request);
      return validator.signVote(request, examination);
    },
  }));
}

function failureOf(error: unknown): RoundFailure {
  if (error instanceof QuorumNotReachedError) {
    const { accepted, quorum, reasons, votes } = error;
    return { kind: 'quorum', accepted, quorum, reasons, votes };
  }
  if (error instanceof ValidatorNetworkError) {
    const { accepted, quorum, failures } = error;
    return { kind: 'network', accepted, quorum, failures };
  }
  return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
}

async function answer({ id, request, fields }: RoundItem): Promise<RoundAnswer> {
  try {
    return { id, certified: await certifyAndSeal(sharingOneExamination(), request, fields, authority) };
  } catch (error) {
    return { id, failure: failureOf(error) };
  }
}

// Each answer goes back as soon as it is made, not with the rest of its batch: an admission proceeds
// while the thread works on the others, so admissions do not move in convoys. A failure is the
// round's answer; it never ends the thread.
port.on('message', async (batch: RoundBatch) => {
  for (const item of batch.rounds) port.postMessage(await answer(item));
});
