/**
 * This project's SQLite event store side by side with Emmett's (the peer): the same workloads in the
 * same run on the same disk, with the same durability (WAL, synchronous=FULL, read back from each
 * connection). The peer is given its better figure: for concurrent appenders it is measured both on
 * one connection and on a pool of connections, and the better of the two is the one compared.
 */
import path from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { openSqlite } from '../adapters/sqlite/open';
import type { NewEvent } from '../ports/event-store';
import {
  type AppendTarget,
  measureStreamAppends,
  measureStreamReads,
  type StreamAppendOptions,
  sampleEvent,
} from './append-workload';
import { EMMETT, EMMETT_POOL, EmmettPeer, measureDocumentedEmmett } from './emmett-peer';
import type { BenchRow } from './report';

const SUITE = 'event-store vs peer';
const STREAMS = 1000;
const READ_BACK_EVENTS = 1000;

/** Our store as the workloads see it: a stream holding n events is at revision n - 1. */
export class OurStore implements AppendTarget {
  readonly store: SqliteEventStore;

  constructor(readonly file: string) {
    this.store = new SqliteEventStore({ file });
  }

  async append(stream: string, events: readonly NewEvent[], countBefore: number): Promise<void> {
    await this.store.append(stream, events, {
      expectedRevision: countBefore === 0 ? 'no-stream' : countBefore - 1,
    });
  }

  async readStream(stream: string): Promise<number> {
    let count = 0;
    for await (const _event of this.store.readStream(stream)) count += 1;
    return count;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** journal_mode and synchronous of a connection to our store's file opened as the store opens it. */
function ourDurability(file: string): string {
  const db = openSqlite(file);
  try {
    const journal = db.pragma('journal_mode', { simple: true });
    const synchronous = ['OFF', 'NORMAL', 'FULL', 'EXTRA'][
      Number(db.pragma('synchronous', { simple: true }))
    ];
    return `journal_mode=${journal}, synchronous=${synchronous}`;
  } finally {
    db.close();
  }
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * The peer's figure for a workload: on one connection, and for concurrent appenders also on a pool of
 * connections, the better of the two with a note naming the other.
 */
async function peerAppends(single: EmmettPeer, pooled: EmmettPeer, options: StreamAppendOptions) {
  const one = await measureStreamAppends(single, options);
  if (options.concurrency === 1) return { ...one, note: null };
  const pool = await measureStreamAppends(pooled, options);
  const poolWins = pool.appendsPerSecond > one.appendsPerSecond;
  const other = poolWins
    ? `1 connection: ${count(one.appendsPerSecond)}`
    : `${EMMETT_POOL} connections: ${count(pool.appendsPerSecond)}`;
  return {
    ...(poolWins ? pool : one),
    note:
      'Emmett takes one append at a time per connection (it folds concurrent ones into one open transaction, ' +
      `acknowledged before it commits); its better figure is compared: ${poolWins ? `${EMMETT_POOL} connections` : '1 connection'} (${other} appends/s)`,
  };
}

export async function eventStoreVersusEmmett(dir: string, seconds: number): Promise<BenchRow[]> {
  const ours = new OurStore(path.join(dir, 'ours-vs-peer.db'));
  const single = await EmmettPeer.open(path.join(dir, 'emmett.db'));
  const pooled = await EmmettPeer.open(path.join(dir, 'emmett-pool.db'), EMMETT_POOL);
  const rows: BenchRow[] = [];
  try {
    const durability =
      `same durability: ours ${ourDurability(ours.file)} (group commit: one fsync per batch of concurrent ` +
      `appends); ${EMMETT} ${single.durability} (one transaction, one fsync, per append)`;
    for (const eventsPerAppend of [1, 10]) {
      for (const concurrency of [1, 64]) {
        const options = {
          concurrency,
          eventsPerAppend,
          streams: STREAMS,
          seconds,
          prefix: `c${concurrency}-e${eventsPerAppend}`,
        };
        const mine = await measureStreamAppends(ours, options);
        const theirs = await peerAppends(single, pooled, options);
        const notes = [`${count(mine.eventsPerSecond)} events/s vs ${count(theirs.eventsPerSecond)}`];
        if (theirs.note) notes.push(theirs.note);
        if (eventsPerAppend === 1 && concurrency === 1) notes.push(durability);
        rows.push({
          suite: SUITE,
          metric:
            `durable appends/s with expected-version check, ${eventsPerAppend} event${eventsPerAppend > 1 ? 's' : ''}` +
            `/append, ${count(STREAMS)} streams, concurrency ${concurrency}`,
          value: Math.round(mine.appendsPerSecond),
          unit: 'appends/s',
          peer: { name: EMMETT, value: Math.round(theirs.appendsPerSecond) },
          ratio: mine.appendsPerSecond / theirs.appendsPerSecond,
          notes: notes.join('; '),
        });
      }
    }
    const mine = await measureStreamReads(ours, 'read-back', READ_BACK_EVENTS, seconds);
    const theirs = await measureStreamReads(single, 'read-back', READ_BACK_EVENTS, seconds);
    rows.push({
      suite: SUITE,
      metric: `read a ${count(READ_BACK_EVENTS)}-event stream back, whole, JSON decoded`,
      value: Math.round(mine.eventsPerSecond),
      unit: 'events/s',
      peer: { name: EMMETT, value: Math.round(theirs.eventsPerSecond) },
      ratio: mine.eventsPerSecond / theirs.eventsPerSecond,
      notes:
        "each store with its own page cache settings (ours a 64 MiB page cache, Emmett SQLite's defaults)",
    });
    const documented = await measureDocumentedEmmett(
      path.join(dir, 'emmett-documented.db'),
      seconds,
      sampleEvent,
    );
    rows[0]!.notes +=
      `; the peer keeps its connection open: through getSQLiteEventStore, which opens one per call, ` +
      `Emmett did ${count(documented.appendsPerSecond)} appends/s (${documented.failures} failed)`;
  } finally {
    await ours.close();
    await single.close();
    await pooled.close();
  }
  return rows;
}
