import fc from 'fast-check';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type { Change } from '../../ports/read-store';
import { dumpCollections } from '../../tests/support/stream-stats.projection';
import { documentKey } from './applied-documents';
import { compactChanges } from './compact-changes';

const COLLECTIONS = ['c1', 'c2'];

/** A batch as projectors write it: per document, positions never go down and never repeat. */
const batch = (from: number) =>
  fc
    .array(
      fc.record({
        collection: fc.constantFrom(...COLLECTIONS),
        id: fc.constantFrom('a', 'b', 'c'),
        kind: fc.constantFrom('upsert', 'delete', 'increment', 'create'),
        step: fc.integer({ min: 0, max: 3 }),
        value: fc.integer({ min: -5, max: 5 }),
      }),
      { maxLength: 25 },
    )
    .map((drafts) => {
      const last = new Map<string, number>();
      let position = from;
      const changes: Change[] = [];
      for (const draft of drafts) {
        position += draft.step;
        const key = `${draft.collection}/${draft.id}`;
        if ((last.get(key) ?? -1) >= position) continue;
        last.set(key, position);
        const target = { collection: draft.collection, id: draft.id, position };
        if (draft.kind === 'upsert') changes.push({ kind: 'upsert', ...target, data: { n: draft.value } });
        else if (draft.kind === 'delete') changes.push({ kind: 'delete', ...target });
        else if (draft.kind === 'create')
          changes.push({ kind: 'create', ...target, data: { n: draft.value } });
        else changes.push({ kind: 'increment', ...target, field: 'n', by: draft.value });
      }
      return changes;
    });

async function applied(batches: readonly Change[][]): Promise<string> {
  const store = new SqliteReadStore(':memory:');
  for (const changes of batches) await store.apply(changes);
  const dump = await dumpCollections(store, COLLECTIONS);
  await store.close();
  return dump;
}

describe('compacting a batch of changes', () => {
  it('given a batch that rewrites the dispatcher marker per event and upserts then deletes a pending leaf, then only the last write of each document is kept, increments after it too', () => {
    const changes: Change[] = [
      { kind: 'upsert', collection: 'pending', id: '7', position: 7, data: { leaf: 1 } },
      { kind: 'increment', collection: 'meta', id: 'pending', position: 7, field: 'count', by: 1 },
      { kind: 'upsert', collection: 'meta', id: 'applied', position: 7, data: { position: 7 } },
      { kind: 'delete', collection: 'pending', id: '7', position: 8 },
      { kind: 'increment', collection: 'meta', id: 'pending', position: 8, field: 'count', by: -1 },
      { kind: 'upsert', collection: 'meta', id: 'applied', position: 8, data: { position: 8 } },
    ];
    expect(compactChanges(changes)).toEqual([changes[1], changes[3], changes[4], changes[5]]);
  });

  it('given a pending leaf born in the batch and consumed by it, then none of its changes is kept; one born earlier is still deleted', () => {
    const changes: Change[] = [
      { kind: 'upsert', collection: 'pending', id: '7', position: 7, data: { leaf: 1 } },
      { kind: 'upsert', collection: 'pending', id: '9', position: 9, data: { leaf: 2 } },
      { kind: 'delete', collection: 'pending', id: '5', position: 10 },
      { kind: 'delete', collection: 'pending', id: '7', position: 10 },
    ];
    const born = new Set([documentKey('pending', '7'), documentKey('pending', '9')]);
    expect(compactChanges(changes, born)).toEqual([changes[1], changes[2]]);
    expect(compactChanges(changes)).toEqual([changes[1], changes[2], changes[3]]);
  });

  it('given documents born in the batch (none stored before it), when the batch is applied compacted, then every live document ends as with the whole batch, and one it deletes last leaves not even a tombstone', async () => {
    await fc.assert(
      fc.asyncProperty(batch(0), batch(10), async (before, drafted) => {
        // Born documents: a collection the earlier batch never writes, upserted first in this one.
        const changes = drafted.map((change) => ({ ...change, collection: `${change.collection}_new` }));
        const born = new Set<string>();
        const seen = new Set<string>();
        for (const change of changes) {
          const key = documentKey(change.collection, change.id);
          if (!seen.has(key) && change.kind === 'upsert') born.add(key);
          seen.add(key);
        }
        const live = async (batches: Change[][]) => {
          const store = new SqliteReadStore(':memory:');
          for (const each of batches) await store.apply(each);
          const dump = await dumpCollections(store, ['c1_new', 'c2_new']);
          await store.close();
          return dump;
        };
        expect(await live([before, compactChanges(changes, born)])).toBe(await live([before, changes]));
        // A born document whose last change is its delete leaves nothing, not even a tombstone.
        const lastOf = new Map(changes.map((change) => [documentKey(change.collection, change.id), change]));
        const kept = compactChanges(changes, born);
        for (const [key, last] of lastOf)
          if (born.has(key) && last.kind === 'delete')
            expect(kept.filter((change) => documentKey(change.collection, change.id) === key)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('given any state left by an earlier batch (a replay included), when a batch is applied compacted, then every document ends as with the whole batch, and so after any later batch', async () => {
    await fc.assert(
      fc.asyncProperty(batch(0), batch(0), batch(5), async (before, changes, after) => {
        const whole = await applied([before, changes, after]);
        const compacted = await applied([before, compactChanges(changes), after]);
        expect(compacted).toBe(whole);
      }),
      { numRuns: 150 },
    );
  });
});
