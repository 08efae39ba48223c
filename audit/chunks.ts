/**
 * A unit of parallel work: either a position range of a store file (the worker reads the rows itself,
 * so they never cross threads) or rows handed over by the main thread (in-memory and export sources).
 */
import { type AuditScope, addVerdict, checkRows } from './event-checks';
import { type ChunkResult, ChunkResultBuilder, type RawEventRow } from './event-facts';
import { LinkWriter } from './link-index';
import { addIntactAdmission, checkLogEvent } from './log-checks';
import { StoreFileReader } from './store-file';
import type { PreparedTrust } from './trust';

export type AuditChunk =
  | { kind: 'range'; file: string; from: number; to: number }
  | { kind: 'rows'; rows: RawEventRow[] };

/**
 * Rows read from the store at once. A few at a time, so that each row (some kilobytes of JSON) and
 * what it is parsed into die young: reading a whole chunk first kept megabytes alive through every
 * young-generation collection, which then copied them (measured: GC time per leaf ÷ 4).
 */
const ROWS_READ_AT_ONCE = 32;

/**
 * Checks chunks on one thread: one store reader per file, opened on first use and kept for the next
 * chunks, and this thread's part of the link index (when the audit keeps one).
 */
export class ChunkRunner {
  private readonly readers = new Map<string, StoreFileReader>();
  private links: LinkWriter | null = null;

  constructor(
    private readonly trust: PreparedTrust,
    private readonly linkDir: string | null,
    private readonly scope: AuditScope = 'all',
  ) {}

  async run(chunk: AuditChunk): Promise<ChunkResult> {
    if (this.linkDir !== null) this.links ??= new LinkWriter(this.linkDir);
    const result = new ChunkResultBuilder();
    if (chunk.kind === 'rows') await checkRows(chunk.rows, this.trust, this.links, this.scope, result);
    else if (this.scope === 'log') await this.runLogRange(chunk, result);
    else {
      const reader = this.reader(chunk.file);
      for (let from = chunk.from; from < chunk.to; ) {
        const rows = reader.rows(from, chunk.to, ROWS_READ_AT_ONCE);
        await checkRows(rows, this.trust, this.links, this.scope, result);
        if (rows.length < ROWS_READ_AT_ONCE) break;
        from = rows[rows.length - 1]![0] + 1;
      }
    }
    this.links?.commit();
    return result.finish();
  }

  /** A log audit reads only the columns it checks. */
  private async runLogRange(
    chunk: AuditChunk & { kind: 'range' },
    result: ChunkResultBuilder,
  ): Promise<void> {
    const reader = this.reader(chunk.file);
    for (let from = chunk.from; from < chunk.to; ) {
      const rows = reader.logRows(from, chunk.to, ROWS_READ_AT_ONCE);
      for (const row of rows) {
        if (addIntactAdmission(row, result)) continue;
        // Only tree heads are checked asynchronously: admissions do not wait for a turn of the loop.
        const verdict = checkLogEvent(row, this.trust);
        addVerdict(verdict instanceof Promise ? await verdict : verdict, result);
      }
      if (rows.length < ROWS_READ_AT_ONCE) break;
      from = rows[rows.length - 1]![0] + 1;
    }
  }

  /** Closes the readers, and the link part so the audit can gather it. */
  close(): void {
    for (const reader of this.readers.values()) reader.close();
    this.readers.clear();
    this.links?.close();
    this.links = null;
  }

  private reader(file: string): StoreFileReader {
    let reader = this.readers.get(file);
    if (!reader) {
      reader = new StoreFileReader(file);
      this.readers.set(file, reader);
    }
    return reader;
  }
}
