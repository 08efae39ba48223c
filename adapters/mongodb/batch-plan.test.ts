import type { Change } from '../../ports/read-store';
import { countersLast, incrementTargets, planWrites } from './batch-plan';

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
