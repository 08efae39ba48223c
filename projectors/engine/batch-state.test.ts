/**
 * A batch's state sees its own creates without reading them first: a create of a document not known
 * here is "created unless stored", and only a later get of it in the batch asks the store.
 */
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type { Change, ReadStore } from '../../ports/read-store';
import { AppliedDocuments } from './applied-documents';
import { BatchState } from './batch-state';
import { physicalCollection } from './projection';

const LEAVES = 'leaves';
const stored = physicalCollection(LEAVES, 1);

/** A store that records the ids its gets ask for. */
function counted(store: ReadStore): { store: ReadStore; gets: string[] } {
  const gets: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'get')
        return (collection: string, id: string) => {
          gets.push(id);
          return target.get(collection, id);
        };
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, gets };
}

const create = (id: string, position: number, index: number): Change => ({
  kind: 'create',
  collection: LEAVES,
  id,
  position,
  data: { index },
});

describe('creates in a batch state', () => {
  let store: SqliteReadStore;
  beforeEach(async () => {
    store = new SqliteReadStore(':memory:');
    await store.apply([{ kind: 'upsert', collection: stored, id: 'old', position: 1, data: { index: 0 } }]);
  });
  afterEach(() => store.close());

  it('given creates of unknown documents, then recording them reads nothing, and a later get reads each once: what is stored, else the created one', async () => {
    const { store: reading, gets } = counted(store);
    const state = new BatchState(reading, 1);
    await state.record(create('old', 2, 1));
    await state.record(create('new', 3, 2));
    await state.record(create('new', 4, 3));
    expect(gets).toEqual([]);

    expect((await state.get(LEAVES, 'old'))?.data).toEqual({ index: 0 });
    expect(await state.get(LEAVES, 'new')).toEqual({ id: 'new', position: 3, data: { index: 2 } });
    expect(await state.get(LEAVES, 'new')).toEqual({ id: 'new', position: 3, data: { index: 2 } });
    expect(gets).toEqual(['old', 'new']);
  });

  it('given documents the batch already knows, then a create of them resolves without a read', async () => {
    const { store: reading, gets } = counted(store);
    const state = new BatchState(reading, 1);
    await state.prefetch([
      { collection: LEAVES, id: 'old' },
      { collection: LEAVES, id: 'absent' },
    ]);
    await state.record({
      kind: 'upsert',
      collection: LEAVES,
      id: 'upserted',
      position: 2,
      data: { index: 7 },
    });
    await state.record({ kind: 'delete', collection: LEAVES, id: 'deleted', position: 2 });
    for (const id of ['old', 'absent', 'upserted', 'deleted']) await state.record(create(id, 3, 9));
    gets.length = 0;

    expect((await state.get(LEAVES, 'old'))?.data).toEqual({ index: 0 });
    expect((await state.get(LEAVES, 'absent'))?.data).toEqual({ index: 9 });
    expect((await state.get(LEAVES, 'upserted'))?.data).toEqual({ index: 7 });
    expect(await state.get(LEAVES, 'deleted')).toBeNull();
    expect(gets).toEqual([]);
  });

  it('given a batch stored, then the documents kept for the next batch leave out a create never resolved', async () => {
    const applied = new AppliedDocuments();
    const state = new BatchState(store, 1, applied);
    await state.record(create('unread', 2, 1));
    await state.record(create('read', 3, 2));
    await state.get(LEAVES, 'read');
    state.stored();
    expect(applied.get(LEAVES, 'unread')).toBeUndefined();
    expect(applied.get(LEAVES, 'read')?.data).toEqual({ index: 2 });
  });
});
