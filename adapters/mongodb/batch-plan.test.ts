import type { Change } from '../../ports/read-store';
import { countersLast, incrementTargets, planWrites, readTargets } from './batch-plan';

describe('the write order of a batch without transactions', () => {
  it('given a leaf admitted with its count, when the batch is planned, then the count is written after the leaf and bundle it numbers', () => {
    const changes: Change[] = [
      { kind: 'increment', collection: 'log_meta', id: 'size', position: 7, field: 'size', by: 1 },
      { kind: 'upsert', collection: 'leaves', id: 'leaf-a', position: 7, data: { leaf_index: 6 } },
      { kind: 'upsert', collection: 'bundles', id: 'bundle-a', position: 7, data: { leaf_index: 6 } },
    ];
    const targets = incrementTargets(changes);
    const [documents, counters] = countersLast(
      planWrites(changes, new Map([['log_meta', new Map()]])),
      targets,
    );

    expect(documents.map((write) => `${write.collection}/${write.id}`)).toEqual([
      'leaves/leaf-a',
      'bundles/bundle-a',
    ]);
    expect(counters.map((write) => `${write.collection}/${write.id}`)).toEqual(['log_meta/size']);
  });

  it('given a batch without increments, then everything is written in the first phase', () => {
    const changes: Change[] = [{ kind: 'upsert', collection: 'subjects', id: 's', position: 3, data: {} }];
    const [documents, counters] = countersLast(planWrites(changes, new Map()), incrementTargets(changes));
    expect(documents).toHaveLength(1);
    expect(counters).toEqual([]);
  });
});

describe('planning creates', () => {
  const create = (id: string, position: number, index: number): Change => ({
    kind: 'create',
    collection: 'leaves',
    id,
    position,
    data: { index },
  });

  it('given documents only created, then none is read and each is written from its first create, only where nothing is stored', () => {
    const changes = [create('a', 1, 0), create('b', 2, 1), create('a', 3, 2)];
    expect(readTargets(changes)).toEqual(new Map());
    expect(planWrites(changes, new Map())).toEqual([
      {
        collection: 'leaves',
        id: 'a',
        state: { position: 1, deleted: false, data: { index: 0 } },
        ifAbsent: true,
      },
      {
        collection: 'leaves',
        id: 'b',
        state: { position: 2, deleted: false, data: { index: 1 } },
        ifAbsent: true,
      },
    ]);
  });

  it('given a document created and upserted in one batch, then it is read and planned from what is stored', () => {
    const changes: Change[] = [
      { kind: 'upsert', collection: 'leaves', id: 'a', position: 1, data: { index: 9 } },
      create('a', 2, 0),
    ];
    expect(readTargets(changes)).toEqual(new Map([['leaves', new Set(['a'])]]));
    const absent = new Map([['leaves', new Map([['a', null]])]]);
    expect(planWrites(changes, absent)).toEqual([
      { collection: 'leaves', id: 'a', state: { position: 1, deleted: false, data: { index: 9 } } },
    ]);
    const createdFirst = [create('a', 1, 0), { ...changes[0]!, position: 2 }];
    expect(() => planWrites(createdFirst, new Map())).toThrow(/was not read/);
  });
});
