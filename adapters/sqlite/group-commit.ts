/**
 * The embedded event store's group commit: every append of a group in one IMMEDIATE transaction (one
 * fsync), each append checked on its own (expected revision, idempotent retry, duplicate ids), so a
 * wrong expected revision fails that append alone. Runs on whichever connection writes: the store's
 * own, or its writer thread's (event-writer-thread.ts).
 */
import {
  type AppendResult,
  DuplicateEventIdError,
  type ExpectedRevision,
  WrongExpectedVersionError,
} from '../../ports/event-store';
import type { SqliteDatabase } from './open';
import { beginImmediate } from './write-lock';

/** One event of an append, already serialized and size-checked. */
export interface EventRow {
  id: string;
  type: string;
  tenant_id: string;
  correlation_id: string;
  causation_id: string | null;
  schema_version: number;
  data: string;
}

export interface AppendRequest {
  stream: string;
  expected: ExpectedRevision;
  rows: EventRow[];
}

/** An idempotent retry: the original append's result; nothing was stored now. */
interface RetriedAppend {
  retried: AppendResult;
}

/** What became of one append of a committed group. */
export type AppendOutcome = AppendResult | RetriedAppend | WrongExpectedVersionError | DuplicateEventIdError;

export class GroupCommitter {
  private readonly insert;
  private readonly streamRevision;
  private readonly eventById;
  private readonly transaction;

  /**
   * `lockRetry`: take the write lock with `beginImmediate` (a connection that may block: the writer
   * thread) instead of SQLite's busy handler.
   */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly lockRetry = false,
  ) {
    this.insert = db.prepare(
      `INSERT INTO events (id, stream, revision, type, recorded_at, tenant_id, correlation_id, causation_id, schema_version, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.streamRevision = db
      .prepare('SELECT revision FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1')
      .pluck();
    this.eventById = db.prepare('SELECT stream, revision, position FROM events WHERE id = ?');
    this.transaction = db.transaction((work: () => void) => work());
  }

  /**
   * Commits the group; one outcome per append, in order. Throws (and stores nothing of the group) when
   * the transaction itself fails: a full disk, an I/O error.
   */
  commit(group: readonly AppendRequest[], recordedAt: string): AppendOutcome[] {
    const outcomes: AppendOutcome[] = [];
    const work = () => {
      for (const append of group) outcomes.push(this.applyOne(append, recordedAt));
    };
    if (!this.lockRetry) {
      this.transaction.immediate(work);
      return outcomes;
    }
    beginImmediate(this.db);
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
    return outcomes;
  }

  private applyOne(append: AppendRequest, recordedAt: string): AppendOutcome {
    const idempotent = this.findIdempotentRetry(append);
    if (idempotent) return { retried: idempotent };
    const current = (this.streamRevision.get(append.stream) as number | undefined) ?? null;
    const mismatch = checkExpectedRevision(append.stream, append.expected, current);
    if (mismatch) return mismatch;
    for (const row of append.rows) {
      if (this.eventById.get(row.id)) return new DuplicateEventIdError(row.id);
    }
    let revision = current ?? -1;
    let position = 0;
    for (const row of append.rows) {
      revision += 1;
      position = Number(
        this.insert.run(
          row.id,
          append.stream,
          revision,
          row.type,
          recordedAt,
          row.tenant_id,
          row.correlation_id,
          row.causation_id,
          row.schema_version,
          row.data,
        ).lastInsertRowid,
      );
    }
    return { nextRevision: revision, position };
  }

  /**
   * As EventStoreDB does, re-appending exactly the same event ids, in order, to the same stream is an
   * idempotent retry (a client that lost the acknowledgement): it returns the original result.
   */
  private findIdempotentRetry(append: AppendRequest): AppendResult | null {
    const first = this.eventById.get(append.rows[0]!.id) as
      | { stream: string; revision: number; position: number }
      | undefined;
    if (!first || first.stream !== append.stream) return null;
    let last = first;
    for (let i = 1; i < append.rows.length; i++) {
      const next = this.eventById.get(append.rows[i]!.id) as typeof first | undefined;
      if (!next || next.stream !== append.stream || next.revision !== first.revision + i) return null;
      last = next;
    }
    return { nextRevision: last.revision, position: last.position };
  }
}

function checkExpectedRevision(
  stream: string,
  expected: ExpectedRevision,
  current: number | null,
): WrongExpectedVersionError | null {
  const actual = current ?? 'no-stream';
  const ok =
    expected === 'any' ||
    (expected === 'no-stream' && current === null) ||
    (expected === 'exists' && current !== null) ||
    (typeof expected === 'number' && current === expected);
  return ok ? null : new WrongExpectedVersionError(stream, expected, actual);
}

/** An outcome as plain data, to cross from the writer thread. */
export type WireOutcome =
  | { ok: AppendResult }
  | { retried: AppendResult }
  | { wrongVersion: { stream: string; expected: ExpectedRevision; actual: number | 'no-stream' } }
  | { duplicateId: string };

export function outcomeToWire(outcome: AppendOutcome): WireOutcome {
  if (outcome instanceof WrongExpectedVersionError)
    return { wrongVersion: { stream: outcome.stream, expected: outcome.expected, actual: outcome.actual } };
  if (outcome instanceof DuplicateEventIdError) return { duplicateId: outcome.eventId };
  if ('retried' in outcome) return outcome;
  return { ok: outcome };
}

export function outcomeFromWire(wire: WireOutcome): AppendOutcome {
  if ('wrongVersion' in wire) {
    const { stream, expected, actual } = wire.wrongVersion;
    return new WrongExpectedVersionError(stream, expected, actual);
  }
  if ('duplicateId' in wire) return new DuplicateEventIdError(wire.duplicateId);
  if ('retried' in wire) return wire;
  return wire.ok;
}
