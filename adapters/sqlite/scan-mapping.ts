import type { SqliteDatabase } from './open';

/** How much of a file a backlog read maps: SQLite maps at most this many bytes from its start. */
const SCAN_MAP_BYTES = 256 * 2 ** 20;

/**
 * Memory-mapped reads for the time a connection reads a backlog, and only then. A mapped file reads
 * ~1.6x faster from end to end (no copy per page), but every page a connection touches stays in the
 * process's resident set for as long as the file is mapped: a server following files that grow
 * without end would grow its RSS with them. So a connection maps its file when a read comes back a full
 * page (there is more behind it) and unmaps it, releasing those pages, once its reads are caught up.
 */
export class ScanMapping {
  private scans = 0;

  constructor(private readonly db: SqliteDatabase) {}

  /** A read found a backlog: map the file while it is read (nested scans share the mapping). */
  begin(): void {
    if (this.scans++ === 0) this.db.pragma(`mmap_size = ${SCAN_MAP_BYTES}`);
  }

  /** That read is done or caught up: the last one to finish unmaps the file. */
  end(): void {
    if (this.scans === 0) return;
    this.scans--;
    // A closed connection has nothing mapped any more.
    if (this.scans === 0 && this.db.open) this.db.pragma('mmap_size = 0');
  }
}
