/**
 * What crosses from the parallel per-event checks to the sequential ones: the raw stored row going in,
 * and per event only the facts the ordering, tree and link checks need coming out.
 */
import type { RawEventRow } from '../adapters/sqlite/event-store';
import type { TreeHeadSigned } from '../event-schemas';
import type { RecordedEvent } from '../ports/event-store';
import type { Discrepancy } from './report';

export type { RawEventRow } from '../adapters/sqlite/event-store';

export function rawRowOf(event: RecordedEvent): RawEventRow {
  return [
    event.position,
    event.id,
    event.stream,
    event.revision,
    event.type,
    event.recorded_at,
    event.tenant_id,
    event.correlation_id,
    event.causation_id,
    event.schema_version,
    // undefined has no JSON text: it then fails to parse and is reported like any unreadable data.
    JSON.stringify(event.data) ?? '',
  ];
}

export type Hce = readonly [H: number, C: number, E: number];

/** What the closed-loop link checks need of a leaf, written by the checking thread to the link index. */
export type LinkFacts =
  | { kind: 'authorization'; tenant: string; subject: string; observables: Hce }
  | { kind: 'execution'; tenant: string; subject: string; parentAuth: string; execState: Hce }
  | {
      kind: 'variance';
      tenant: string;
      subject: string;
      parentAuth: string;
      parentExec: string;
      authState: Hce;
      execState: Hce;
    };

export interface LeafFacts {
  /** The recomputed RFC 9162 leaf hash; null when the leaf record cannot be read. */
  hash: Uint8Array | null;
}

/** A TreeHeadSigned whose data matches its schema (signature and checkpoint already checked). */
export interface TreeHeadFacts {
  treeSize: number;
  rootHash: string;
  firstLeafIndex: number;
  leafPositions: number[];
  timestamp: string;
  checkpoint: string;
}

/** What the tree replay needs of a TreeHeadSigned event. */
export function treeHeadFacts(head: TreeHeadSigned): TreeHeadFacts {
  return {
    treeSize: head.tree_size,
    rootHash: head.root_hash,
    firstLeafIndex: head.first_leaf_index,
    leafPositions: head.leaf_positions,
    timestamp: head.timestamp,
    checkpoint: head.checkpoint,
  };
}

export interface EventFacts {
  position: number;
  id: string;
  type: string;
  stream: string;
  revision: number;
  /** Present for every admission event (by type), even one whose data cannot be read. */
  leaf?: LeafFacts;
  tree_head?: TreeHeadFacts;
}

/** The outcome of checking one chunk of events: facts in position order, and what was found wrong. */
export interface ChunkResult {
  facts: EventFacts[];
  discrepancies: Discrepancy[];
  /** Ed25519 signatures the chunk's checks covered (votes, envelopes, checkpoints). */
  signatures: number;
}
