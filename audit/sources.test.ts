/**
 * The embedded store as an audit source is cut into chunks by events, not by positions: a store
 * imported from EventStoreDB keeps its commit positions, hundreds apart, and must not become one chunk
 * (one message between threads) per event. A chunk's rows are read a few at a time, every row once.
 */
import path from 'node:path';
import { from, recorded } from '../adapters/ndjson/importable-store.contract';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { tempDir } from '../tests/support/temp-dir';
import { ChunkRunner } from './chunks';
import { sqliteAuditSource } from './sources';
import { prepareTrust } from './trust';

describe('the embedded store as an audit source', () => {
  let temp: ReturnType<typeof tempDir>;
  let file: string;
  /** Positions as EventStoreDB gave them: increasing, 377 apart. */
  const positions = Array.from({ length: 70 }, (_, i) => 1000 + 377 * i);

  beforeAll(async () => {
    temp = tempDir('gov-audit-source');
    file = path.join(temp.dir, 'events.db');
    const store = new SqliteEventStore({ file });
    await store.importEvents(
      from(positions.map((position, i) => recorded(position, `s-${i % 3}`, Math.floor(i / 3)))),
    );
    await store.close();
  });
  afterAll(() => temp.remove());

  it('given positions hundreds apart, when cut into chunks of 32 events, then every chunk but the last holds 32 of them, each event in one chunk', async () => {
    const opened = await sqliteAuditSource(file, { chunkEvents: 32 }).open();
    const runner = new ChunkRunner(
      prepareTrust({ logVerifierKeys: [], authorityPublicKeys: [], validatorPublicKeys: [] }),
      null,
      'log',
    );
    try {
      const chunks: number[][] = [];
      for await (const chunk of opened.chunks()) chunks.push(Array.from((await runner.run(chunk)).positions));
      expect(chunks.map((chunk) => chunk.length)).toEqual([32, 32, 6]);
      expect(chunks.flat()).toEqual(positions);
      expect(opened.target).toBe(positions[positions.length - 1]);
    } finally {
      runner.close();
      opened.close();
    }
  });
});
