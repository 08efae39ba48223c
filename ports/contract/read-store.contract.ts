import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Change, FindQuery, ReadStore, StoredDocument } from '../read-store';

/**
 * The behaviour every read store adapter must have, through the port only. Collection and projector
 * names carry a suffix unique to each test, so it also runs against a shared server holding other data.
 */
export function readStoreContract(
  name: string,
  makeStore: () => Promise<{ store: ReadStore; dispose: () => Promise<void> }>,
): void {
  describe(`read store contract: ${name}`, () => {
    let store: ReadStore;
    let dispose: () => Promise<void>;
    let suffix: string;

    beforeEach(async () => {
      ({ store, dispose } = await makeStore());
      suffix = randomUUID().replaceAll('-', '').slice(0, 12);
    });
    afterEach(async () => {
      await dispose();
    });

    /** A collection (or projector) name unique to the running test. */
    const named = (base: string) => `${base}_${suffix}`;
    const data = async <T = Record<string, unknown>>(collection: string, id: string) =>
      (await store.get<T>(collection, id))?.data ?? null;
    const ids = (page: { items: StoredDocument<unknown>[] }) => page.items.map((item) => item.id);

    describe('upsert and get', () => {
      it('given no document, when getting it, then the result is null', async () => {
        expect(await store.get(named('cases'), 'missing')).toBeNull();
      });

      it('given an upsert, when getting the document, then id, position and data come back', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 7, { title: 'Audit', nested: { level: 2 } })]);
        expect(await store.get(cases, 'c1')).toEqual({
          id: 'c1',
          position: 7,
          data: { title: 'Audit', nested: { level: 2 } },
        });
      });

      it('given a document, when a newer upsert arrives, then it replaces the data entirely', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 1, { title: 'Old', obsolete: true })]);
        await store.apply([upsert(cases, 'c1', 2, { title: 'New' })]);
        expect(await store.get(cases, 'c1')).toEqual({ id: 'c1', position: 2, data: { title: 'New' } });
      });

      it('given a newer document, when an older upsert is replayed, then the newer one stays', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 5, { v: 'newer' })]);
        await store.apply([upsert(cases, 'c1', 4, { v: 'older' })]);
        expect(await store.get(cases, 'c1')).toEqual({ id: 'c1', position: 5, data: { v: 'newer' } });
      });

      it('given the same two upserts in either order, then the document ends at the newer one', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'a', 1, { v: 1 }), upsert(cases, 'a', 2, { v: 2 })]);
        await store.apply([upsert(cases, 'b', 2, { v: 2 }), upsert(cases, 'b', 1, { v: 1 })]);
        expect(await data(cases, 'a')).toEqual({ v: 2 });
        expect(await data(cases, 'b')).toEqual({ v: 2 });
      });

      it('given a document, when an upsert at the same position is replayed, then nothing changes', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 3, { v: 'first' })]);
        await store.apply([upsert(cases, 'c1', 3, { v: 'replayed differently' })]);
        expect(await data(cases, 'c1')).toEqual({ v: 'first' });
      });
    });

    describe('delete', () => {
      it('given a document, when it is deleted, then get, find and count no longer see it', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 1, { v: 1 }), upsert(cases, 'c2', 2, { v: 2 })]);
        await store.apply([remove(cases, 'c1', 3)]);
        expect(await store.get(cases, 'c1')).toBeNull();
        expect(ids(await store.find(cases, { limit: 10 }))).toEqual(['c2']);
        expect(await store.count(cases)).toBe(1);
      });

      it('given a deleted document, when an older upsert is replayed, then it stays deleted', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 1, { v: 1 }), remove(cases, 'c1', 2)]);
        await store.apply([upsert(cases, 'c1', 1, { v: 1 })]);
        expect(await store.get(cases, 'c1')).toBeNull();
      });

      it('given a delete of a document never stored, when an older upsert arrives, then it stays absent', async () => {
        const cases = named('cases');
        await store.apply([remove(cases, 'c1', 9)]);
        await store.apply([upsert(cases, 'c1', 8, { v: 8 })]);
        expect(await store.get(cases, 'c1')).toBeNull();
      });

      it('given a newer document, when an older delete is replayed, then the document stays', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 5, { v: 5 })]);
        await store.apply([remove(cases, 'c1', 4)]);
        expect(await data(cases, 'c1')).toEqual({ v: 5 });
      });

      it('given a deleted document, when a newer upsert arrives, then it is recreated', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 1, { v: 1 }), remove(cases, 'c1', 2)]);
        await store.apply([upsert(cases, 'c1', 3, { v: 3 })]);
        expect(await store.get(cases, 'c1')).toEqual({ id: 'c1', position: 3, data: { v: 3 } });
      });
    });

    describe('increment', () => {
      it('given no document, when incrementing, then it is created with the member at 0 + by', async () => {
        const stats = named('stats');
        await store.apply([increment(stats, 's1', 4, 'open', 3)]);
        expect(await store.get(stats, 's1')).toEqual({ id: 's1', position: 4, data: { open: 3 } });
      });

      it('given a document, when incrementing, then other members stay and a missing one starts at 0', async () => {
        const stats = named('stats');
        await store.apply([upsert(stats, 's1', 1, { open: 2, label: 'x', totals: {} })]);
        await store.apply([
          increment(stats, 's1', 2, 'open', -1),
          increment(stats, 's1', 3, 'totals.closed', 1),
        ]);
        expect(await store.get(stats, 's1')).toEqual({
          id: 's1',
          position: 3,
          data: { open: 1, label: 'x', totals: { closed: 1 } },
        });
      });

      it('given an applied increment, when its event is replayed, then it is counted once', async () => {
        const stats = named('stats');
        await store.apply([increment(stats, 's1', 5, 'n', 1)]);
        await store.apply([increment(stats, 's1', 5, 'n', 1)]);
        await store.apply([increment(stats, 's1', 4, 'n', 1)]);
        expect(await data(stats, 's1')).toEqual({ n: 1 });
      });

      it('given a newer upsert made the member text, when an older increment is replayed, then it is skipped, not rejected', async () => {
        const stats = named('stats');
        await store.apply([increment(stats, 's1', 1, 'n', 1), upsert(stats, 's1', 2, { n: 'retired' })]);
        await store.apply([increment(stats, 's1', 1, 'n', 1)]);
        expect(await data(stats, 's1')).toEqual({ n: 'retired' });
      });

      it('given increments after an upsert, when the upsert is replayed, then the count is not reset', async () => {
        const stats = named('stats');
        await store.apply([upsert(stats, 's1', 1, { n: 0 }), increment(stats, 's1', 2, 'n', 1)]);
        await store.apply([upsert(stats, 's1', 1, { n: 0 })]);
        expect(await data(stats, 's1')).toEqual({ n: 1 });
      });

      it('given a deleted document, when a newer increment arrives, then it starts again from 0', async () => {
        const stats = named('stats');
        await store.apply([upsert(stats, 's1', 1, { n: 10 }), remove(stats, 's1', 2)]);
        await store.apply([increment(stats, 's1', 3, 'n', 2)]);
        expect(await data(stats, 's1')).toEqual({ n: 2 });
      });

      it('given fractional amounts, when incrementing, then the sum is a plain number', async () => {
        const stats = named('stats');
        await store.apply([increment(stats, 's1', 1, 'score', 1.5), increment(stats, 's1', 2, 'score', 2)]);
        expect(await data(stats, 's1')).toEqual({ score: 3.5 });
      });
    });

    describe('create', () => {
      it('given no document, when creating it, then id, position and data come back', async () => {
        const leaves = named('leaves');
        await store.apply([create(leaves, 'l1', 4, { index: 0 })]);
        expect(await store.get(leaves, 'l1')).toEqual({ id: 'l1', position: 4, data: { index: 0 } });
        expect(ids(await store.find(leaves, { limit: 10 }))).toEqual(['l1']);
      });

      it('given a created document, when the same id is created at a later position, then the first stays', async () => {
        const leaves = named('leaves');
        await store.apply([create(leaves, 'l1', 4, { index: 0 })]);
        await store.apply([create(leaves, 'l1', 9, { index: 5 })]);
        expect(await store.get(leaves, 'l1')).toEqual({ id: 'l1', position: 4, data: { index: 0 } });
      });

      it('given an upserted document, when a newer create of it arrives, then the document stays as it is', async () => {
        const leaves = named('leaves');
        await store.apply([upsert(leaves, 'l1', 2, { index: 7 })]);
        await store.apply([create(leaves, 'l1', 3, { index: 8 })]);
        expect(await store.get(leaves, 'l1')).toEqual({ id: 'l1', position: 2, data: { index: 7 } });
      });

      it('given a batch of creates, when it is replayed, then the documents and the checkpoint are the same', async () => {
        const leaves = named('leaves');
        const projector = named('projector');
        const batch = [create(leaves, 'a', 1, { index: 0 }), create(leaves, 'b', 2, { index: 1 })];
        await store.apply(batch, { projector, position: 2 });
        await store.apply([create(leaves, 'c', 3, { index: 2 })], { projector, position: 3 });
        await store.apply(batch, { projector, position: 2 });
        const page = await store.find(leaves, { limit: 10 });
        expect(page.items).toEqual([
          { id: 'a', position: 1, data: { index: 0 } },
          { id: 'b', position: 2, data: { index: 1 } },
          { id: 'c', position: 3, data: { index: 2 } },
        ]);
        expect(await store.getCheckpoint(projector)).toBe(3);
      });

      it('given a deleted document, when a newer create arrives, then it stays deleted (a newer upsert recreates it)', async () => {
        const leaves = named('leaves');
        await store.apply([upsert(leaves, 'l1', 1, { index: 0 }), remove(leaves, 'l1', 2)]);
        await store.apply([create(leaves, 'l1', 3, { index: 1 })]);
        expect(await store.get(leaves, 'l1')).toBeNull();
        expect(await store.count(leaves)).toBe(0);
        await store.apply([upsert(leaves, 'l1', 4, { index: 2 })]);
        expect(await store.get(leaves, 'l1')).toEqual({ id: 'l1', position: 4, data: { index: 2 } });
      });

      it('given a delete and then a create of a document in one batch, then it stays deleted', async () => {
        const leaves = named('leaves');
        await store.apply([remove(leaves, 'l1', 1), create(leaves, 'l1', 2, { index: 0 })]);
        expect(await store.get(leaves, 'l1')).toBeNull();
      });

      it('given two creates of one id in one batch, then the first one is stored', async () => {
        const leaves = named('leaves');
        await store.apply([create(leaves, 'l1', 1, { index: 0 }), create(leaves, 'l1', 2, { index: 1 })]);
        expect(await store.get(leaves, 'l1')).toEqual({ id: 'l1', position: 1, data: { index: 0 } });
      });

      it('given a create and then a newer upsert in one batch, then the upsert wins, whether or not the document was stored', async () => {
        const leaves = named('leaves');
        await store.apply([upsert(leaves, 'stored', 1, { v: 'stored' })]);
        const batch = (id: string) => [
          create(leaves, id, 2, { v: 'created' }),
          upsert(leaves, id, 3, { v: 'upserted' }),
        ];
        await store.apply([...batch('stored'), ...batch('absent')]);
        expect(await store.get(leaves, 'stored')).toEqual({
          id: 'stored',
          position: 3,
          data: { v: 'upserted' },
        });
        expect(await store.get(leaves, 'absent')).toEqual({
          id: 'absent',
          position: 3,
          data: { v: 'upserted' },
        });
      });

      it('given an upsert and then a create of one id in one batch, then the create does nothing', async () => {
        const leaves = named('leaves');
        await store.apply([
          upsert(leaves, 'l1', 1, { v: 'upserted' }),
          create(leaves, 'l1', 2, { v: 'created' }),
        ]);
        expect(await store.get(leaves, 'l1')).toEqual({ id: 'l1', position: 1, data: { v: 'upserted' } });
      });

      it('given a create and an older upsert of a document stored between them, in one batch, then the create does nothing and the upsert is a replay', async () => {
        const leaves = named('leaves');
        await store.apply([upsert(leaves, 'l1', 5, { v: 'stored' })]);
        await store.apply([
          upsert(leaves, 'l1', 4, { v: 'older' }),
          create(leaves, 'l1', 6, { v: 'created' }),
        ]);
        expect(await store.get(leaves, 'l1')).toEqual({ id: 'l1', position: 5, data: { v: 'stored' } });
      });

      it('given a create and increments of one id in one batch, then the counts add to what is stored', async () => {
        const stats = named('stats');
        await store.apply([upsert(stats, 'stored', 1, { n: 10 })]);
        await store.apply([
          create(stats, 'stored', 2, { n: 0, label: 'created' }),
          increment(stats, 'stored', 3, 'n', 1),
          create(stats, 'absent', 2, { n: 0, label: 'created' }),
          increment(stats, 'absent', 3, 'n', 1),
          increment(stats, 'counted', 2, 'n', 1),
          create(stats, 'counted', 3, { n: 0, label: 'created' }),
        ]);
        expect(await store.get(stats, 'stored')).toEqual({ id: 'stored', position: 3, data: { n: 11 } });
        expect(await data(stats, 'absent')).toEqual({ n: 1, label: 'created' });
        expect(await store.get(stats, 'counted')).toEqual({ id: 'counted', position: 2, data: { n: 1 } });
      });

      it('given a created document, then its position guards it like any other: an older upsert is a replay, a newer one replaces it', async () => {
        const leaves = named('leaves');
        await store.apply([create(leaves, 'l1', 5, { v: 'created' })]);
        await store.apply([upsert(leaves, 'l1', 4, { v: 'older' })]);
        expect(await data(leaves, 'l1')).toEqual({ v: 'created' });
        await store.apply([upsert(leaves, 'l1', 6, { v: 'newer' })]);
        expect(await store.get(leaves, 'l1')).toEqual({ id: 'l1', position: 6, data: { v: 'newer' } });
      });

      it('given a batch whose creates all meet stored documents, then the checkpoint still moves', async () => {
        const leaves = named('leaves');
        const projector = named('projector');
        await store.apply([create(leaves, 'l1', 1, { index: 0 })], { projector, position: 1 });
        await store.apply([create(leaves, 'l1', 2, { index: 1 })], { projector, position: 2 });
        expect(await store.getCheckpoint(projector)).toBe(2);
        expect(await data(leaves, 'l1')).toEqual({ index: 0 });
      });
    });

    describe('apply is all or nothing', () => {
      it('given an increment of a text member mid-batch, then apply rejects, writes nothing, keeps the checkpoint', async () => {
        const cases = named('cases');
        const projector = named('projector');
        await store.apply([upsert(cases, 'labelled', 1, { label: 'text' })], { projector, position: 1 });
        const batch = [
          upsert(cases, 'before', 2, { v: 2 }),
          increment(cases, 'labelled', 3, 'label', 1),
          upsert(cases, 'after', 4, { v: 4 }),
        ];
        await expect(store.apply(batch, { projector, position: 4 })).rejects.toThrow();
        expect(await store.get(cases, 'before')).toBeNull();
        expect(await store.get(cases, 'after')).toBeNull();
        expect(await store.get(cases, 'labelled')).toEqual({
          id: 'labelled',
          position: 1,
          data: { label: 'text' },
        });
        expect(await store.getCheckpoint(projector)).toBe(1);
      });

      it('given an increment of a null member, then apply rejects and writes nothing', async () => {
        const stats = named('stats');
        await store.apply([upsert(stats, 's1', 1, { n: null })]);
        await expect(
          store.apply([upsert(stats, 's2', 2, { n: 1 }), increment(stats, 's1', 3, 'n', 1)]),
        ).rejects.toThrow();
        expect(await store.get(stats, 's2')).toBeNull();
        expect(await data(stats, 's1')).toEqual({ n: null });
      });

      it('given a malformed change (negative position), then apply rejects and writes nothing', async () => {
        const cases = named('cases');
        const projector = named('projector');
        await expect(
          store.apply([upsert(cases, 'ok', 1, { v: 1 }), upsert(cases, 'bad', -1, { v: 1 })], {
            projector,
            position: 1,
          }),
        ).rejects.toThrow();
        expect(await store.get(cases, 'ok')).toBeNull();
        expect(await store.getCheckpoint(projector)).toBeNull();
      });

      it('given a create whose data is not an object, then apply rejects and creates nothing', async () => {
        const leaves = named('leaves');
        const projector = named('projector');
        const bad = { kind: 'create', collection: leaves, id: 'bad', position: 2, data: [1] } as Change;
        await expect(
          store.apply([create(leaves, 'ok', 1, { v: 1 }), bad], { projector, position: 2 }),
        ).rejects.toThrow(/JSON object/);
        expect(await store.get(leaves, 'ok')).toBeNull();
        expect(await store.getCheckpoint(projector)).toBeNull();
      });

      it('given a create and an invalid increment in one batch, then apply rejects and creates nothing', async () => {
        const stats = named('stats');
        await store.apply([upsert(stats, 's1', 1, { n: 'text' })]);
        await expect(
          store.apply([create(stats, 'created', 2, { v: 1 }), increment(stats, 's1', 3, 'n', 1)]),
        ).rejects.toThrow();
        expect(await store.get(stats, 'created')).toBeNull();
      });

      it('given a create and an upsert of one document at one position, then apply rejects and writes nothing', async () => {
        const leaves = named('leaves');
        await expect(
          store.apply([create(leaves, 'l1', 3, { v: 1 }), upsert(leaves, 'l1', 3, { v: 2 })]),
        ).rejects.toThrow(/position/);
        expect(await store.get(leaves, 'l1')).toBeNull();
      });

      it('given two changes to one document at one position, then apply rejects and writes nothing', async () => {
        const stats = named('stats');
        const batch = [increment(stats, 's1', 7, 'open', -1), increment(stats, 's1', 7, 'closed', 1)];
        await expect(store.apply(batch)).rejects.toThrow(/position/);
        expect(await store.get(stats, 's1')).toBeNull();
      });
    });

    describe('incrementCounter', () => {
      it('given no counter, when incrementing, then it returns by and is readable as member value', async () => {
        const windows = named('windows');
        expect(await store.incrementCounter(windows, 'tenant-a:0930', 2)).toBe(2);
        expect(await store.incrementCounter(windows, 'tenant-a:0930', 3)).toBe(5);
        expect(await data(windows, 'tenant-a:0930')).toEqual({ value: 5 });
      });

      it('given many concurrent increments, then each sees a distinct value and none is lost', async () => {
        const windows = named('windows');
        const calls = 200;
        const results = await Promise.all(
          Array.from({ length: calls }, () => store.incrementCounter(windows, 'burst', 1)),
        );
        expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: calls }, (_, i) => i + 1));
        expect(await data(windows, 'burst')).toEqual({ value: calls });
      });

      it('given a counter document whose value is not a number, when incrementing, then it rejects', async () => {
        const windows = named('windows');
        await store.apply([upsert(windows, 'odd', 1, { value: 'many' })]);
        await expect(store.incrementCounter(windows, 'odd', 1)).rejects.toThrow();
        expect(await data(windows, 'odd')).toEqual({ value: 'many' });
      });
    });

    describe('checkpoints', () => {
      it('given no checkpoint, when reading it, then it is null', async () => {
        expect(await store.getCheckpoint(named('projector'))).toBeNull();
      });

      it('given checkpoints, when an older one is applied, then the checkpoint never moves backwards', async () => {
        const projector = named('projector');
        await store.apply([], { projector, position: 10 });
        expect(await store.getCheckpoint(projector)).toBe(10);
        await store.apply([], { projector, position: 20 });
        await store.apply([], { projector, position: 15 });
        expect(await store.getCheckpoint(projector)).toBe(20);
      });

      it('given two projectors, then their checkpoints are independent', async () => {
        const [a, b] = [named('projector_a'), named('projector_b')];
        await store.apply([], { projector: a, position: 3 });
        await store.apply([], { projector: b, position: 8 });
        expect([await store.getCheckpoint(a), await store.getCheckpoint(b)]).toEqual([3, 8]);
      });

      it('given a checkpoint, when it is deleted, then it is null and may start lower again', async () => {
        const projector = named('projector');
        await store.apply([], { projector, position: 50 });
        await store.deleteCheckpoint(projector);
        expect(await store.getCheckpoint(projector)).toBeNull();
        await store.apply([], { projector, position: 2 });
        expect(await store.getCheckpoint(projector)).toBe(2);
      });
    });

    describe('find: filters and order', () => {
      let cases: string;
      beforeEach(async () => {
        cases = named('cases');
        await store.apply([
          upsert(cases, 'a', 1, {
            status: 'open',
            priority: 2,
            urgent: true,
            owner: { team: 'red' },
            due: '2026-03-01',
          }),
          upsert(cases, 'b', 2, { status: 'closed', priority: 1, urgent: false, owner: { team: 'blue' } }),
          upsert(cases, 'c', 3, {
            status: 'open',
            priority: 3,
            urgent: 1,
            owner: { team: 'red' },
            due: null,
          }),
          upsert(cases, 'd', 4, { status: 'open', priority: 2, urgent: false, due: '2026-01-15' }),
          upsert(cases, 'e', 5, { status: 'open', priority: '2', due: '2025-12-31' }),
        ]);
      });
      const find = (query: Partial<FindQuery>) => store.find(cases, { limit: 100, ...query }).then(ids);

      it('given no sort, then documents come in id order', async () => {
        expect(await find({})).toEqual(['a', 'b', 'c', 'd', 'e']);
      });

      it('given equality on a string, a number and a nested member, then only exact matches return', async () => {
        expect(await find({ where: { status: 'open', priority: 2 } })).toEqual(['a', 'd']);
        expect(await find({ where: { 'owner.team': 'red' } })).toEqual(['a', 'c']);
      });

      it('given equality on a boolean, then numbers 1 and 0 do not match true and false', async () => {
        expect(await find({ where: { urgent: true } })).toEqual(['a']);
        expect(await find({ where: { urgent: false } })).toEqual(['b', 'd']);
        expect(await find({ where: { urgent: 1 } })).toEqual(['c']);
      });

      it('given equality on null, then null and missing members match', async () => {
        expect(await find({ where: { due: null } })).toEqual(['b', 'c']);
      });

      it('given a string range, then only strings inside it match', async () => {
        expect(await find({ range: { due: { gte: '2026-01-01', lt: '2026-03-01' } } })).toEqual(['d']);
        expect(await find({ range: { due: { lte: '2026-03-01' } } })).toEqual(['a', 'd', 'e']);
      });

      it('given a number range, then strings holding digits do not match', async () => {
        expect(await find({ range: { priority: { gt: 1, lte: 2 } } })).toEqual(['a', 'd']);
      });

      it('given a null range bound, then find rejects', async () => {
        await expect(store.find(cases, { limit: 10, range: { due: { gte: null } } })).rejects.toThrow();
      });

      it('given a sort ascending with ties, then ties are broken by id ascending', async () => {
        const query = { where: { status: 'open' }, range: { priority: { gte: 0 } } };
        expect(await find({ ...query, sort: { field: 'priority', direction: 'asc' } })).toEqual([
          'a',
          'd',
          'c',
        ]);
      });

      it('given a sort descending with ties, then ties are broken by id descending', async () => {
        const sort = { field: 'priority', direction: 'desc' } as const;
        expect(await find({ range: { priority: { gte: 0 } }, sort })).toEqual(['c', 'd', 'a', 'b']);
      });

      it('given null and missing sort values, then they come first ascending and last descending', async () => {
        expect(await find({ sort: { field: 'due', direction: 'asc' } })).toEqual(['b', 'c', 'e', 'd', 'a']);
        expect(await find({ where: { urgent: false }, sort: { field: 'due', direction: 'desc' } })).toEqual([
          'd',
          'b',
        ]);
      });

      it('given skip, then that many matches are passed over', async () => {
        expect(await find({ skip: 1, limit: 2 })).toEqual(['b', 'c']);
        expect(await find({ skip: 10 })).toEqual([]);
      });

      it('given count with and without a filter, then it counts the live matches', async () => {
        expect(await store.count(cases)).toBe(5);
        expect(await store.count(cases, { status: 'open' })).toBe(4);
        expect(await store.count(cases, { status: 'archived' })).toBe(0);
      });

      it('given count with a range, alone or with a filter, then it counts the live matches inside it, typed as find matches', async () => {
        expect(await store.count(cases, undefined, { due: { gte: '2026-01-01', lt: '2026-03-01' } })).toBe(1);
        expect(await store.count(cases, {}, { due: { lte: '2026-03-01' } })).toBe(3);
        expect(await store.count(cases, { status: 'open' }, { due: { lte: '2026-03-01' } })).toBe(3);
        expect(await store.count(cases, { status: 'closed' }, { due: { lte: '2026-03-01' } })).toBe(0);
        // A number range does not count strings holding digits ('2').
        expect(await store.count(cases, undefined, { priority: { gt: 1, lte: 2 } })).toBe(2);
        await store.apply([remove(cases, 'd', 10)]);
        expect(await store.count(cases, undefined, { due: { gte: '2026-01-01', lt: '2026-03-01' } })).toBe(0);
      });

      it('given a count with a null range bound, then it rejects', async () => {
        await expect(store.count(cases, undefined, { due: { gte: null } })).rejects.toThrow();
      });

      it('given a member path with characters outside letters, digits, _ and ., then find rejects', async () => {
        await expect(
          store.find(cases, { limit: 10, where: { "status') OR 1=1 --": 'x' } }),
        ).rejects.toThrow();
      });
    });

    describe('find: pages and cursors', () => {
      it('given a page that ends exactly at the last match, then its nextCursor is null', async () => {
        const cases = named('cases');
        await store.apply(range(4).map((i) => upsert(cases, `c${i}`, i + 1, { n: i })));
        const first = await store.find(cases, { limit: 2 });
        expect(first.nextCursor).not.toBeNull();
        const second = await store.find(cases, { limit: 2, cursor: first.nextCursor });
        expect(ids(second)).toEqual(['c2', 'c3']);
        expect(second.nextCursor).toBeNull();
      });

      it('given a limit above 1000, then a page holds 1000 documents and a cursor to the rest', async () => {
        const cases = named('cases');
        await store.apply(range(1005).map((i) => upsert(cases, `c${pad(i)}`, i + 1, { n: i })));
        const first = await store.find(cases, { limit: 5000 });
        expect(first.items).toHaveLength(1000);
        const rest = await store.find(cases, { limit: 5000, cursor: first.nextCursor });
        expect(ids(rest)).toEqual(range(5).map((i) => `c${pad(1000 + i)}`));
        expect(rest.nextCursor).toBeNull();
      });

      it('given hundreds of documents with equal and null sort values, then a cursor walk returns each once in order', async () => {
        let run = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.option(fc.integer({ min: 0, max: 12 }), { nil: null }), {
              minLength: 150,
              maxLength: 300,
            }),
            fc.integer({ min: 1, max: 60 }),
            fc.constantFrom('asc' as const, 'desc' as const),
            async (values, limit, direction) => {
              const collection = named(`walk${run++}`);
              const docs = values.map((n, i) => ({ id: `d${pad(i)}`, n }));
              await store.apply(docs.map((doc, i) => upsert(collection, doc.id, i + 1, { n: doc.n })));
              const walked = await walk(store, collection, { limit, sort: { field: 'n', direction } });
              expect(walked).toEqual(expectedOrder(docs, direction));
            },
          ),
          { numRuns: 15 },
        );
      });

      it('given string sort values and a filter, then the walk keeps the filter on every page', async () => {
        const events = named('events');
        const docs = range(60).map((i) => ({
          id: `e${pad(i)}`,
          tenant: i % 3 === 0 ? 't1' : 't2',
          at: `2026-01-${pad(1 + (i % 20)).slice(-2)}`,
        }));
        await store.apply(
          docs.map((doc, i) => upsert(events, doc.id, i + 1, { tenant: doc.tenant, at: doc.at })),
        );
        const query = {
          where: { tenant: 't1' },
          sort: { field: 'at', direction: 'desc' as const },
          limit: 4,
        };
        const expected = docs
          .filter((doc) => doc.tenant === 't1')
          .sort((x, y) => compare(y.at, x.at) || compare(y.id, x.id))
          .map((doc) => doc.id);
        expect(await walk(store, events, query)).toEqual(expected);
      });

      it('given a walk in progress, when documents are inserted behind the cursor, then none repeats', async () => {
        const cases = named('cases');
        await store.apply(range(30).map((i) => upsert(cases, `c${pad(i)}`, i + 1, { n: 100 + i })));
        const query: FindQuery = { limit: 10, sort: { field: 'n', direction: 'asc' } };
        const first = await store.find<{ n: number }>(cases, query);
        await store.apply(range(5).map((i) => upsert(cases, `early${i}`, 100 + i, { n: i })));
        const rest = await walk(store, cases, { ...query, cursor: first.nextCursor });
        const seen = [...ids(first), ...rest];
        expect(seen).toEqual(range(30).map((i) => `c${pad(i)}`));
      });

      it('given a cursor, when skip is added, then the skip counts from the cursor (across null values)', async () => {
        const cases = named('cases');
        const values = [3, 2, 1, null, null];
        await store.apply(values.map((n, i) => upsert(cases, `c${i}`, i + 1, { n })));
        const sort = { field: 'n', direction: 'desc' } as const;
        const first = await store.find(cases, { limit: 1, sort });
        expect(ids(first)).toEqual(['c0']);
        const query = { sort, cursor: first.nextCursor, limit: 5 };
        expect(ids(await store.find(cases, { ...query, skip: 1 }))).toEqual(['c2', 'c4', 'c3']);
        expect(ids(await store.find(cases, { ...query, skip: 3 }))).toEqual(['c3']);
      });

      it('given a cursor from one sort, when used with another sort, then find rejects', async () => {
        const cases = named('cases');
        await store.apply(range(3).map((i) => upsert(cases, `c${i}`, i + 1, { n: i })));
        const first = await store.find(cases, { limit: 1, sort: { field: 'n', direction: 'asc' } });
        await expect(
          store.find(cases, { limit: 1, sort: { field: 'n', direction: 'desc' }, cursor: first.nextCursor }),
        ).rejects.toThrow(/cursor/i);
      });

      it('given a cursor that is not one the store issued, then find rejects', async () => {
        await expect(store.find(named('cases'), { limit: 1, cursor: 'not-a-cursor' })).rejects.toThrow(
          /cursor/i,
        );
      });
    });

    describe('collections, indexes and rebuilds', () => {
      it('given the same id in two collections, then each collection keeps its own document', async () => {
        const [a, b] = [named('alpha'), named('beta')];
        await store.apply([upsert(a, 'x', 1, { in: 'a' }), upsert(b, 'x', 2, { in: 'b' })]);
        await store.apply([remove(a, 'x', 3)]);
        expect(await store.get(a, 'x')).toBeNull();
        expect(await data(b, 'x')).toEqual({ in: 'b' });
        expect([await store.count(a), await store.count(b)]).toEqual([0, 1]);
      });

      it('given collections, when some are dropped, then only those are emptied and checkpoints stay', async () => {
        const [a, b] = [named('alpha'), named('beta')];
        const projector = named('projector');
        await store.apply([upsert(a, 'x', 1, {}), upsert(b, 'y', 2, {})], { projector, position: 2 });
        await store.dropCollections([a]);
        expect(await store.count(a)).toBe(0);
        expect(await store.count(b)).toBe(1);
        expect(await store.getCheckpoint(projector)).toBe(2);
      });

      it('given a dropped collection, when events are replayed from the start, then they are written again', async () => {
        const cases = named('cases');
        await store.apply([upsert(cases, 'c1', 5, { v: 5 }), remove(cases, 'c2', 6)]);
        await store.dropCollections([cases]);
        await store.apply([upsert(cases, 'c1', 1, { v: 1 }), upsert(cases, 'c2', 2, { v: 2 })]);
        expect(await data(cases, 'c1')).toEqual({ v: 1 });
        expect(await data(cases, 'c2')).toEqual({ v: 2 });
      });

      it('given an index declared twice, then ensureIndex succeeds and find uses the same results', async () => {
        const cases = named('cases');
        const spec = { collection: cases, fields: ['tenant', 'meta.recorded_at'] };
        await store.ensureIndex(spec);
        await store.ensureIndex(spec);
        await store.apply([
          upsert(cases, 'c1', 1, { tenant: 't', meta: { recorded_at: '2026-02' } }),
          upsert(cases, 'c2', 2, { tenant: 't', meta: { recorded_at: '2026-01' } }),
          upsert(cases, 'c3', 3, { tenant: 'u', meta: { recorded_at: '2026-03' } }),
        ]);
        const page = await store.find(cases, {
          where: { tenant: 't' },
          sort: { field: 'meta.recorded_at', direction: 'asc' },
          limit: 10,
        });
        expect(ids(page)).toEqual(['c2', 'c1']);
      });
    });
  });
}

function upsert(collection: string, id: string, position: number, data: object): Change {
  return { kind: 'upsert', collection, id, position, data };
}

function create(collection: string, id: string, position: number, data: object): Change {
  return { kind: 'create', collection, id, position, data };
}

function remove(collection: string, id: string, position: number): Change {
  return { kind: 'delete', collection, id, position };
}

function increment(collection: string, id: string, position: number, field: string, by: number): Change {
  return { kind: 'increment', collection, id, position, field, by };
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}

function pad(i: number): string {
  return String(i).padStart(4, '0');
}

function compare<T extends string | number>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The port's order: null first ascending (last descending), ties by id in the same direction. */
function expectedOrder(docs: { id: string; n: number | null }[], direction: 'asc' | 'desc'): string[] {
  const sign = direction === 'asc' ? 1 : -1;
  const nullsFirst = (a: number | null, b: number | null) =>
    a === null || b === null ? (a === null ? -1 : 0) + (b === null ? 1 : 0) : compare(a, b);
  return [...docs].sort((a, b) => sign * (nullsFirst(a.n, b.n) || compare(a.id, b.id))).map((doc) => doc.id);
}

/** Follows nextCursor to the end; fails instead of looping if the cursor never ends. */
async function walk(store: ReadStore, collection: string, query: FindQuery): Promise<string[]> {
  const seen: string[] = [];
  let cursor = query.cursor ?? null;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.find(collection, { ...query, cursor });
    seen.push(...page.items.map((item) => item.id));
    if (page.nextCursor === null) return seen;
    cursor = page.nextCursor;
  }
  throw new Error('The cursor walk did not end');
}
