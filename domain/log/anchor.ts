/**
 * Anchoring (issue 32): the shared log's sequencer periodically admits each other log's latest signed
 * checkpoint as a shared-log leaf, record type GOV_LOG_ANCHOR_V1. A fork of an anchored log then needs
 * a fork of the shared log too. Pure: which logs need an anchor now, and the record of one.
 */
import { SHARED_LOG_NAME } from './log-names';

export const LOG_ANCHOR_RECORD_TYPE = 'GOV_LOG_ANCHOR_V1';

/** A log's latest signed tree head, as its `TreeHeadSigned` event gives it. */
export interface SignedHead {
  log: string;
  origin: string;
  tree_size: number;
  root_hash: string;
  /** The checkpoint note with the log's signature line only (what the event holds). */
  checkpoint: string;
}

/**
 * The heads to anchor now: each log's latest head when it is larger than the log's last anchor (none
 * yet: anything larger than the empty tree). The shared log is never anchored in itself, an empty tree
 * commits to nothing, and a head re-signed at the size already anchored (same size, same root, since a
 * log never forks) adds nothing.
 *
 * @param lastAnchored the size of each log's last anchor; a log missing has none.
 */
export function headsToAnchor(
  latest: readonly SignedHead[],
  lastAnchored: ReadonlyMap<string, number>,
): SignedHead[] {
  return latest.filter(
    (head) =>
      head.log !== SHARED_LOG_NAME &&
      head.tree_size > 0 &&
      head.tree_size > (lastAnchored.get(head.log) ?? 0),
  );
}

/**
 * A GOV_LOG_ANCHOR_V1 record (event-schemas/governance/records/log-anchor.json, whose generated type
 * `LogAnchor` is this one; spelled here since the domain does not depend on the schemas).
 */
export interface LogAnchorRecord extends SignedHead {
  record_type: typeof LOG_ANCHOR_RECORD_TYPE;
  anchored_at: string;
}

/** The record admitted to the shared log to anchor `head`: commitments only, no tenant content. */
export function logAnchorRecord(head: SignedHead, anchoredAt: Date): LogAnchorRecord {
  return {
    record_type: LOG_ANCHOR_RECORD_TYPE,
    log: head.log,
    origin: head.origin,
    tree_size: head.tree_size,
    root_hash: head.root_hash,
    checkpoint: head.checkpoint,
    anchored_at: anchoredAt.toISOString(),
  };
}
