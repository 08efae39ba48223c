/**
 * The node key on a thread of its own for the agent platform's action records: the two commitments,
 * the record's canonical JSON, its Ed25519 signature and its leaf hash are most of a governed action's
 * CPU besides HTTP, and here they use the second core. The same builder as inline
 * (domain/platform/records.ts `buildAgentAction`), so the same bytes.
 */
import { createPublicKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { buildAgentAction } from '../../domain/platform/records';
import type { RecordSealThreadData, SealAnswer, SealBatch, SealItem } from './record-seal-thread-protocol';

const { authorityKey } = workerData as RecordSealThreadData;
const authority = { privateKey: authorityKey, nodeId: authorityNodeIdOf(createPublicKey(authorityKey)) };
const port = parentPort!;

function answer({ id, input, nonces }: SealItem): SealAnswer {
  try {
    const { record, leafHash } = buildAgentAction(input, nonces, authority);
    return { id, record, leafHash };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  }
}

// Each answer goes back as soon as it is made: an action proceeds while the thread signs the others.
port.on('message', (batch: SealBatch) => {
  for (const item of batch.items) port.postMessage(answer(item));
});
