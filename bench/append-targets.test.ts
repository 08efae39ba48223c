import path from 'node:path';
import { sqliteConnection } from '@event-driven-io/emmett-sqlite';
import {
  type AppendTarget,
  measureStreamAppends,
  measureStreamReads,
  ownedStreams,
  sampleEvent,
} from './append-workload';
import { EmmettPeer } from './emmett-peer';
import { OurStore } from './event-store-vs-emmett';
import { tempDir } from './temp-dir';

describe('ownedStreams', () => {
  it('given 1,000 streams and 64 appenders, then each stream belongs to exactly one appender', () => {
    const all = Array.from({ length: 64 }, (_, w) => ownedStreams(w, 64, 1000)).flat();
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(ownedStreams(0, 64, 1000)).toEqual([
      0, 64, 128, 192, 256, 320, 384, 448, 512, 576, 640, 704, 768, 832, 896, 960,
    ]);
  });

  it('given more appenders than streams, then an appender without one gets a stream of its own', () => {
    expect(ownedStreams(5, 8, 4)).toEqual([5]);
  });
});

describe('measureStreamAppends', () => {
  it('given a store that checks versions, then every append names the count its stream holds', async () => {
    const counts = new Map<string, number>();
    const target: AppendTarget = {
      append: async (stream, events, countBefore) => {
        await new Promise((resolve) => setImmediate(resolve));
        if ((counts.get(stream) ?? 0) !== countBefore)
          throw new Error(`${stream}: expected ${counts.get(stream)}, got ${countBefore}`);
        counts.set(stream, countBefore + events.length);
      },
      readStream: async () => 0,
      close: async () => {},
    };
    const result = await measureStreamAppends(target, {
      concurrency: 8,
      eventsPerAppend: 3,
      streams: 20,
      seconds: 0.2,
      prefix: 't',
    });
    expect(result.appendsPerSecond).toBeGreaterThan(0);
    expect(result.eventsPerSecond).toBeCloseTo(result.appendsPerSecond * 3);
    expect([...counts.keys()].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `t-${i}`).sort());
  });
});

/** What both stores must do for their figures to be comparable. */
describe.each([
  ['this project', (dir: string) => Promise.resolve(new OurStore(path.join(dir, 'ours.db')))],
  ['Emmett, one connection', (dir: string) => EmmettPeer.open(path.join(dir, 'emmett.db'))],
  ['Emmett, three connections', (dir: string) => EmmettPeer.open(path.join(dir, 'emmett.db'), 3)],
] as const)('append target: %s', (_name, open) => {
  let temp: ReturnType<typeof tempDir>;
  let target: AppendTarget;

  beforeEach(async () => {
    temp = tempDir('gov-bench-targets');
    target = await open(temp.dir);
  });

  afterEach(async () => {
    await target.close();
    temp.remove();
  });

  it('given appends with the right counts, then the stream reads back whole', async () => {
    await target.append('s-1', [sampleEvent(0)], 0);
    await target.append('s-1', [sampleEvent(1), sampleEvent(2)], 1);
    expect(await target.readStream('s-1')).toBe(3);
  });

  it('given an append to a new stream that already exists, or at a stale count, then it is refused', async () => {
    // Emmett console.logs the constraint error of each refused append.
    const log = jest.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await target.append('s-2', [sampleEvent(0), sampleEvent(1)], 0);
      await expect(target.append('s-2', [sampleEvent(2)], 0)).rejects.toThrow();
      await expect(target.append('s-2', [sampleEvent(2)], 1)).rejects.toThrow();
      expect(await target.readStream('s-2')).toBe(2);
    } finally {
      log.mockRestore();
    }
  });

  it('given a read-back workload, then it reads the stream it wrote, whole', async () => {
    const result = await measureStreamReads(target, 'r', 250, 0.1);
    expect(result.eventsPerSecond).toBeGreaterThan(0);
  });
});

describe('EmmettPeer', () => {
  it('given it is opened, then it reports the same durability as our event store', async () => {
    const temp = tempDir('gov-bench-emmett');
    const peer = await EmmettPeer.open(path.join(temp.dir, 'e.db'));
    try {
      expect(peer.durability).toBe('journal_mode=wal, synchronous=FULL');
    } finally {
      await peer.close();
      temp.remove();
    }
  });

  it('given 16 concurrent appends, then each is visible to another connection when it is acknowledged', async () => {
    const temp = tempDir('gov-bench-emmett');
    const file = path.join(temp.dir, 'e.db');
    const peer = await EmmettPeer.open(file);
    const other = sqliteConnection({ fileName: file });
    try {
      const seen = await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          await peer.append(`c-${i}`, [sampleEvent(i)], 0);
          const row = await other.querySingle<{ n: number }>(
            'SELECT COUNT(*) AS n FROM emt_messages WHERE stream_id = ?',
            [`c-${i}`],
          );
          return row?.n;
        }),
      );
      expect(seen).toEqual(new Array(16).fill(1));
    } finally {
      other.close();
      await peer.close();
      temp.remove();
    }
  });
});
