/**
 * A unit of parallel work: either a position range of a store file (the worker reads the rows itself,
 * so they never cross threads) or rows handed over by the main thread (in-memory and export sources).
 */
import { checkRows } from './event-checks';
import type { ChunkResult, RawEventRow } from './event-facts';
import { LinkWriter } from './link-index';
import { StoreFileReader } from './store-file';
import type { PreparedTrust } from './trust';

export type AuditChunk =
  | { kind: 'range'; file: string; from: number; to: number }
  | { kind: 'rows'; rows: RawEventRow[] };

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
  ) {}

  async run(chunk: AuditChunk): Promise<ChunkResult> {
    const rows = chunk.kind === 'rows' ? chunk.rows : this.reader(chunk.file).rows(chunk.from, chunk.to);
    if (this.linkDir !== null) this.links ??= new LinkWriter(this.linkDir);
    const result = await checkRows(rows, this.trust, this.links);
    this.links?.commit();
    return result;
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
