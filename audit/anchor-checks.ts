/**
 * What one `LogAnchored` shows on its own: its stored leaf_hash is its record's, the record anchors the
 * log the event names, and the record's size, root and origin are what its checkpoint says. Whether
 * that checkpoint is a head its log signed (the log's key, a TreeHeadSigned of that size and root read
 * before it) and whether a log's anchors grow needs the events in order: log-directory.ts `anchor`.
 */
import { leafHashOfRecord } from '../domain/log';
import type { LogAnchored } from '../event-schemas';
import { toHex } from '../merkle-core';
import type { Finding } from './report';
import { checkpointDifferences } from './tree-head-checks';

/** What the sequential anchor checks need of a well-formed LogAnchored. */
export interface AnchorFacts {
  /** The anchored log. */
  log: string;
  treeSize: number;
  rootHash: string;
  checkpoint: string;
}

/** An anchor as the audit read it, with the recomputed hash of its shared-log leaf. */
export interface AuditedAnchor extends AnchorFacts {
  leafHash: Uint8Array;
}

export interface AnchorHooks {
  /**
   * Called for each readable anchor (a LogAnchored of the shared log), in event order: the anchors of
   * every log when the hooked log is the shared one, else those of the hooked log.
   */
  onAnchor?: (anchor: AuditedAnchor) => void | Promise<void>;
}

export interface AnchorVerdict {
  findings: Finding[];
  leafHash: Uint8Array;
  anchor: AnchorFacts;
}

/** Checks a LogAnchored whose data matches its schema. */
export function checkLogAnchored(data: LogAnchored): AnchorVerdict {
  const { record } = data;
  const findings: Finding[] = [];
  const leafHash = leafHashOfRecord(record);
  const recomputed = toHex(leafHash);
  if (data.leaf_hash !== recomputed)
    findings.push({
      check: 'leaf-hash-mismatch',
      message: `leaf_hash ${data.leaf_hash} is not the leaf hash of the anchor record (${recomputed}): the record or the stored hash was altered`,
    });
  const at = { log: record.log, tree_size: record.tree_size };
  if (data.anchored_log !== record.log)
    findings.push({
      check: 'log-anchor',
      ...at,
      message: `the LogAnchored names log ${data.anchored_log}, its record log ${record.log}`,
    });
  const mismatch = recordMismatch(data);
  if (mismatch) findings.push({ check: 'log-anchor', ...at, message: mismatch });
  return {
    findings,
    leafHash,
    anchor: {
      log: record.log,
      treeSize: record.tree_size,
      rootHash: record.root_hash,
      checkpoint: record.checkpoint,
    },
  };
}

/** How the anchored checkpoint contradicts the record's own members, or null when it does not. */
function recordMismatch({ record }: LogAnchored): string | null {
  const read = checkpointDifferences(
    record.checkpoint,
    { origin: record.origin, size: record.tree_size, rootHash: record.root_hash },
    'record',
  );
  if ('unreadable' in read) return `the anchor record's ${read.unreadable.slice('the '.length)}`;
  return read.differences.length === 0
    ? null
    : `the anchored checkpoint of log ${record.log} says ${read.differences.join(', ')}`;
}
