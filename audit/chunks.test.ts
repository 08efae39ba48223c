/**
 * A log audit of the embedded store reads each chunk's rows itself, and an intact admission goes
 * straight into the chunk's result (its leaf hash as hex, decoded once for the chunk) without a
 * verdict built for it. Whatever the mix of intact and other events, the chunk's result is exactly
 * the one the verdict path (checkLogEvent for every event, as for rows handed over) gives.
 */
import path from 'node:path';
import { from } from '../adapters/ndjson/importable-store.contract';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import type { EvidenceAdmitted } from '../event-schemas';
import { fromHex } from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { tempDir } from '../tests/support/temp-dir';
import { ChunkRunner } from './chunks';
import {
  ChunkResultBuilder,
  eventIdAt,
  LEAF_HASHED,
  LEAF_UNREADABLE,
  rawRowOf,
  transferablesOf,
} from './event-facts';
import { SyntheticLog } from './synthetic-log';
import { prepareTrust } from './trust';

describe('a log audit chunk of the embedded store', () => {
  let temp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    temp = tempDir('gov-audit-chunks');
  });
  afterAll(() => temp.remove());

  /** A stream with every kind of leaf, and tree heads. */
  async function stream(): Promise<SyntheticLog> {
    const log = new SyntheticLog();
    const authorization = await log.admitEvidence('tnt_a');
    await log.admitEvidence('tnt_b', 'model-2');
    log.signTreeHead();
    log.execute(authorization, 'DEVIATED');
    await log.admitEvidence('tnt_a', 'model-3');
    log.signTreeHead();
    return log;
  }

  /** The chunk read from a store file holding `events`, and the same events handed over as rows. */
  async function bothWays(log: SyntheticLog, events: RecordedEvent[] = log.events) {
    const file = path.join(temp.dir, `events-${Math.random().toString(36).slice(2)}.db`);
    const store = new SqliteEventStore({ file });
    await store.importEvents(from(events));
    await store.close();
    const runner = new ChunkRunner(prepareTrust(log.trust), null, 'log');
    try {
      const last = events[events.length - 1]!.position;
      const read = await runner.run({ kind: 'range', file, from: 1, to: last + 1 });
      const handed = await runner.run({ kind: 'rows', rows: events.map(rawRowOf) });
      return { read, handed };
    } finally {
      runner.close();
    }
  }

  it('given an intact stream, when a chunk is read from the store, then its result is the verdict path’s, each leaf hash the stored leaf_hash', async () => {
    const log = await stream();
    const { read, handed } = await bothWays(log);
    expect(read).toEqual(handed);
    const admissions = log.events.filter((e) => (e.data as { leaf_hash?: string }).leaf_hash);
    expect(Array.from(read.leafKinds).filter((kind) => kind === LEAF_HASHED)).toHaveLength(admissions.length);
    const stored = admissions.map((e) => Array.from(fromHex((e.data as { leaf_hash: string }).leaf_hash)));
    expect(Array.from(read.leafHashes)).toEqual(stored.flat());
    expect(read.discrepancies).toEqual([]);
  });

  it('given intact admissions mixed with an altered envelope and an unreadable one, then the result is still the verdict path’s, findings and hashes in event order', async () => {
    const log = await stream();
    const evidence = log.events.filter(
      (e) => e.type === 'EvidenceAdmitted',
    ) as RecordedEvent<EvidenceAdmitted>[];
    const altered = evidence[1]!;
    altered.data = {
      ...altered.data,
      envelope: { ...altered.data.envelope, payload_uri: 'https://elsewhere.example/' },
    };
    const unreadable = evidence[2]!;
    unreadable.data = { ...unreadable.data, envelope: 'not an object' } as unknown as EvidenceAdmitted;
    const { read, handed } = await bothWays(log);
    expect(read).toEqual(handed);
    expect(read.discrepancies.map((d) => [d.position, d.check])).toEqual([
      [altered.position, 'leaf-hash-mismatch'],
      [unreadable.position, 'event-schema'],
    ]);
    expect(read.leafKinds[log.events.indexOf(unreadable)]).toBe(LEAF_UNREADABLE);
  });
});

describe("a chunk's result crossing to the main thread", () => {
  /** A result of three events: two admissions hashed from hex and bytes, and an event with odd metadata. */
  function result() {
    const builder = new ChunkResultBuilder();
    const hash = (n: number) => new Uint8Array(32).fill(n);
    builder.addLeaf(7, 'plain-id', 'EvidenceAdmitted', 'tenant-a', 0, '01'.repeat(32), null);
    builder.add({
      position: 8,
      id: 'é-😀-id',
      type: 'ExecutionAdmitted',
      stream: 'tenant-b',
      revision: 3,
      leaf: { hash: hash(2) },
    });
    builder.add({
      position: 9.5,
      id: '',
      type: 'GateFailed',
      stream: 'tenant-a',
      revision: 'x' as unknown as number,
    });
    return builder.finish();
  }

  it('given ids of any characters and positions or revisions that are not integers, when the result is handed over (its buffers transferred), then every id, position and revision reads back as it was', () => {
    const sent = result();
    const received = structuredClone(sent, { transfer: transferablesOf(sent) });
    expect([0, 1, 2].map((i) => eventIdAt(received, i))).toEqual(['plain-id', 'é-😀-id', '']);
    expect(Array.from(received.positions)).toEqual([7, 8, 9.5]);
    expect(Array.from(received.revisions)).toEqual([0, 3, 'x']);
    expect(Array.from(received.leafHashes)).toEqual([...new Array(32).fill(1), ...new Array(32).fill(2)]);
    // Handed over, not copied: the sending side no longer holds the columns.
    expect(sent.leafHashes.byteLength).toBe(0);
  });
});
