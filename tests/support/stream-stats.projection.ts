import type { RecordedEvent } from '../../ports/event-store';
import type { Change, ReadStore } from '../../ports/read-store';
import type { Projection, ProjectionState } from '../../projectors/engine/projection';

/**
 * A projection that is easy to get wrong under replay: a counter per tenant (increments must not be
 * counted twice) and a per-stream document derived from its previous state (batch overlay).
 */
export const streamStatsProjection: Projection = {
  name: 'stream_stats',
  version: 1,
  collections: ['tenant_counts', 'streams'],
  indexes: [{ collection: 'streams', fields: ['tenant_id'] }],
  eventTypes: ['TestEvent'],
  async project(event: RecordedEvent, state: ProjectionState): Promise<Change[]> {
    const previous = await state.get<{ count: number; sum: number }>('streams', event.stream);
    const n = (event.data as { n: number }).n;
    return [
      {
        kind: 'increment',
        collection: 'tenant_counts',
        id: event.tenant_id,
        position: event.position,
        field: 'events',
        by: 1,
      },
      {
        kind: 'upsert',
        collection: 'streams',
        id: event.stream,
        position: event.position,
        data: {
          tenant_id: event.tenant_id,
          count: (previous?.data.count ?? 0) + 1,
          sum: (previous?.data.sum ?? 0) + n,
          last_revision: event.revision,
        },
      },
    ];
  },
};

/** Every document of the given physical collections, in a canonical order, as one string. */
export async function dumpCollections(readStore: ReadStore, collections: readonly string[]): Promise<string> {
  const out: Record<string, unknown[]> = {};
  for (const collection of collections) {
    const docs: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<ReadStore['find']>> = await readStore.find(collection, {
        limit: 500,
        cursor,
      });
      docs.push(...page.items.map((d) => [d.id, d.position, d.data]));
      cursor = page.nextCursor;
    } while (cursor);
    out[collection] = docs;
  }
  return JSON.stringify(out);
}
