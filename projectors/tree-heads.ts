import type { TreeHeadSigned } from '../event-schemas';
import type { RecordedEvent } from '../ports/event-store';
import type { Change } from '../ports/read-store';
import type { Projection } from './projection';

export const TREE_HEADS = 'tree_heads';

/** Every signed tree head by size, for `GET /gov/v1/log/sth?tree_size=N` and consistency checks. */
export interface TreeHeadView {
  tree_size: number;
  timestamp: string;
  checkpoint: string;
}

/** Document id of the head at `size`: zero-padded so ids sort like sizes. */
export function treeHeadId(size: number): string {
  return String(size).padStart(16, '0');
}

export const treeHeadsProjection: Projection = {
  name: 'tree-heads',
  version: 1,
  collections: [TREE_HEADS],
  eventTypes: ['TreeHeadSigned'],
  project(event: RecordedEvent): Change[] {
    const data = event.data as TreeHeadSigned;
    const view: TreeHeadView = {
      tree_size: data.tree_size,
      timestamp: data.timestamp,
      checkpoint: data.checkpoint,
    };
    // The sequencer signs one head per batch, so sizes are unique (the empty tree's head comes first).
    return [
      {
        kind: 'upsert',
        collection: TREE_HEADS,
        id: treeHeadId(data.tree_size),
        position: event.position,
        data: view,
      },
    ];
  },
};
