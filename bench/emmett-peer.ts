/**
 * The peer for event-store appends: Emmett's SQLite event store (@event-driven-io/emmett-sqlite), its
 * own schema and append/read code, behind the workloads' AppendTarget.
 *
 * At its best, not through its convenience entry point: `getSQLiteEventStore` opens and closes a
 * connection for every call (and now and then fails a commit with SQLITE_BUSY "cannot commit
 * transaction - SQL statements in progress"), so the peer keeps its connections open and calls the
 * exported `appendToStream` / `readStream`, the functions `getSQLiteEventStore` itself calls.
 *
 * Each connection takes one append at a time. Emmett folds a transaction begun while another is open
 * into it, so concurrent appends on one connection would share one open transaction and be
 * acknowledged before anything commits (tried: 64 appenders, 20,000 "acknowledged" appends in 2 s,
 * none visible to another connection meanwhile). For concurrent appenders the peer can also spread
 * them over a few connections (EMMETT_POOL), each contending for SQLite's write lock.
 */
import {
  appendToStream,
  createEventStoreSchema,
  getSQLiteEventStore,
  readStream,
  type SQLiteConnection,
  sqliteConnection,
} from '@event-driven-io/emmett-sqlite';
import type { NewEvent } from '../ports/event-store';
import type { AppendTarget } from './append-workload';

export const EMMETT = 'Emmett SQLite 0.38';

function toEmmett(event: NewEvent) {
  return {
    type: event.type,
    data: event.data as Record<string, unknown>,
    // What our store keeps in columns, Emmett keeps in the metadata JSON.
    metadata: { tenant_id: event.tenant_id, correlation_id: event.correlation_id },
  };
}

/** One connection and the appends queued on it, each waiting for the one before to commit. */
interface Lane {
  connection: SQLiteConnection;
  tail: Promise<unknown>;
}

/**
 * Connections in a pool for concurrent appenders: node-sqlite3 runs every statement on libuv's
 * thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), and a BEGIN IMMEDIATE waiting
 * for the write lock holds its thread, so with as many connections as threads the commit they all
 * wait for gets no thread at all. Three connections leave one free.
 */
export const EMMETT_POOL = 3;

export class EmmettPeer implements AppendTarget {
  private next = 0;

  private constructor(
    private readonly lanes: Lane[],
    /** PRAGMA journal_mode and synchronous as read back from a connection. */
    readonly durability: string,
  ) {}

  /**
   * Opens (creating) the file over `connections` connections, each with the same durability and busy
   * timeout as our event store: WAL, synchronous=FULL, 10 s.
   */
  static async open(file: string, connections = 1): Promise<EmmettPeer> {
    const lanes: Lane[] = [];
    for (let i = 0; i < connections; i++) {
      const connection = sqliteConnection({ fileName: file });
      await connection.query('PRAGMA journal_mode = WAL');
      await connection.query('PRAGMA synchronous = FULL');
      await connection.query('PRAGMA busy_timeout = 10000');
      if (i === 0) await createEventStoreSchema(connection);
      lanes.push({ connection, tail: Promise.resolve() });
    }
    const connection = lanes[0]!.connection;
    const [journal] = await connection.query<{ journal_mode: string }>('PRAGMA journal_mode');
    const [sync] = await connection.query<{ synchronous: number }>('PRAGMA synchronous');
    const synchronous =
      ['OFF', 'NORMAL', 'FULL', 'EXTRA'][sync?.synchronous ?? -1] ?? String(sync?.synchronous);
    return new EmmettPeer(lanes, `journal_mode=${journal?.journal_mode}, synchronous=${synchronous}`);
  }

  /** Queued on the connections in turn; on each, one at a time (see the module comment). */
  append(stream: string, events: readonly NewEvent[], countBefore: number): Promise<void> {
    const lane = this.lanes[this.next++ % this.lanes.length]!;
    const run = lane.tail.then(async () => {
      const result = await appendToStream(lane.connection, stream, 'bench', events.map(toEmmett), {
        expectedStreamVersion: BigInt(countBefore),
      });
      if (!result.success) throw new Error(`Emmett refused an append to ${stream} at version ${countBefore}`);
    });
    lane.tail = run.catch(() => undefined);
    return run;
  }

  async readStream(stream: string): Promise<number> {
    return (await readStream(this.lanes[0]!.connection, stream)).events.length;
  }

  async close(): Promise<void> {
    for (const lane of this.lanes) {
      await lane.tail;
      lane.connection.close();
    }
  }
}

/**
 * Emmett as its README shows it, `getSQLiteEventStore({ fileName })`, one append at a time (it cannot
 * take concurrent ones): appends per second, and how many failed.
 */
export async function measureDocumentedEmmett(
  file: string,
  seconds: number,
  events: (i: number) => NewEvent,
): Promise<{ appendsPerSecond: number; failures: number }> {
  const store = getSQLiteEventStore({ fileName: file });
  const streams = 1000;
  const versions = new Array<bigint>(streams).fill(0n);
  let appends = 0;
  let failures = 0;
  // Emmett console.logs the error of every failed transaction; keep it out of the report's stdout.
  const log = console.log;
  console.log = () => {};
  try {
    const started = performance.now();
    const deadline = started + seconds * 1000;
    for (let i = 0; performance.now() < deadline; i++) {
      const k = i % streams;
      try {
        const result = await store.appendToStream(`documented-${k}`, [toEmmett(events(i))], {
          expectedStreamVersion: versions[k]!,
        });
        versions[k] = result.nextExpectedStreamVersion;
        appends += 1;
      } catch {
        failures += 1;
        versions[k] = (await store.readStream(`documented-${k}`)).currentStreamVersion;
      }
    }
    return { appendsPerSecond: appends / ((performance.now() - started) / 1000), failures };
  } finally {
    console.log = log;
  }
}
