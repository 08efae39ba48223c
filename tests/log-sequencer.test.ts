import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { treeHeadStreamOf } from '../domain/log';
import type { TreeHeadSigned } from '../event-schemas';
import {
  fromHex,
  generateKeyPair,
  leafHash,
  loadSignerKey,
  loadVerifierKey,
  TileLog,
  toHex,
  verifyCheckpoint,
  verifyConsistency,
} from '../merkle-core';
import { collect } from '../ports/contract/event-store.contract';
import { ensureLogCreated } from '../projectors/log/log-directory';
import { LOG_STREAM, LogSequencer } from '../projectors/log/log-sequencer';
import { createLogger } from '../runtime/support/logger';
import { tempDir } from './support/temp-dir';

const keys = generateKeyPair('test.example/log');
const signer = loadSignerKey(keys.signerKey);
const verifier = loadVerifierKey(keys.verifierKey);

/** Admission events need only what the sequencer reads: their leaf hash. */
function admission(i: number) {
  const hash = toHex(leafHash(createHash('sha256').update(`leaf ${i}`).digest()));
  return {
    id: randomUUID(),
    type: 'EvidenceAdmitted',
    data: { leaf_hash: hash },
    tenant_id: 'ten_test',
    correlation_id: `c${i}`,
  };
}

describe('the log sequencer', () => {
  let store: SqliteEventStore;
  let remove: () => void;
  beforeEach(() => {
    const temp = tempDir('gov-sequencer');
    remove = temp.remove;
    store = new SqliteEventStore({ file: path.join(temp.dir, 'events.db') });
  });
  afterEach(async () => {
    await store.close();
    remove();
  });

  const sequencer = () => new LogSequencer({ eventStore: store, signer, logger: createLogger('silent') });
  const heads = async () =>
    (await collect(store.readStream(LOG_STREAM))).map((event) => event.data as TreeHeadSigned);
  const append = (from: number, count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        store.append(`tenant-${(from + i) % 7}`, [admission(from + i)]),
      ),
    );

  it('given admissions appended concurrently, when integrated, then every leaf has one index and every head verifies and is consistent with the last', async () => {
    const log = sequencer();
    await log.start();
    await append(0, 300);
    const last = await store.headPosition({ eventTypes: ['EvidenceAdmitted'] });
    const lastId = (await collect(store.readAll({ filter: { eventTypes: ['EvidenceAdmitted'] } }))).at(
      -1,
    )!.id;
    expect((await log.waitForEvent(lastId)).head.sth.tree_size).toBe(300);
    await log.stop();

    const signed = await heads();
    const positions = signed.flatMap((head) => head.leaf_positions);
    expect(new Set(positions).size).toBe(300);
    expect(positions.at(-1)).toBe(last);
    expect(signed.length).toBeLessThan(300); // batched: fewer signatures than leaves
    const reference = new TileLog();
    const events = await collect(store.readAll({ filter: { eventTypes: ['EvidenceAdmitted'] } }));
    await reference.appendLeafHashes(
      events.map((event) => fromHex((event.data as { leaf_hash: string }).leaf_hash)),
    );
    for (const [i, head] of signed.entries()) {
      expect(await verifyCheckpoint(head.checkpoint, verifier)).toMatchObject({ ok: true });
      expect(head.root_hash).toBe(toHex(reference.root(head.tree_size)));
      if (i > 0 && signed[i - 1]!.tree_size > 0) {
        const from = signed[i - 1]!;
        const proof = reference.consistencyProof(from.tree_size, head.tree_size);
        expect(
          verifyConsistency(
            from.tree_size,
            head.tree_size,
            proof,
            fromHex(from.root_hash),
            fromHex(head.root_hash),
          ),
        ).toMatchObject({ ok: true });
      }
    }
  });

  it('given two sequencers on one store, when both run, then the revision fence lets only one publish each head and no index is assigned twice', async () => {
    const first = sequencer();
    const second = sequencer();
    await first.start();
    await second.start();
    for (let round = 0; round < 5; round++) await append(round * 40, 40);
    const ids = (await collect(store.readAll({ filter: { eventTypes: ['EvidenceAdmitted'] } }))).map(
      (e) => e.id,
    );
    await Promise.race([first.waitForEvent(ids.at(-1)!), second.waitForEvent(ids.at(-1)!)]);
    await first.stop();
    await second.stop();

    const signed = await heads();
    const positions = signed.flatMap((head) => head.leaf_positions);
    expect(positions).toHaveLength(new Set(positions).size);
    expect(new Set(positions).size).toBe(200);
    for (let i = 1; i < signed.length; i++) {
      expect(signed[i]!.tree_size).toBeGreaterThan(signed[i - 1]!.tree_size);
      expect(signed[i]!.first_leaf_index).toBe(signed[i - 1]!.tree_size);
    }
  });

  it('given a log with heads, when a new sequencer starts, then it rebuilds the same tree and continues it', async () => {
    const first = sequencer();
    await first.start();
    await append(0, 50);
    const ids = (await collect(store.readAll({ filter: { eventTypes: ['EvidenceAdmitted'] } }))).map(
      (e) => e.id,
    );
    const before = await first.waitForEvent(ids.at(-1)!);
    await first.stop();

    const restarted = sequencer();
    await restarted.start();
    expect(restarted.latest().sth).toEqual(before.head.sth);
    await append(50, 10);
    const more = (await collect(store.readAll({ filter: { eventTypes: ['EvidenceAdmitted'] } }))).map(
      (e) => e.id,
    );
    const next = await restarted.waitForEvent(more.at(-1)!);
    expect(next.leafIndex).toBe(59);
    expect(next.head.sth.tree_size).toBe(60);
    await restarted.stop();
  });

  it('given a stored head whose root the events do not give, when a sequencer starts, then it refuses to publish', async () => {
    const first = sequencer();
    await first.start();
    await append(0, 5);
    const ids = (await collect(store.readAll({ filter: { eventTypes: ['EvidenceAdmitted'] } }))).map(
      (e) => e.id,
    );
    await first.waitForEvent(ids.at(-1)!);
    await first.stop();
    // A forged head at the end of the log stream: same size, another root.
    const [last] = await collect(store.readStream(LOG_STREAM, { direction: 'backwards', maxCount: 1 }));
    const forged = { ...(last!.data as TreeHeadSigned), root_hash: '00'.repeat(32) };
    await store.append(LOG_STREAM, [
      { type: 'TreeHeadSigned', data: forged, tenant_id: 'system', correlation_id: 'forged' },
    ]);

    const errors: string[] = [];
    const logger = createLogger('silent');
    logger.error = ((object: { err?: Error }) =>
      errors.push(String(object.err?.message))) as typeof logger.error;
    const suspicious = new LogSequencer({ eventStore: store, signer, logger });
    void suspicious.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errors.join('\n')).toContain('but the last signed tree head has 5 leaves with root 0000');
    expect(() => suspicious.latest()).toThrow(/has not started/);
    await suspicious.stop();
  });

  describe('with three logs', () => {
    const DEDICATED = `dedicated-${'c'.repeat(24)}`;
    const logKeys = new Map(
      ['test', DEDICATED].map((name) => [
        name,
        loadSignerKey(generateKeyPair(`test.example/log/${name}`).signerKey),
      ]),
    );
    const LOGS = ['shared', 'test', DEDICATED];
    const allLogs = () =>
      new LogSequencer({
        eventStore: store,
        signer,
        signerOf: (name) => logKeys.get(name)!,
        writes: 'all',
        logger: createLogger('silent'),
      });
    const createLogs = async () => {
      for (const [name, key] of logKeys)
        await ensureLogCreated(store, {
          log: name,
          kind: name === 'test' ? 'test' : 'dedicated',
          origin: key.name,
          verifier_key: key.verifierKey,
          tenant_id: name === 'test' ? null : `ten_${'c'.repeat(24)}`,
        });
    };
    /** Admission `i` to log LOGS[i % 3] (the shared log's without a log member, as before logs). */
    const appendMixed = (from: number, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, k) => {
          const i = from + k;
          const log = LOGS[i % 3]!;
          const event = admission(i);
          return store.append(`tenant-${i % 5}`, [
            { ...event, data: log === 'shared' ? event.data : { ...event.data, log } },
          ]);
        }),
      );
    const admissionsOf = async (log: string) =>
      (await collect(store.readAll({ filter: { eventTypes: ['EvidenceAdmitted'] } }))).filter(
        (event) => ((event.data as { log?: string }).log ?? 'shared') === log,
      );

    it('given admissions to three logs from one event stream, when sequenced concurrently, then each log’s leaf order is its events’ order, no index is assigned twice, and a restart reproduces every root', async () => {
      await createLogs();
      const first = allLogs();
      await first.start();
      expect(first.list().map((log) => log.name)).toEqual(['shared', DEDICATED, 'test']);
      await appendMixed(0, 150);
      const lastOf = new Map<string, string>();
      for (const log of LOGS) lastOf.set(log, (await admissionsOf(log)).at(-1)!.id);
      const integrated = await Promise.all(
        LOGS.map((log) => first.source(log)!.waitForEvent(lastOf.get(log)!)),
      );
      expect(integrated.map((leaf) => leaf.head.sth.tree_size)).toEqual([50, 50, 50]);
      const roots = LOGS.map((log) => first.source(log)!.latest().sth.root_hash);
      await first.stop();

      for (const [i, log] of LOGS.entries()) {
        const heads = (await collect(store.readStream(treeHeadStreamOf(log)))).map(
          (event) => event.data as TreeHeadSigned,
        );
        const events = await admissionsOf(log);
        // Leaf i of the log is its i-th admission in the global order.
        expect(heads.flatMap((head) => head.leaf_positions)).toEqual(events.map((event) => event.position));
        const reference = new TileLog();
        await reference.appendLeafHashes(
          events.map((event) => fromHex((event.data as { leaf_hash: string }).leaf_hash)),
        );
        expect(toHex(reference.root())).toBe(roots[i]);
        const key = log === 'shared' ? verifier : loadVerifierKey(logKeys.get(log)!.verifierKey);
        for (const head of heads) {
          expect(await verifyCheckpoint(head.checkpoint, key)).toMatchObject({ ok: true });
          expect(head.log).toBe(log === 'shared' ? undefined : log);
        }
      }

      // A restart rebuilds every log from the store and goes on from where each was.
      const restarted = allLogs();
      await restarted.start();
      expect(LOGS.map((log) => restarted.source(log)!.latest().sth.root_hash)).toEqual(roots);
      await appendMixed(150, 3);
      const next = await Promise.all(
        LOGS.map(async (log) => restarted.source(log)!.waitForEvent((await admissionsOf(log)).at(-1)!.id)),
      );
      expect(next.map((leaf) => leaf.leafIndex)).toEqual([50, 50, 50]);
      await restarted.stop();
    });

    it('given a log whose writer fails (its head’s append), then the log’s source stays one object: it follows the writer rebuilt from the store, and a wait begun before settles', async () => {
      await createLogs();
      let failNext = false;
      // The store fails the test log's next tree head once, as a store error or a fence would.
      const failing = new Proxy(store, {
        get(target, member, receiver) {
          if (member !== 'append') return Reflect.get(target, member, receiver);
          return (stream: string, ...rest: unknown[]) => {
            if (failNext && stream === treeHeadStreamOf('test')) {
              failNext = false;
              return Promise.reject(new Error('the store failed this append'));
            }
            return (target.append as (...args: unknown[]) => unknown).call(target, stream, ...rest);
          };
        },
      });
      const running = new LogSequencer({
        eventStore: failing,
        signer,
        signerOf: (name) => logKeys.get(name)!,
        writes: 'all',
        logger: createLogger('silent'),
      });
      await running.start();
      const source = running.source('test')!;
      expect(source.signed).toBe(true);
      failNext = true;
      await appendMixed(0, 6);
      const last = (await admissionsOf('test')).at(-1)!;
      const leaf = await source.waitForEvent(last.id);
      expect(leaf.head.sth.tree_size).toBe(2);
      expect(failNext).toBe(false);
      expect(running.source('test')).toBe(source);
      expect(source.latest().sth.tree_size).toBe(2);
      expect(source.log.size).toBe(2);
      await running.stop();
    });

    it('given a log created while the sequencer runs, then it is learned and sequenced without a restart', async () => {
      const running = allLogs();
      await running.start();
      expect(running.list().map((log) => log.name)).toEqual(['shared']);
      await createLogs();
      await running.caughtUp();
      expect(running.list().map((log) => log.name)).toEqual(['shared', DEDICATED, 'test']);
      await appendMixed(0, 6);
      const last = (await admissionsOf(DEDICATED)).at(-1)!;
      expect((await running.waitForLeaf(last.id, DEDICATED)).head.sth.tree_size).toBe(2);
      await running.stop();
    });
  });
});
