import { logOfEvent, SHARED_LOG_NAME } from '../../domain/log';
import type { TreeHeadSigned, WitnessCosigned } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { LogName } from '../../ports/log';
import type { Change } from '../../ports/read-store';
import type { Projection, ProjectionState } from '../engine/projection';

export const TREE_HEADS = 'tree_heads';

/** One witness cosignature accepted for a tree head. */
export interface CosignatureView {
  /** The witness's verifier key in note format. */
  witness_key: string;
  /** Seconds since the epoch, as signed. */
  timestamp: number;
  /** The signature line (with its newline) appended after the log's in the checkpoint note. */
  line: string;
}

/** Every signed tree head by log and size, for `GET …/sth?tree_size=N` and consistency checks. */
export interface TreeHeadView {
  /** The log that signed it; absent in documents of the shared log written before there were many. */
  log?: LogName;
  tree_size: number;
  timestamp: string;
  /** The checkpoint note as the log signed it: the log's signature line only. */
  checkpoint: string;
  /** Cosignatures of trusted witnesses, in the order they were accepted; one per witness key. */
  cosignatures: CosignatureView[];
}

/**
 * Document id of the head of `log` at `size`: zero-padded so ids sort like sizes. The shared log's
 * ids are the size alone, as they were before there were many logs (its documents stay valid);
 * another log's are prefixed with its name (`test:0000000000000002`).
 */
export function treeHeadId(log: LogName, size: number): string {
  const padded = String(size).padStart(16, '0');
  return log === SHARED_LOG_NAME ? padded : `${log}:${padded}`;
}

export const treeHeadsProjection: Projection = {
  name: 'tree-heads',
  // 2: witness cosignatures per tree size. (Heads of other logs than the shared one need no new
  // version: the shared log's ids are unchanged, and no event before them names another log.)
  version: 2,
  collections: [TREE_HEADS],
  eventTypes: ['TreeHeadSigned', 'WitnessCosigned'],
  project(event: RecordedEvent, state: ProjectionState): Change[] | Promise<Change[]> {
    return event.type === 'WitnessCosigned'
      ? projectCosignature(event as RecordedEvent<WitnessCosigned>, state)
      : projectTreeHead(event as RecordedEvent<TreeHeadSigned>);
  },
};

function projectTreeHead(event: RecordedEvent<TreeHeadSigned>): Change[] {
  const { data } = event;
  const log = logOfEvent(data);
  const view: TreeHeadView = {
    log,
    tree_size: data.tree_size,
    timestamp: data.timestamp,
    checkpoint: data.checkpoint,
    cosignatures: [],
  };
  // A log's sequencer signs one head per batch, so its sizes are unique (the empty tree's head first).
  return [
    {
      kind: 'upsert',
      collection: TREE_HEADS,
      id: treeHeadId(log, data.tree_size),
      position: event.position,
      data: view,
    },
  ];
}

/**
 * Adds a cosignature to the head it covers. The command accepted it only for a head already signed,
 * so the head's document exists (its event comes first in the global order); a second cosignature by
 * the same key for the same size cannot be appended, but is ignored here all the same.
 */
async function projectCosignature(
  event: RecordedEvent<WitnessCosigned>,
  state: ProjectionState,
): Promise<Change[]> {
  const { data } = event;
  // The cosignature is for the head of its own log (witnesses cosign any log).
  const id = treeHeadId(logOfEvent(data), data.tree_size);
  const head = await state.get<TreeHeadView>(TREE_HEADS, id);
  if (!head) return [];
  const recorded = head.data.cosignatures ?? [];
  if (recorded.some((c) => c.witness_key === data.witness_key)) return [];
  const cosignature: CosignatureView = {
    witness_key: data.witness_key,
    timestamp: data.timestamp,
    line: data.cosignature,
  };
  const view: TreeHeadView = { ...head.data, cosignatures: [...recorded, cosignature] };
  return [{ kind: 'upsert', collection: TREE_HEADS, id, position: event.position, data: view }];
}
