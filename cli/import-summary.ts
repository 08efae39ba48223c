import type { ExportHeader, ExportTrailer } from '../adapters/ndjson/format';

/** What `gov import --json` prints, the same members whichever store the export went into. */
interface ImportSummary {
  /** The export file; null for standard input. */
  file: string | null;
  store: string;
  source: string;
  exported_at: string;
  /** Events in the export. */
  events: number;
  /** Events this run stored. */
  appended: number;
  /** Events an earlier, interrupted run had stored (EventStoreDB's --resume); 0 otherwise. */
  already_imported: number;
  /** The store's position of the last event: the export's own, or EventStoreDB's. */
  last_position: number;
  sha256: string;
  seconds: number;
  events_per_second: number;
}

export interface ImportOutcome {
  /** As given on the command line: a file, or `-` for standard input. */
  file: string;
  storeName: string;
  header: ExportHeader;
  trailer: ExportTrailer;
  appended: number;
  alreadyImported: number;
  lastPosition: number;
  seconds: number;
}

function importSummary(outcome: ImportOutcome): ImportSummary {
  return {
    file: outcome.file === '-' ? null : outcome.file,
    store: outcome.storeName,
    source: outcome.header.source,
    exported_at: outcome.header.exported_at,
    events: outcome.trailer.events,
    appended: outcome.appended,
    already_imported: outcome.alreadyImported,
    last_position: outcome.lastPosition,
    sha256: outcome.trailer.sha256,
    seconds: outcome.seconds,
    events_per_second: Math.round(outcome.appended / Math.max(outcome.seconds, 1e-3)),
  };
}

/** Prints the `--json` summary on standard output. */
export function printImportSummary(outcome: ImportOutcome): void {
  console.log(JSON.stringify(importSummary(outcome), null, 2));
}
