import { createHash } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { NewEvent, RecordedEvent } from '../../ports/event-store';
import type { Progress } from '../../runtime/support/progress-bar';
import { tempDir } from '../../tests/support/temp-dir';
import { SqliteEventStore } from '../sqlite/event-store';
import { readExportStream } from './export-file';
import { writeExport } from './export-writer';

/** Collects everything written, optionally slowly (a disk or pipe that cannot keep up). */
class Sink extends Writable {
  readonly chunks: Buffer[] = [];
  bytes = 0;

  constructor(
    private readonly delayMs = 0,
    highWaterMark = 16 * 1024,
  ) {
    super({ highWaterMark });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const accept = () => {
      this.chunks.push(chunk);
      this.bytes += chunk.length;
      done();
    };
    if (this.delayMs > 0) setTimeout(accept, this.delayMs);
    else accept();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

const newEvent = (n: number, padding = 0): NewEvent => ({
  type: n % 2 ? 'Odd' : 'Even',
  data: { n, padding: 'x'.repeat(padding) },
  tenant_id: `tenant-${n % 3}`,
  correlation_id: `corr-${n}`,
  causation_id: n % 2 ? null : `cause-${n}`,
});

describe('writing a gov-events export', () => {
  let temp: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let clock = Date.UTC(2025, 2, 1);

  beforeEach(() => {
    temp = tempDir('gov-export');
    store = new SqliteEventStore({
      file: path.join(temp.dir, 'events.db'),
      pageSize: 100,
      now: () => {
        clock += 1000;
        return new Date(clock);
      },
    });
  });
  afterEach(async () => {
    await store.close();
    temp.remove();
  });

  async function appendMany(count: number, padding = 0): Promise<void> {
    for (let n = 0; n < count; n += 500)
      await store.append(
        `stream-${n}`,
        Array.from({ length: Math.min(500, count - n) }, (_, i) => newEvent(n + i, padding)),
      );
  }

  async function storedEvents(): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for await (const e of store.readAll()) out.push(e);
    return out;
  }

  it('writes a header, every event in position order with all its members, and a trailer whose sha256 covers every byte before it', async () => {
    await appendMany(250);
    const sink = new Sink();
    const summary = await writeExport({
      store,
      source: 'sqlite:/somewhere/events.db',
      output: sink,
      now: () => new Date('2025-06-01T00:00:00.000Z'),
    });

    const text = sink.text();
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(JSON.parse(lines[0]!)).toEqual({
      format: 'gov-events',
      version: 1,
      exported_at: '2025-06-01T00:00:00.000Z',
      source: 'sqlite:/somewhere/events.db',
      head_position: 250,
    });
    const stored = await storedEvents();
    const eventLines = lines.slice(1, -2).map((l) => JSON.parse(l) as RecordedEvent);
    expect(eventLines).toEqual(stored);
    expect(Object.keys(eventLines[0]!)).toEqual([
      'id',
      'type',
      'stream',
      'revision',
      'position',
      'recorded_at',
      'tenant_id',
      'correlation_id',
      'causation_id',
      'schema_version',
      'data',
    ]);
    const trailerLine = lines.at(-2)!;
    const beforeTrailer = text.slice(0, text.length - trailerLine.length - 1);
    const sha256 = createHash('sha256').update(beforeTrailer).digest('hex');
    expect(JSON.parse(trailerLine)).toEqual({ trailer: true, events: 250, last_position: 250, sha256 });
    expect(summary).toMatchObject({
      events: 250,
      head_position: 250,
      last_position: 250,
      sha256,
      bytes: Buffer.byteLength(text),
    });
  });

  it('then the reader reads back exactly the stored events', async () => {
    await appendMany(120);
    const sink = new Sink();
    await writeExport({ store, source: 'test', output: sink });
    const read: RecordedEvent[] = [];
    for await (const e of readExportStream([Buffer.concat(sink.chunks)])) read.push(e);
    expect(read).toEqual(await storedEvents());
  });

  it('given an empty store, then a header with head 0 and a trailer counting 0 events', async () => {
    const sink = new Sink();
    await writeExport({ store, source: 'test', output: sink });
    const lines = sink.text().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ head_position: 0 });
    expect(JSON.parse(lines[1]!)).toMatchObject({ trailer: true, events: 0, last_position: 0 });
  });

  it('given appends after the export started, then they are left out: a snapshot up to the head read at the start', async () => {
    await appendMany(50);
    const appendingStore = {
      headPosition: async () => {
        const head = await store.headPosition();
        await appendMany(30);
        return head;
      },
      readAll: store.readAll.bind(store),
    };
    const sink = new Sink();
    const summary = await writeExport({ store: appendingStore, source: 'test', output: sink });
    expect(summary).toMatchObject({ events: 50, head_position: 50, last_position: 50 });
    expect(await store.headPosition()).toBe(80);
  });

  it('given an output slower than the store, then the store is read only a bounded amount ahead of what was written', async () => {
    await appendMany(4000, 400);
    let read = 0;
    const counting = {
      headPosition: () => store.headPosition(),
      async *readAll() {
        for await (const e of store.readAll()) {
          read += 1;
          yield e;
        }
      },
    };
    const sink = new Sink(1, 16 * 1024);
    let maxAheadBytes = 0;
    const eventBytes = 600;
    const sampler = setInterval(() => {
      maxAheadBytes = Math.max(maxAheadBytes, read * eventBytes - sink.bytes);
    }, 1);
    try {
      await writeExport({ store: counting, source: 'test', output: sink });
    } finally {
      clearInterval(sampler);
    }
    expect(read).toBe(4000);
    // About 2.4 MB in all; without backpressure the whole stream would be read ahead at once.
    expect(maxAheadBytes).toBeLessThan(1024 * 1024);
  });

  it('reports progress towards the head position, ending at it', async () => {
    await appendMany(300);
    const reports: Progress[] = [];
    await writeExport({ store, source: 'test', output: new Sink(), onProgress: (p) => reports.push(p) });
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.at(-1)).toMatchObject({ events: 300, position: 300, target: 300, etaSeconds: 0 });
  });
});
