/**
 * The checks of one TreeHeadSigned on its own: its sizes add up, its checkpoint note verifies under a
 * trusted log key, and the signed checkpoint says what the event's fields say. Whether its root is the
 * root of the admitted leaves is the sequential replay's job (log-replay.ts). A head of a log other
 * than the shared one is verified there too, under the key its LogCreated event gave (log-directory.ts).
 */
import { SHARED_LOG_NAME } from '../domain/log';
import type { TreeHeadSigned } from '../event-schemas';
import {
  type Checkpoint,
  parseCheckpoint,
  parseNote,
  toHex,
  type VerifierKey,
  verifyCheckpoint,
} from '../merkle-core';
import type { Finding } from './report';
import type { PreparedTrust } from './trust';

export async function checkTreeHeadSigned(data: TreeHeadSigned, trust: PreparedTrust): Promise<Finding[]> {
  const findings: Finding[] = [];
  const at = { tree_size: data.tree_size };
  const integrated = data.first_leaf_index + data.leaf_positions.length;
  if (data.tree_size !== integrated)
    findings.push({
      check: 'sth-size',
      ...at,
      message: `tree_size ${data.tree_size} is not first_leaf_index ${data.first_leaf_index} plus its ${data.leaf_positions.length} leaf positions (${integrated})`,
    });
  if (isSharedHead(data)) {
    const signature = await checkSignature(data.checkpoint, trust.logKeys);
    if (signature) findings.push({ ...signature, ...at });
  }
  const mismatch = checkpointMismatch(data);
  if (mismatch) findings.push({ check: 'sth-checkpoint-mismatch', ...at, message: mismatch });
  return findings;
}

/** Whether the head is of the shared log, whose keys the trust holds: only then is it verified here. */
export function isSharedHead(data: TreeHeadSigned): boolean {
  return (data.log ?? SHARED_LOG_NAME) === SHARED_LOG_NAME;
}

/**
 * A failed signature check, or null when one of `keys` verifies the note; `whose` names the keys in
 * the message (the shared log's: the trusted log keys; another log's: the key its LogCreated gave).
 */
export async function checkSignature(
  note: string,
  keys: readonly VerifierKey[],
  whose = 'any trusted log key',
): Promise<Finding | null> {
  if (keys.length === 0)
    return { check: 'sth-signature', message: 'no trusted log key: the checkpoint cannot be verified' };
  const reasons: string[] = [];
  for (const key of keys) {
    const verdict = await verifyCheckpoint(note, key);
    if (verdict.ok) return null;
    reasons.push(`${key.name}: ${verdict.reason}`);
  }
  return {
    check: 'sth-signature',
    message: `the checkpoint does not verify under ${whose} (${reasons.join('; ')}): it was forged, altered, or signed by a key the trust lacks`,
  };
}

/** How the signed checkpoint contradicts the event's own fields, or null when it does not. */
function checkpointMismatch(data: TreeHeadSigned): string | null {
  const read = checkpointDifferences(
    data.checkpoint,
    { origin: data.origin, size: data.tree_size, rootHash: data.root_hash },
    'event',
  );
  if ('unreadable' in read) return read.unreadable;
  const { checkpoint, differences } = read;
  const timestamp = `timestamp ${data.timestamp}`;
  if (checkpoint.extensions.length !== 1 || checkpoint.extensions[0] !== timestamp)
    differences.push(`extensions ${JSON.stringify(checkpoint.extensions)} (event: "${timestamp}")`);
  return differences.length === 0 ? null : `the signed checkpoint says ${differences.join(', ')}`;
}

/**
 * A signed checkpoint note read, and where its origin, size and root differ from what `claimed` (an
 * event's or a record's members, named `label` in each difference) says; or why it cannot be read.
 */
export function checkpointDifferences(
  note: string,
  claimed: { origin: string; size: number; rootHash: string },
  label: string,
): { checkpoint: Checkpoint; differences: string[] } | { unreadable: string } {
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(parseNote(note).text);
  } catch (error) {
    return { unreadable: `the checkpoint is not a well-formed signed note: ${(error as Error).message}` };
  }
  const differences: string[] = [];
  if (checkpoint.origin !== claimed.origin)
    differences.push(`origin ${checkpoint.origin} (${label}: ${claimed.origin})`);
  if (checkpoint.size !== claimed.size)
    differences.push(`tree size ${checkpoint.size} (${label}: ${claimed.size})`);
  const root = toHex(checkpoint.rootHash);
  if (root !== claimed.rootHash) differences.push(`root ${root} (${label}: ${claimed.rootHash})`);
  return { checkpoint, differences };
}
