import { DuplicateEventIdError, type EventStore, type RecordedEvent } from '../../ports/event-store';
import type { ImportableEventStore } from './event-stores';

export interface ImportableStoreContractOptions {
  /** A new, empty store. */
  create: () => Promise<{ store: EventStore & ImportableEventStore; dispose: () => Promise<void> }>;
}

/** An event as another store recorded it: the position, revision and time are the source's. */
export function recorded(
  position: number,
  stream: string,
  revision: number,
  overrides: Partial<RecordedEvent> = {},
): RecordedEvent {
  return {
    id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
    type: 'SomethingHappened',
    stream,
    revision,
    position,
    recorded_at: new Date(Date.UTC(2024, 1, 29, 12, 0, position)).toISOString(),
    tenant_id: `tenant-of-${stream}`,
    correlation_id: `correlation-${position}`,
    causation_id: revision === 0 ? null : `cause-${position}`,
    schema_version: 2,
    data: { position, nested: { list: [1, 'two', null, false, 3.25] }, text: 'déjà vu ✓' },
    ...overrides,
  };
}

/** Positions with gaps (another store's commit positions need not be dense), two interleaved streams. */
export const HISTORY: readonly RecordedEvent[] = [
  recorded(3, 'tenant-a', 0),
  recorded(4, 'tenant-b', 0),
  recorded(7, 'tenant-a', 1),
  recorded(12, 'merkle-log', 0, { type: 'TreeHeadSigned', data: { leaf_positions: [3, 4, 7] } }),
  recorded(13, 'tenant-b', 1),
];

/** The events as an async source (an export being read), optionally failing after the last one. */
export async function* from(
  events: readonly RecordedEvent[],
  thenThrow?: Error,
): AsyncGenerator<RecordedEvent> {
  for (const event of events) yield event;
  if (thenThrow) throw thenThrow;
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

/** What every store `gov import` can write into must do; run it against each adapter. */
export function importableStoreContract(name: string, options: ImportableStoreContractOptions): void {
  describe(`importable event store contract: ${name}`, () => {
    let store: EventStore & ImportableEventStore;
    let dispose: () => Promise<void>;

    beforeEach(async () => {
      ({ store, dispose } = await options.create());
    });
    afterEach(async () => {
      await dispose();
    });

    const expectEmpty = async () => {
      expect(await store.headPosition()).toBe(0);
      expect(await collect(store.readAll())).toEqual([]);
    };

    it('given an empty store, when a history is imported, then every event reads back exactly: ids, streams, revisions, positions, recorded_at, data', async () => {
      const result = await store.importEvents(from(HISTORY));
      expect(result).toEqual({ events: 5, last_position: 13 });
      expect(await collect(store.readAll())).toEqual(HISTORY);
      expect(await collect(store.readStream('tenant-a'))).toEqual([HISTORY[0], HISTORY[2]]);
      expect(await store.headPosition()).toBe(13);
      expect(await store.headPosition({ eventTypes: ['TreeHeadSigned'] })).toBe(12);
    });

    it('then appends continue after the imported history: next revision of the stream, a later position', async () => {
      await store.importEvents(from(HISTORY));
      const appended = await store.append(
        'tenant-a',
        [{ type: 'Later', data: {}, tenant_id: 'tenant-of-tenant-a', correlation_id: 'c' }],
        { expectedRevision: 1 },
      );
      expect(appended.nextRevision).toBe(2);
      expect(appended.position).toBeGreaterThan(13);
    });

    it('given an empty history, then nothing is stored and the result says so', async () => {
      expect(await store.importEvents(from([]))).toEqual({ events: 0, last_position: 0 });
      await expectEmpty();
    });

    it('given a store that already holds an event, then the import is refused and the store is unchanged', async () => {
      await store.append('existing', [{ type: 'Was', data: {}, tenant_id: 't', correlation_id: 'c' }]);
      const before = await collect(store.readAll());
      await expect(store.importEvents(from(HISTORY))).rejects.toThrow(/empty store/);
      expect(await collect(store.readAll())).toEqual(before);
    });

    it('given a source that fails after its last event (a checksum at the trailer), then nothing is stored, and a later import works', async () => {
      const failure = new Error('checksum mismatch');
      await expect(store.importEvents(from(HISTORY, failure))).rejects.toBe(failure);
      await expectEmpty();
      await store.importEvents(from(HISTORY));
      expect(await collect(store.readAll())).toEqual(HISTORY);
    });

    it('given positions that do not increase, then the import is refused naming the event, and nothing is stored', async () => {
      const events = [recorded(5, 's', 0), recorded(5, 's', 1, { id: 'other-id' })];
      await expect(store.importEvents(from(events))).rejects.toThrow(/position 5.*increase strictly/);
      await expectEmpty();
    });

    it('given a stream whose revisions skip one or do not start at 0, then the import is refused, and nothing is stored', async () => {
      await expect(store.importEvents(from([recorded(1, 's', 0), recorded(2, 's', 2)]))).rejects.toThrow(
        /revision 2 of stream 's' does not follow revision 0/,
      );
      await expectEmpty();
      await expect(store.importEvents(from([recorded(1, 's', 1)]))).rejects.toThrow(/revision 1/);
      await expectEmpty();
    });

    it('given an id used twice, then DuplicateEventIdError, and nothing is stored', async () => {
      const events = [recorded(1, 'a', 0), recorded(2, 'b', 0, { id: recorded(1, 'a', 0).id })];
      await expect(store.importEvents(from(events))).rejects.toBeInstanceOf(DuplicateEventIdError);
      await expectEmpty();
    });
  });
}
