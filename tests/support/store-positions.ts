/**
 * Positions are each event store's own: an import into EventStoreDB keeps every event, its order and
 * everything signed, but not the numbers. To compare two stores "modulo positions", every position is
 * replaced by the id of the event at that position in its own store: equal results mean the same
 * events in the same order, and every position (a document's guard, a bundle's admitted_position, a
 * tree head's leaf_positions) naming the same event.
 */
import type { RecordedEvent } from '../../ports/event-store';
import type { StoredDocument } from '../../ports/read-store';

/** Which event each position of a store names. */
function eventIdsByPosition(events: readonly RecordedEvent[]): Map<number, string> {
  return new Map(events.map((event) => [event.position, event.id]));
}

function idAt(ids: ReadonlyMap<number, string>, position: number): string {
  const id = ids.get(position);
  if (id === undefined) throw new Error(`no event at position ${position} of this store`);
  return id;
}

/** The events in order, each position (its own, and a tree head's leaf_positions) as an event id. */
export function eventsModuloPositions(events: readonly RecordedEvent[]): unknown[] {
  const ids = eventIdsByPosition(events);
  return events.map(({ position: _position, ...event }) => {
    const data = event.data as { leaf_positions?: number[] };
    if (event.type !== 'TreeHeadSigned' || !Array.isArray(data?.leaf_positions)) return event;
    return { ...event, data: { ...data, leaf_positions: data.leaf_positions.map((p) => idAt(ids, p)) } };
  });
}

/**
 * Read-model documents with their positions as event ids: every document's guard position, and the
 * positions read models keep in their data, which are never shown: governance bundles'
 * admitted_position (it orders a tenant's chain and names the event holding the bundle) and
 * governance leaves' position (the event holding the leaf's record). Collections are keyed
 * `<projection>/<collection>`.
 */
export function documentsModuloPositions(
  models: Record<string, StoredDocument<unknown>[]>,
  events: readonly RecordedEvent[],
): Record<string, unknown[]> {
  const ids = eventIdsByPosition(events);
  return Object.fromEntries(
    Object.entries(models).map(([collection, documents]) => [
      collection,
      documents.map(({ position, data, ...document }) => {
        const named = data as { admitted_position?: number; position?: number };
        const mapped: Record<string, string> = {};
        if (named.admitted_position !== undefined)
          mapped.admitted_position = idAt(ids, named.admitted_position);
        if (collection.endsWith('/leaves') && named.position !== undefined)
          mapped.position = idAt(ids, named.position);
        return { ...document, caused_by: idAt(ids, position), data: { ...(data as object), ...mapped } };
      }),
    ]),
  );
}
