import path from 'node:path';
import fc from 'fast-check';
import { collect, consume } from '../../ports/contract/event-store.contract';
import type { EventFilter, SubscribeOptions } from '../../ports/event-store';
import { tempDir } from '../../tests/support/temp-dir';
import { SqliteEventStore } from './event-store';
import type { EventRow } from './group-commit';
import { RecentAppends } from './recent-appends';

const row = (id: string, data: object): EventRow => ({
  id,
  type: 'T',
  tenant_id: 't',
  correlation_id: 'c',
  causation_id: null,
  schema_version: 1,
  data: JSON.stringify(data),
});

describe('RecentAppends', () => {
  it('given appends whose positions run on, when read from within the run, then it gives them', () => {
    const recent = new RecentAppends();
    recent.note(
      's',
      [row('a', { n: 1 }), row('b', { n: 2 })],
      [{ n: 1 }, { n: 2 }],
      { nextRevision: 1, position: 11 },
      'at',
    );
    recent.note('s', [row('c', { n: 3 })], [{ n: 3 }], { nextRevision: 2, position: 12 }, 'at');
    expect(
      recent.read(10, undefined, 10, undefined)?.events.map((e) => [e.id, e.position, e.revision]),
    ).toEqual([
      ['b', 11, 1],
      ['c', 12, 2],
    ]);
    expect(recent.read(9, undefined, 1, undefined)).toEqual({
      events: [expect.objectContaining({ id: 'a', data: { n: 1 } })],
      through: 10,
    });
  });

  it('given another connection committed in between, when read from before the gap, then it sends the reader to the file', () => {
    const recent = new RecentAppends();
    recent.note('s', [row('a', {})], [{}], { nextRevision: 0, position: 10 }, 'at');
    recent.note('s', [row('b', {})], [{}], { nextRevision: 1, position: 12 }, 'at'); // 11 is not ours
    expect(recent.read(10, undefined, 10, undefined)).toBeNull();
    expect(recent.read(11, undefined, 10, undefined)?.events.map((e) => e.id)).toEqual(['b']);
    expect(recent.read(12, undefined, 10, undefined)).toBeNull(); // at the end: only the file knows more
  });

  it('selects members as the store query does: null for what the data lacks, objects only where the data has one', () => {
    const recent = new RecentAppends();
    const data = { leaf_hash: 'h', nested: { a: 1, b: [1, 2] }, flat: 'x' };
    recent.note('s', [row('a', data)], [data], { nextRevision: 0, position: 1 }, 'at');
    const members = { T: ['leaf_hash', 'missing', 'nested.b', 'flat.inner', 'none.inner'] };
    const read = recent.read(0, undefined, 1, members)!.events[0]!.data;
    expect(read).toEqual({ leaf_hash: 'h', missing: null, nested: { b: [1, 2] }, flat: null, none: null });
    (read as { nested: { b: number[] } }).nested.b.push(3);
    expect(data.nested.b).toEqual([1, 2]); // a copy
  });
});

/**
 * Whatever this store appended, another connection appended in between or a retry repeated, its
 * reads (from memory where it can) equal a fresh connection's (from the file alone).
 */
describe('SqliteEventStore reading its own appends', () => {
  type Step = { kind: 'ours' | 'theirs' | 'retry'; type: 'A' | 'B'; count: number };
  const steps = fc.array(
    fc.record({
      kind: fc.constantFrom('ours', 'ours', 'theirs', 'retry'),
      type: fc.constantFrom('A', 'B'),
      count: fc.integer({ min: 1, max: 3 }),
    }),
    { minLength: 1, maxLength: 12 },
  ) as fc.Arbitrary<Step[]>;
  const filters: Array<EventFilter | undefined> = [
    undefined,
    { eventTypes: ['A'] },
    { streamPrefixes: ['s-B'] },
  ];
  const members: Array<SubscribeOptions['dataMembers']> = [undefined, { A: ['n', 'deep.k', 'gone'] }];

  it('equal a fresh connection reading the file', async () => {
    await fc.assert(
      fc.asyncProperty(
        steps,
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 5 }),
        async (plan, from, limit) => {
          const { dir, remove } = tempDir('gov-recent');
          const file = path.join(dir, 'events.db');
          const ours = new SqliteEventStore({ file, writerThread: true });
          const theirs = new SqliteEventStore({ file });
          let n = 0;
          let last: {
            stream: string;
            events: Array<{
              id: string;
              type: string;
              data: object;
              tenant_id: string;
              correlation_id: string;
            }>;
          } | null = null;
          try {
            for (const step of plan) {
              if (step.kind === 'retry') {
                if (last) await ours.append(last.stream, last.events);
                continue;
              }
              const stream = `s-${step.type}-${step.kind}`;
              const events = Array.from({ length: step.count }, () => ({
                id: `e-${++n}`,
                type: step.type,
                data: { n, deep: { k: n, j: 'j' } },
                tenant_id: 't',
                correlation_id: 'c',
              }));
              await (step.kind === 'ours' ? ours : theirs).append(stream, events);
              if (step.kind === 'ours') last = { stream, events };
            }
            const fresh = new SqliteEventStore({ file });
            try {
              for (const filter of filters) {
                const options = { after: from, maxCount: limit, ...(filter ? { filter } : {}) };
                expect(await collect(ours.readAll(options))).toEqual(await collect(fresh.readAll(options)));
                for (const dataMembers of members) {
                  const head = await fresh.headPosition(filter);
                  const wanted = (
                    await collect(fresh.readAll({ after: from, ...(filter ? { filter } : {}) }))
                  ).length;
                  if (head <= from || wanted === 0) continue;
                  const read = (store: SqliteEventStore) =>
                    consume(
                      store.subscribeToAll({
                        after: from,
                        maxBatchSize: limit,
                        ...(filter ? { filter } : {}),
                        ...(dataMembers ? { dataMembers } : {}),
                      }),
                      wanted,
                    );
                  expect(await read(ours)).toEqual(await read(fresh));
                }
              }
            } finally {
              await fresh.close();
            }
          } finally {
            await ours.close();
            await theirs.close();
            remove();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
