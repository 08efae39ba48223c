/**
 * The embedded event store's writer on a thread of its own: group commits, and the fsync each one
 * waits for, happen here instead of blocking the server's main thread. It owns a connection of its
 * own to the store's file; the schema exists already (the store created it before starting this).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WriterReport, WriterRequest, WriterThreadData } from './event-writer-protocol';
import { GroupCommitter, outcomeToWire } from './group-commit';
import { openSqlite } from './open';
import { retryLocksHere } from './write-lock';

const { file } = workerData as WriterThreadData;
const port = parentPort!;
// It only appends (the right edge of the B-trees) and looks up a few index pages: a small cache.
const db = openSqlite(file, 'durable', 8);
// This thread may block: it waits for a write lock held by another process itself, trying often.
retryLocksHere(db);
const committer = new GroupCommitter(db, true);
const send = (report: WriterReport) => port.postMessage(report);

port.on('message', (request: WriterRequest) => {
  if (request.kind === 'close') {
    db.close();
    send({ kind: 'closed' });
    return;
  }
  try {
    const outcomes = committer.commit(request.group, request.recordedAt);
    send({ kind: 'committed', id: request.id, outcomes: outcomes.map(outcomeToWire) });
  } catch (error) {
    const { message, code } = error as Error & { code?: string };
    send({ kind: 'failed', id: request.id, message, code });
  }
});
send({ kind: 'ready' });
