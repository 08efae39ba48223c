/**
 * The live check of anchors: what the server answers at `GET /gov/v1/logs/:log/anchor?tree_size=N` for
 * an anchor the audited events hold (log L anchored at size N in the shared log), judged against that
 * anchor and the auditor's trusted shared-log keys. Pure but for signature checks; the requests are
 * live-check.ts's.
 *
 * The answer must be the audited anchor (the first anchor of L at or after N is the one of size N, its
 * leaf hash the one recomputed from the event), its record must hash to that leaf, the shared STH must
 * verify under a trusted key, and the inclusion proof must put the leaf into it. And the head the
 * server serves for L at size N must be the anchored checkpoint: the server shows no other tree of L.
 */
import { checkpointNoteFromSth, type JsonSth, leafHashOfRecord } from '../domain/log';
import { fromHex, toHex, verifyInclusion } from '../merkle-core';
import type { AuditedAnchor } from './anchor-checks';
import { type AnchorAnswer, signedText } from './live-answers';
import type { LiveCheckCode } from './live-findings';
import type { TrustedLogKeys } from './live-trust';

export interface AnchorFault {
  check: LiveCheckCode;
  message: string;
}

/** What is wrong with the server's anchor answer for `anchor` (nothing: an empty list). */
export async function anchorAnswerFaults(
  anchor: AuditedAnchor,
  answer: AnchorAnswer,
  sharedKeys: TrustedLogKeys,
): Promise<AnchorFault[]> {
  const what = `the anchor of log ${anchor.log} at size ${anchor.treeSize}`;
  const expectedHash = toHex(anchor.leafHash);
  const served = answer.anchor;
  if (answer.log !== anchor.log || answer.tree_size !== anchor.treeSize)
    return [
      {
        check: 'live-anchor-mismatch',
        message: `asked for ${what}, the server answers the anchor of log ${answer.log} at size ${answer.tree_size}: it does not serve the anchor the events hold`,
      },
    ];
  if (served.leaf_hash !== expectedHash)
    return [
      {
        check: 'live-anchor-mismatch',
        message: `${what} is shared-log leaf ${served.leaf_hash} on the server, but the events give ${expectedHash}: another anchor record of that size`,
      },
    ];
  const faults: AnchorFault[] = [];
  const invalid = (reason: string) =>
    faults.push({ check: 'live-anchor-invalid', message: `${what}: ${reason}` });
  const recordHash = toHex(leafHashOfRecord(served.record.record));
  if (recordHash !== served.leaf_hash)
    invalid(`the record served hashes to leaf ${recordHash}, not to its leaf ${served.leaf_hash}`);
  const { sth, inclusion_proof: proof } = answer.shared;
  const verdict = await sharedKeys.verifySth(sth);
  if (!verdict.ok) {
    invalid(`the shared log's STH it is proved into does not verify: ${verdict.reason}`);
    return faults;
  }
  if (
    proof.leaf_index !== served.leaf_index ||
    proof.leaf_hash !== served.leaf_hash ||
    proof.tree_size !== sth.tree_size ||
    proof.root_hash !== sth.root_hash
  ) {
    invalid(
      `the inclusion proof is of leaf ${proof.leaf_index} (${proof.leaf_hash}) into size ${proof.tree_size}, root ${proof.root_hash}: not of the anchor leaf ${served.leaf_index} into the shared STH of size ${sth.tree_size}, root ${sth.root_hash}`,
    );
    return faults;
  }
  const included = verifyInclusion(
    served.leaf_index,
    sth.tree_size,
    fromHex(served.leaf_hash),
    proof.audit_path,
    fromHex(sth.root_hash),
  );
  if (!included.ok)
    invalid(
      `its inclusion proof into the shared log's STH of size ${sth.tree_size} does not verify: ${included.reason}`,
    );
  return faults;
}

/**
 * What is wrong with the head the server serves for the anchored log at the anchor's size (null when it
 * is the anchored checkpoint: same size, root and signed text).
 */
export function anchoredHeadFault(anchor: AuditedAnchor, head: JsonSth): AnchorFault | null {
  const what = `the anchor of log ${anchor.log} at size ${anchor.treeSize}`;
  if (head.tree_size !== anchor.treeSize || head.root_hash !== anchor.rootHash)
    return {
      check: 'live-anchor-mismatch',
      message: `${what} holds root ${anchor.rootHash}, but the server's tree head of log ${anchor.log} at that size has size ${head.tree_size}, root ${head.root_hash}: two trees of one log`,
    };
  if (signedText(checkpointNoteFromSth(head)) !== signedText(anchor.checkpoint))
    return {
      check: 'live-anchor-mismatch',
      message: `${what}: the server's tree head of log ${anchor.log} at that size is not the anchored checkpoint, though its root is the same`,
    };
  return null;
}
