/**
 * The logs a process serves, by name: made from its log directory when first asked for, the shared one
 * being the process's own; a known log is looked up from memory, so the hot routes read no store for
 * any log, and each log serves only its own heads and leaves.
 */
import {
  leafDataOfRecord,
  leafHashOfRecord,
  SHARED_LOG_NAME,
  sthFromCheckpointNote,
  timestampExtension,
} from '../../domain/log';
import { generateKeyPair, loadSignerKey, signCheckpoint, TileLog, toHex } from '../../merkle-core';
import {
  type LogDescription,
  type LogDirectory,
  type LogName,
  LogNotSignedError,
  type LogSource,
} from '../../ports/log';
import type { StoredLeaf } from '../../projectors/governance/governance-projection';
import type { ReadModels } from '../../read-api/engine/read-models';
import { SequencedLog, SequencedLogs } from './sequenced-log';

/** A log source whose records the read models hold, and whose head a test can withhold. */
type FakeSource = Omit<LogSource, 'signed'> & { records: object[]; signed: boolean };

/** A log source of `size` leaves under one signed head, with its own key and origin. */
async function fakeSource(name: LogName, size: number): Promise<FakeSource> {
  const origin = `gov.example/gov/v1/log${name === SHARED_LOG_NAME ? '' : `/${name}`}`;
  const keys = generateKeyPair(origin);
  const log = new TileLog();
  const records = Array.from({ length: size }, (_, i) => ({ log: name, sequence: i }));
  await log.appendLeaves(records.map(leafDataOfRecord));
  const checkpoint = signCheckpoint(
    { origin, size, rootHash: log.root(size), extensions: [timestampExtension(new Date(0))] },
    loadSignerKey(keys.signerKey),
  );
  const head = { checkpoint, sth: sthFromCheckpointNote(checkpoint, keys.verifierKey) };
  return {
    records,
    verifierKey: keys.verifierKey,
    log,
    signed: true,
    latest: () => head,
    latestPosition: () => 1,
    catchUp: async () => undefined,
    sthOf: (note) => sthFromCheckpointNote(note, keys.verifierKey),
    waitForEvent: () => Promise.reject(new Error('not used')),
  };
}

/** A directory over `sources`; `later` are only known once it has caught up (another process made them). */
function directoryOf(sources: Map<LogName, LogSource>, later = new Map<LogName, LogSource>()) {
  const known = new Map(sources);
  const calls = { caughtUp: 0 };
  const directory: LogDirectory = {
    list: () =>
      [...known].map(
        ([name, source]): LogDescription => ({
          name,
          kind: name === SHARED_LOG_NAME ? 'shared' : name === 'test' ? 'test' : 'dedicated',
          origin: source.verifierKey.split('+')[0]!,
          verifierKey: source.verifierKey,
          tenantId: null,
        }),
      ),
    source: (name) => known.get(name) ?? null,
    caughtUp: async () => {
      calls.caughtUp++;
      for (const [name, source] of later) known.set(name, source);
    },
  };
  return { directory, calls };
}

/** Read models holding the leaves of every source, as the governance projection writes them; reads counted. */
function readModelsOf(sources: Map<LogName, FakeSource>) {
  const leaves = new Map<string, StoredLeaf & { record: object }>();
  for (const [name, source] of sources) {
    source.records.forEach((record, i) => {
      const hash = toHex(leafHashOfRecord(record));
      leaves.set(hash, {
        log: name,
        leaf_index: i,
        leaf_hash: hash,
        leaf_type: 'GOV_GOVERNANCE_ENVELOPE_V1',
        tenant_id: 'ten_x',
        subject_id: 's',
        artifact_hash: null,
        position: 1,
        admitted_at: new Date(0).toISOString(),
        record,
      });
    });
  }
  const reads: string[] = [];
  const readModels = {
    get: async (_projection: unknown, collection: string, id: string) => {
      reads.push(`${collection}/${id}`);
      const leaf = collection === 'leaves' ? leaves.get(id) : undefined;
      return leaf ? { id, data: leaf, position: 1 } : null;
    },
  } as unknown as ReadModels;
  return { readModels, reads };
}

async function setUp(later: LogName[] = []) {
  const sources = new Map<LogName, FakeSource>();
  sources.set(SHARED_LOG_NAME, await fakeSource(SHARED_LOG_NAME, 5));
  sources.set('test', await fakeSource('test', 3));
  const lateSources = new Map<LogName, FakeSource>();
  for (const name of later) lateSources.set(name, await fakeSource(name, 2));
  const { readModels, reads } = readModelsOf(new Map([...sources, ...lateSources]));
  const { directory, calls } = directoryOf(sources, lateSources);
  const made: LogName[] = [];
  const make = (name: LogName, source: LogSource) => {
    made.push(name);
    return new SequencedLog(source, readModels, { readAll: () => [][Symbol.iterator]() } as never, {
      log: name,
      awaitTreeHeads: async () => undefined,
      timeoutMs: 1000,
    });
  };
  const shared = make(SHARED_LOG_NAME, sources.get(SHARED_LOG_NAME)!);
  made.length = 0;
  const logs = new SequencedLogs(directory, make, shared);
  return { sources, lateSources, logs, shared, reads, calls, made };
}

describe('the logs a process serves', () => {
  it('given a directory of two logs, then the shared log is the process’s own, and another is made once, when first asked for, however many ask at once', async () => {
    const { logs, shared, made, sources } = await setUp();
    expect(logs.get(SHARED_LOG_NAME)).toBe(shared);
    expect(logs.get('test')).toBeNull();
    const [a, b] = await Promise.all([logs.find('test'), logs.find('test')]);
    expect(a).toBe(b);
    expect(made).toEqual(['test']);
    expect(logs.get('test')).toBe(a);
    expect(a!.name).toBe('test');
    expect(a!.verifierKey).toBe(sources.get('test')!.verifierKey);
    expect(a!.latest().sth.tree_size).toBe(3);
  });

  it('given a log the directory learns only once it catches up (made by another process), when asked for, then it is found after catching up', async () => {
    const name = `dedicated-${'a'.repeat(24)}`;
    const { logs, calls, lateSources } = await setUp([name]);
    const found = await logs.find(name);
    expect(calls.caughtUp).toBe(1);
    expect(found?.verifierKey).toBe(lateSources.get(name)!.verifierKey);
  });

  it('given no log by that name even after catching up, then none is found (the routes answer 404)', async () => {
    const { logs, calls, made } = await setUp();
    await expect(logs.find('dedicated-000000000000000000000000')).resolves.toBeNull();
    expect(calls.caughtUp).toBe(1);
    expect(made).toEqual([]);
  });

  it('given a log served, then its latest head, its proofs and a lookup by hash read no store', async () => {
    const { logs, reads, sources } = await setUp();
    const test = (await logs.find('test'))!;
    reads.length = 0;
    const hash = toHex(leafHashOfRecord(sources.get('test')!.records[2]!));
    expect(logs.get('test')!.latest().sth.tree_size).toBe(3);
    expect(test.leafIndexByHash(hash)).toBe(2);
    expect(test.inclusionProof(2, 3)).toHaveLength(1);
    expect(reads).toEqual([]);
  });

  it('given leaves of two logs in one read model, then each log serves only its own', async () => {
    const { logs, sources } = await setUp();
    const test = (await logs.find('test'))!;
    const shared = logs.get(SHARED_LOG_NAME)!;
    const sharedLeaf = toHex(leafHashOfRecord(sources.get(SHARED_LOG_NAME)!.records[1]!));
    const testLeaf = toHex(leafHashOfRecord(sources.get('test')!.records[1]!));
    expect((await shared.leafByHash(sharedLeaf))?.record).toEqual({ log: SHARED_LOG_NAME, sequence: 1 });
    expect(await shared.leafByHash(testLeaf)).toBeNull();
    expect(await test.leafByHash(sharedLeaf)).toBeNull();
    expect((await test.leafByIndex(1))?.record).toEqual({ log: 'test', sequence: 1 });
    expect(test.leafIndexByHash(sharedLeaf)).toBeNull();
  });

  it('given a log known but not signed yet (a follower that has not read its first head), when asked for, then it reads the store’s heads and rejects until one is signed, then it is served', async () => {
    const name = `dedicated-${'b'.repeat(24)}`;
    const { logs, lateSources, made } = await setUp([name]);
    const source = lateSources.get(name)!;
    source.signed = false;
    let catchUps = 0;
    source.catchUp = async () => {
      catchUps++;
    };
    await expect(logs.find(name)).rejects.toBeInstanceOf(LogNotSignedError);
    expect(catchUps).toBe(1);
    expect(logs.get(name)).toBeNull();
    source.signed = true;
    const found = await logs.find(name);
    expect(found?.latest().sth.tree_size).toBe(2);
    expect(logs.get(name)).toBe(found);
    expect(made).toEqual([name, name]);
  });
});
