import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { readStoreContract } from '../../ports/contract/read-store.contract';
import { FencedOutError, type LeaseGrant } from '../../ports/lease';
import type { Change, Page, ReadStore } from '../../ports/read-store';
import { describeWithServer, MONGODB_SERVER } from '../../tests/support/servers';
import { SqliteReadStore } from '../sqlite/read-store';
import { LEASES_COLLECTION, type MongoLeaseManager } from './lease';
import { MongoReadStore } from './read-store';

/** A database name no other test (or parallel Jest worker) uses. */
const uniqueDatabase = () => `gov_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;

describeWithServer(MONGODB_SERVER, 'MongoReadStore', (url) => {
  /** Drops the test databases; each store has its own connection, as separate processes would. */
  let admin: MongoClient;
  const opened: { store: MongoReadStore; database: string }[] = [];

  beforeAll(async () => {
    admin = await MongoClient.connect(url);
  });
  afterAll(async () => {
    await admin.close();
  });

  /** A store on `database` (a fresh one by default), closed and dropped after the test. */
  async function connect(database = uniqueDatabase(), now?: () => number): Promise<MongoReadStore> {
    const store = await MongoReadStore.connect(url, { database, now });
    opened.push({ store, database });
    return store;
  }
  afterEach(async () => {
    const databases = new Set(opened.map((entry) => entry.database));
    await Promise.all(opened.splice(0).map((entry) => entry.store.close()));
    await Promise.all([...databases].map((database) => admin.db(database).dropDatabase()));
  });

  readStoreContract('mongodb (FerretDB)', async () => {
    const database = uniqueDatabase();
    const store = await MongoReadStore.connect(url, { database });
    return {
      store,
      dispose: async () => {
        await store.close();
        await admin.db(database).dropDatabase();
      },
    };
  });

  describe('MongoDB specifics', () => {
    it('given doubles, large integers and fractional increments, then they come back exactly as plain numbers', async () => {
      const store = await connect();
      const data = { sum: 0.1 + 0.2, big: 2 ** 53 - 1, tiny: 5e-324, negative: -1.5, int: 2147483648 };
      await store.apply([
        upsert('numbers', 'n', 1, data),
        { kind: 'increment', collection: 'numbers', id: 'i', position: 2, field: 'x', by: 0.1 },
        { kind: 'increment', collection: 'numbers', id: 'i', position: 3, field: 'x', by: 0.2 },
      ]);
      expect((await store.get('numbers', 'n'))?.data).toEqual(data);
      expect((await store.get('numbers', 'i'))?.data).toEqual({ x: 0.1 + 0.2 });
    });

    it('given a batch replacing 200 stored documents, then apply completes (FerretDB v1 hangs on an update command matching 100)', async () => {
      const store = await connect();
      const batch = (first: number) =>
        Array.from({ length: 200 }, (_, i) => upsert('big', `d${i}`, first + i, { first }));
      await store.apply(batch(1));
      await store.apply(batch(1000));
      expect(await store.count('big', { first: 1000 })).toBe(200);
    }, 20_000);

    it('given documents this store wrote before, when it writes them again, then it replaces them without trying an insert first; an older write stays refused', async () => {
      const database = uniqueDatabase();
      const store = await connect(database);
      await store.apply([upsert('known', 'a', 1, { v: 1 }), upsert('known', 'b', 1, { v: 1 })]);
      const inserts: number[] = [];
      const listener = (event: { commandName: string; command: { documents?: unknown[] } }) => {
        if (event.commandName === 'insert') inserts.push(event.command.documents?.length ?? 0);
      };
      const watched = await MongoClient.connect(url, { monitorCommands: true });
      watched.on('commandStarted', listener);
      const again = await MongoReadStore.open(watched.db(database));
      try {
        // Another store (a new process) learns them by meeting E11000, then knows them.
        await again.apply([upsert('known', 'a', 2, { v: 2 }), upsert('known', 'b', 2, { v: 2 })]);
        expect(inserts).toEqual([2]);
        await again.apply([upsert('known', 'a', 3, { v: 3 }), upsert('known', 'c', 3, { v: 3 })]);
        expect(inserts).toEqual([2, 1]); // only the new document
        expect((await again.get('known', 'a'))?.data).toEqual({ v: 3 });
        // A replay of an older position changes nothing and does not fail.
        await again.apply([upsert('known', 'a', 2, { v: 'old' })]);
        expect((await again.get('known', 'a'))?.data).toEqual({ v: 3 });
        // Dropped elsewhere (a rebuild in another process), a known document is written again.
        await store.dropCollections(['known']);
        await again.apply([upsert('known', 'b', 4, { v: 4 })]);
        expect((await again.get('known', 'b'))?.data).toEqual({ v: 4 });
        expect(inserts).toEqual([2, 1]);
      } finally {
        await watched.close();
      }
    });

    it('given a member name MongoDB cannot store (a dot, a leading $), then apply rejects and writes nothing', async () => {
      const store = await connect();
      const ok = upsert('cases', 'ok', 1, { v: 1 });
      await expect(store.apply([ok, upsert('cases', 'bad', 2, { 'a.b': 1 })])).rejects.toThrow(/a\.b/);
      await expect(store.apply([ok, upsert('cases', 'bad', 2, { nested: { $set: 1 } })])).rejects.toThrow(
        /\$set/,
      );
      expect(await store.get('cases', 'ok')).toBeNull();
    });

    it('given a member path reaching for the prototype, then an increment stays an own member', async () => {
      const store = await connect();
      await store.apply([
        { kind: 'increment', collection: 'stats', id: 's', position: 1, field: '__proto__.polluted', by: 1 },
      ]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await store.count('stats')).toBe(1);
    });

    it('given a boolean sort member, then a cursor walk returns each document once, false before true', async () => {
      const store = await connect();
      const flags = [true, false, null, true, false, true, false];
      await store.apply(flags.map((flag, i) => upsert('flags', `f${i}`, i + 1, { flag })));
      const walked = await walk(store, 'flags', { field: 'flag', direction: 'asc' }, 2);
      expect(walked).toEqual(['f2', 'f1', 'f4', 'f6', 'f0', 'f3', 'f5']);
      const back = await walk(store, 'flags', { field: 'flag', direction: 'desc' }, 2);
      expect(back).toEqual([...walked].reverse());
    });

    it('given a sort member holding several types, then a cursor walk still returns every document once', async () => {
      const store = await connect();
      const values = ['b', 2, true, null, 'a', 1, false];
      await store.apply(values.map((value, i) => upsert('mixed', `m${i}`, i + 1, { value })));
      for (const direction of ['asc', 'desc'] as const) {
        const walked = await walk(store, 'mixed', { field: 'value', direction }, 1);
        expect([...walked].sort()).toEqual(values.map((_, i) => `m${i}`).sort());
        expect(walked).toEqual(
          (await store.find('mixed', { limit: 100, sort: { field: 'value', direction } })).items.map(
            (item) => item.id,
          ),
        );
      }
    });

    it('given ensureIndex, then the collection has an index on the data members followed by _id', async () => {
      const database = uniqueDatabase();
      const store = await connect(database);
      await store.ensureIndex({ collection: 'events', fields: ['tenant', 'meta.recorded_at'] });
      const indexes = await admin.db(database).collection('read.events').indexes();
      expect(indexes.find((index) => index.name === 'read:tenant,meta.recorded_at')?.key).toEqual({
        'data.tenant': 1,
        'data.meta.recorded_at': 1,
        _id: 1,
      });
      await expect(store.ensureIndex({ collection: 'events', fields: ['a"; drop'] })).rejects.toThrow(
        /member path/,
      );
    });

    it('given batches mixing creates with every other change, then the documents are those the embedded adapter leaves', async () => {
      const store = await connect();
      const embedded = new SqliteReadStore(':memory:');
      try {
        for (const [i, batch] of randomBatches(0xc0de, 5, 120).entries()) {
          await store.apply(batch, { projector: 'stats', position: (i + 1) * 120 });
          await embedded.apply(batch, { projector: 'stats', position: (i + 1) * 120 });
        }
        const expected = await dump(embedded);
        const created = [...expected.stats, ...expected.cases].filter(
          (document) => (document.data as { label?: string }).label === 'new',
        );
        expect(created.length).toBeGreaterThan(0);
        expect(await dump(store)).toEqual(expected);
      } finally {
        await embedded.close();
      }
    });

    it('given creates of documents stored or not, then apply sends inserts only: no read, no update', async () => {
      const database = uniqueDatabase();
      const client = await MongoClient.connect(url, { monitorCommands: true });
      try {
        const store = await MongoReadStore.open(client.db(database));
        await store.apply([upsert('leaves', 'stored', 1, { index: 0 })]);
        const sent: string[] = [];
        client.on('commandStarted', ({ commandName, command }) =>
          sent.push(`${commandName} ${command[commandName]}`),
        );
        await store.apply(
          [
            { kind: 'create', collection: 'leaves', id: 'stored', position: 2, data: { index: 1 } },
            { kind: 'create', collection: 'leaves', id: 'new', position: 3, data: { index: 2 } },
          ],
          { projector: 'governance', position: 3 },
        );
        // The one insert meets E11000 for `stored` and is done; the update is the checkpoint's.
        expect(sent).toEqual(['insert read.leaves', 'update checkpoints']);
        expect((await store.get('leaves', 'stored'))?.data).toEqual({ index: 0 });
        expect((await store.get('leaves', 'new'))?.data).toEqual({ index: 2 });
      } finally {
        await client.db(database).dropDatabase();
        await client.close();
      }
    });

    it('given a store opened on a shared database, when it closes, then the client stays open for its owner', async () => {
      const database = uniqueDatabase();
      const store = await MongoReadStore.open(admin.db(database));
      await store.apply([upsert('cases', 'c', 1, { v: 1 })]);
      await store.close();
      expect(await admin.db(database).collection('read.cases').countDocuments()).toBe(1);
      await admin.db(database).dropDatabase();
    });

    it('given a connected store, when it closes, then its own connection is closed', async () => {
      const database = uniqueDatabase();
      const store = await MongoReadStore.connect(url, { database });
      await store.close();
      await expect(store.get('cases', 'c')).rejects.toThrow();
      await admin.db(database).dropDatabase();
    });
  });

  describe('two instances applying the same batches at once', () => {
    it('given the same batches applied concurrently by two instances, then the state is the one a single instance leaves', async () => {
      const database = uniqueDatabase();
      const [first, second] = [await connect(database), await connect(database)];
      const alone = await connect();
      const batches = randomBatches(0x5eed, 6, 150);
      for (const [i, batch] of batches.entries()) {
        const checkpoint = { projector: 'stats', position: (i + 1) * 150 };
        await Promise.all([first.apply(batch, checkpoint), second.apply(batch, checkpoint)]);
        await alone.apply(batch, checkpoint);
      }
      const expected = await dump(alone);
      expect(expected.stats.length).toBeGreaterThan(0);
      expect(await dump(first)).toEqual(expected);
      expect(await dump(second)).toEqual(expected);
    });

    it('given both instances replay a batch after the other applied newer ones, then nothing moves back', async () => {
      const database = uniqueDatabase();
      const [first, second] = [await connect(database), await connect(database)];
      const [older, newer] = randomBatches(7, 2, 100);
      await first.apply(older!, { projector: 'stats', position: 100 });
      await first.apply(newer!, { projector: 'stats', position: 200 });
      const before = await dump(first);
      await Promise.all([
        first.apply(older!, { projector: 'stats', position: 100 }),
        second.apply(older!, { projector: 'stats', position: 100 }),
      ]);
      expect(await dump(second)).toEqual(before);
    });
  });

  describe('fencing (single-writer mode)', () => {
    it('given an instance whose lease lapsed and was taken, when it writes with its old grant, then it is fenced out and nothing is written', async () => {
      let now = 1_000_000;
      const database = uniqueDatabase();
      const paused = await connect(database, () => now);
      const taking = await connect(database, () => now);
      const oldGrant = (await paused.leases().acquire('p@g1', 'a', 1000))!;
      now += 5000; // `a` is paused (GC, SIGSTOP) past its lease…
      const newGrant = (await taking.leases().acquire('p@g1', 'b', 1000))!;
      expect(newGrant.epoch).toBe(oldGrant.epoch + 1);

      const write = upsert('c', 'x', 5, { by: 'a' });
      await expect(
        paused.apply([write], { projector: 'p@g1', position: 5, fence: oldGrant }),
      ).rejects.toThrow(FencedOutError);
      expect(await paused.get('c', 'x')).toBeNull();
      expect(await paused.getCheckpoint('p@g1')).toBeNull();

      await taking.apply([{ ...write, data: { by: 'b' } }], {
        projector: 'p@g1',
        position: 5,
        fence: newGrant,
      });
      expect((await paused.get('c', 'x'))?.data).toEqual({ by: 'b' });
      expect(await paused.getCheckpoint('p@g1')).toBe(5);
    });

    it('given a grant found current, then later batches under it do not read the lease again while it has 2 s or more left, and do once it has less; another epoch is still refused', async () => {
      let now = 1_000_000;
      const database = uniqueDatabase();
      const client = await MongoClient.connect(url, { monitorCommands: true });
      try {
        const store = await MongoReadStore.open(client.db(database), { now: () => now });
        const grant = (await store.leases().acquire('p@g1', 'a', 5000))!;
        const sent: string[] = [];
        client.on('commandStarted', ({ commandName, command }) =>
          sent.push(`${commandName} ${command[commandName]}`),
        );
        const leaseReads = () => sent.filter((command) => command === 'find leases').length;
        const fenced = (position: number, fence: LeaseGrant) =>
          store.apply([upsert('c', 'x', position, { position })], { projector: 'p@g1', position, fence });

        await fenced(1, grant);
        expect(leaseReads()).toBe(1);
        await fenced(2, grant);
        await fenced(3, grant);
        expect(leaseReads()).toBe(1);
        now += 3500; // 1.5 s left
        await fenced(4, grant);
        expect(leaseReads()).toBe(2);
        await expect(fenced(5, { ...grant, epoch: grant.epoch + 1 })).rejects.toThrow(FencedOutError);
        // A renewal is read once, then trusted again.
        const renewed = (await store.leases().renew(grant, 5000))!;
        const readsBefore = leaseReads();
        await fenced(6, renewed);
        await fenced(7, renewed);
        expect(leaseReads() - readsBefore).toBe(1);
        expect(await store.getCheckpoint('p@g1')).toBe(7);
      } finally {
        await client.db(database).dropDatabase();
        await client.close();
      }
    });

    it('given a grant that lapsed but was not taken, then apply refuses it until it is renewed', async () => {
      let now = 1_000_000;
      const store = await connect(undefined, () => now);
      const leases = store.leases();
      const grant = (await leases.acquire('p@g1', 'a', 1000))!;
      now += 2000;
      const fenced = { projector: 'p@g1', position: 1, fence: grant };
      await expect(store.apply([upsert('c', 'x', 1, {})], fenced)).rejects.toThrow(FencedOutError);
      const renewed = (await leases.renew(grant, 1000))!;
      await store.apply([upsert('c', 'x', 1, {})], { ...fenced, fence: renewed });
      expect(await store.getCheckpoint('p@g1')).toBe(1);
    });

    it('given a grant for another owner or epoch than the current one, then apply refuses it', async () => {
      const store = await connect();
      const grant = (await store.leases().acquire('p@g1', 'a', 60_000))!;
      for (const forged of [
        { ...grant, owner: 'b' },
        { ...grant, epoch: grant.epoch + 1 },
        { ...grant, name: 'other' },
      ]) {
        await expect(
          store.apply([upsert('c', 'x', 1, {})], { projector: 'p@g1', position: 1, fence: forged }),
        ).rejects.toThrow(FencedOutError);
      }
      expect(await store.get('c', 'x')).toBeNull();
    });

    it('given a stale instance passed its check just before a takeover, when it stores its checkpoint, then the newer epoch keeps it', async () => {
      let now = 1_000_000;
      const database = uniqueDatabase();
      const stale = await connect(database, () => now);
      const taking = await connect(database, () => now);
      const oldGrant = (await stale.leases().acquire('p@g1', 'a', 1000))!;
      now += 5000;
      const newGrant = (await taking.leases().acquire('p@g1', 'b', 1000))!;
      await taking.apply([upsert('c', 'x', 8, { v: 8 })], {
        projector: 'p@g1',
        position: 10,
        fence: newGrant,
      });

      // The window: the stale instance's check ran before the takeover, so it sees its own grant.
      await admin
        .db(database)
        .collection(LEASES_COLLECTION)
        .deleteOne({ name: 'p@g1', epoch: newGrant.epoch });
      now -= 4500;
      await expect(
        stale.apply([upsert('c', 'x', 5, { v: 5 })], { projector: 'p@g1', position: 12, fence: oldGrant }),
      ).rejects.toThrow(FencedOutError);
      expect(await taking.getCheckpoint('p@g1')).toBe(10);
      // Its write was a position-guarded replay: the newer state stays.
      expect((await taking.get('c', 'x'))?.data).toEqual({ v: 8 });
    });
  });

  describe('MongoLeaseManager', () => {
    let now: number;
    let leases: MongoLeaseManager;
    beforeEach(async () => {
      now = 1_000_000;
      leases = (await connect(undefined, () => now)).leases();
    });

    it('given a free lease, when acquired, then the grant has epoch 1 and expires after the ttl', async () => {
      expect(await leases.acquire('p', 'a', 1000)).toEqual({
        name: 'p',
        owner: 'a',
        epoch: 1,
        expiresAt: now + 1000,
      });
    });

    it('given a live lease of another owner, when acquiring, then the result is null', async () => {
      await leases.acquire('p', 'a', 1000);
      now += 999;
      expect(await leases.acquire('p', 'b', 1000)).toBeNull();
    });

    it('given our own live lease, when acquiring again, then it is extended under the same epoch', async () => {
      await leases.acquire('p', 'a', 1000);
      now += 500;
      expect(await leases.acquire('p', 'a', 1000)).toMatchObject({ epoch: 1, expiresAt: now + 1000 });
      now += 900; // past the first expiry, within the extended one
      expect(await leases.acquire('p', 'b', 1000)).toBeNull();
    });

    it('given a lapsed lease, when another owner acquires it, then its epoch grows and the old grant cannot renew', async () => {
      const old = (await leases.acquire('p', 'a', 1000))!;
      now += 1000;
      expect(await leases.acquire('p', 'b', 1000)).toMatchObject({ owner: 'b', epoch: 2 });
      expect(await leases.renew(old, 1000)).toBeNull();
    });

    it('given our own lapsed lease, when we acquire it again, then we get a new epoch (fencing out our paused past)', async () => {
      await leases.acquire('p', 'a', 1000);
      now += 1000;
      expect(await leases.acquire('p', 'a', 1000)).toMatchObject({ owner: 'a', epoch: 2 });
    });

    it('given a lapsed grant nobody took, when renewed, then it is extended under the same epoch', async () => {
      const grant = (await leases.acquire('p', 'a', 1000))!;
      now += 5000;
      expect(await leases.renew(grant, 1000)).toEqual({ ...grant, expiresAt: now + 1000 });
      expect(await leases.acquire('p', 'b', 1000)).toBeNull();
    });

    it('given a released lease, when a standby acquires it at once, then it gets a new epoch; a stale release frees nothing', async () => {
      const first = (await leases.acquire('p', 'a', 60_000))!;
      await leases.release(first);
      const second = (await leases.acquire('p', 'b', 60_000))!;
      expect(second.epoch).toBe(2);
      await leases.release(first);
      expect(await leases.acquire('p', 'c', 60_000)).toBeNull();
    });

    it('given a lease free, held, lapsed or released, then its holder is the live owner or null, and asking takes nothing', async () => {
      expect(await leases.holder('p')).toBeNull();
      expect(await leases.acquire('p', 'a', 1000)).toMatchObject({ epoch: 1 });
      expect(await leases.holder('p')).toBe('a');
      now += 1000;
      expect(await leases.holder('p')).toBeNull();
      const taken = (await leases.acquire('p', 'b', 1000))!;
      expect(taken.epoch).toBe(2);
      expect(await leases.holder('p')).toBe('b');
      await leases.release(taken);
      expect(await leases.holder('p')).toBeNull();
    });

    /** A lease manager on `database` (a fresh one by default) whose client records the commands it sends. */
    async function watchedLeases(database = uniqueDatabase()) {
      const client = await MongoClient.connect(url, { monitorCommands: true });
      const store = await MongoReadStore.open(client.db(database), { now: () => now });
      const sent: string[] = [];
      client.on('commandStarted', ({ commandName, command }) =>
        sent.push(`${commandName} ${command[commandName]}`),
      );
      return {
        leases: store.leases(),
        database,
        sent,
        close: async () => {
          await client.db(database).dropDatabase();
          await client.close();
        },
      };
    }

    it('given a live grant, when renewed, then one conditional update extends it, without a read', async () => {
      const watched = await watchedLeases();
      try {
        const grant = (await watched.leases.acquire('p', 'a', 3000))!;
        now += 1000;
        watched.sent.length = 0;
        expect(await watched.leases.renew(grant, 3000)).toEqual({ ...grant, expiresAt: now + 3000 });
        expect(watched.sent).toEqual(['update leases']);
        now += 2500; // within the renewed grant, past the first
        expect(await watched.leases.acquire('p', 'b', 3000)).toBeNull();
      } finally {
        await watched.close();
      }
    });

    it('given grants renewed at once, then one update extends them all; when one of them was taken, it alone is lost', async () => {
      const watched = await watchedLeases();
      try {
        // Each single writer of a process is an owner of its own.
        const grants = await Promise.all(
          ['p', 'q', 'r'].map(async (name) => (await watched.leases.acquire(name, `a-${name}`, 3000))!),
        );
        now += 1000;
        watched.sent.length = 0;
        const renewed = await Promise.all(grants.map((grant) => watched.leases.renew(grant, 3000)));
        expect(renewed).toEqual(grants.map((grant) => ({ ...grant, expiresAt: now + 3000 })));
        expect(watched.sent).toEqual(['update leases']);
        // 'q' lapses and another owner takes it; 'p' and 'r' are still renewed together.
        now += 3000;
        const taken = await watched.leases.acquire('q', 'b', 3000);
        expect(taken).toMatchObject({ owner: 'b', epoch: 2 });
        const again = await Promise.all(renewed.map((grant) => watched.leases.renew(grant!, 3000)));
        expect(again.map((grant) => (grant ? grant.name : null))).toEqual(['p', null, 'r']);
        expect(await watched.leases.holder('q')).toBe('b');
      } finally {
        await watched.close();
      }
    });

    it('given leases another process holds, when a standby asks for each within a sixth of the TTL, then one read of the live leases answers them all; past that, or once one lapsed, it reads again and takes it', async () => {
      const holder = await watchedLeases();
      const standby = await watchedLeases(holder.database);
      try {
        for (const name of ['p', 'q', 'r']) await holder.leases.acquire(name, 'a', 6000);
        const reads = () => standby.sent.filter((command) => command === 'find leases').length;
        for (const name of ['p', 'q', 'r']) expect(await standby.leases.acquire(name, 'b', 6000)).toBeNull();
        expect(reads()).toBe(1);
        now += 999; // still within a sixth of the TTL
        for (const name of ['p', 'q', 'r']) expect(await standby.leases.acquire(name, 'b', 6000)).toBeNull();
        expect(reads()).toBe(1);
        now += 1; // a sixth of the TTL: read again
        expect(await standby.leases.acquire('p', 'b', 6000)).toBeNull();
        expect(reads()).toBe(2);
        // 'q' lapses (its holder stopped renewing it); the others are renewed.
        now += 4000;
        for (const name of ['p', 'r'])
          await holder.leases.renew({ name, owner: 'a', epoch: 1, expiresAt: 0 }, 6000);
        now += 1000;
        expect(await standby.leases.acquire('p', 'b', 6000)).toBeNull();
        expect(await standby.leases.acquire('q', 'b', 6000)).toMatchObject({ owner: 'b', epoch: 2 });
        expect(await holder.leases.holder('q')).toBe('b');
      } finally {
        await standby.close();
        await holder.close();
      }
    });

    it('given two lease names, then they are independent', async () => {
      expect(await leases.acquire('p', 'a', 1000)).toMatchObject({ epoch: 1 });
      expect(await leases.acquire('q', 'b', 1000)).toMatchObject({ epoch: 1 });
    });

    it('given many instances racing for a lapsed lease, then exactly one gets it', async () => {
      const database = uniqueDatabase();
      const managers = await Promise.all(
        Array.from({ length: 6 }, async () => (await connect(database, () => now)).leases()),
      );
      await managers[0]!.acquire('p', 'holder', 1000);
      now += 1000;
      const grants = await Promise.all(
        managers.map((manager, i) => manager.acquire('p', `owner-${i}`, 1000)),
      );
      const won = grants.filter((grant): grant is LeaseGrant => grant !== null);
      expect(won).toHaveLength(1);
      expect(won[0]!.epoch).toBe(2);
    });
  });
});

function upsert(
  collection: string,
  id: string,
  position: number,
  data: object,
): Extract<Change, { kind: 'upsert' }> {
  return { kind: 'upsert', collection, id, position, data };
}

async function walk(
  store: ReadStore,
  collection: string,
  sort: { field: string; direction: 'asc' | 'desc' },
  limit: number,
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const page: Page<unknown> = await store.find(collection, { limit, sort, cursor });
    seen.push(...page.items.map((item) => item.id));
    if (page.nextCursor === null) return seen;
    cursor = page.nextCursor;
  }
  throw new Error('The cursor walk did not end');
}

/**
 * `count` batches of `size` changes (upserts, deletes, increments) over a small pool of documents,
 * each change at its own position; the same seed gives the same batches.
 */
function randomBatches(seed: number, count: number, size: number): Change[][] {
  let state = seed;
  const next = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state % n;
  };
  let position = 0;
  return Array.from({ length: count }, () =>
    Array.from({ length: size }, (): Change => {
      position += 1;
      const collection = next(2) === 0 ? 'stats' : 'cases';
      const id = `d${next(12)}`;
      const roll = next(10);
      if (roll < 2) return { kind: 'delete', collection, id, position };
      if (roll < 5) return upsert(collection, id, position, { n: next(100), label: `v${position}` });
      // Half of the creates name ids nothing else changes.
      if (roll < 6)
        return {
          kind: 'create',
          collection,
          id: `d${next(24)}`,
          position,
          data: { n: next(100), label: 'new' },
        };
      return {
        kind: 'increment',
        collection,
        id,
        position,
        field: next(2) ? 'n' : 'totals.seen',
        by: next(5) - 1.5,
      };
    }),
  );
}

/** What a reader sees of the test collections and checkpoint. */
async function dump(store: ReadStore) {
  const read = async (collection: string) => (await store.find(collection, { limit: 1000 })).items;
  return {
    stats: await read('stats'),
    cases: await read('cases'),
    checkpoint: await store.getCheckpoint('stats'),
  };
}
