/**
 * An NDJSON export (`gov export`) as an audit source. Events are audited as they are read; the file's
 * own integrity (count, checksum, trailer) is only known at its end, and a failure there is reported
 * as a 'source-integrity' discrepancy (exit 3), while a file that yields no event at all cannot be
 * audited (exit 1).
 */
import fs from 'node:fs';
import { readExportFile } from '../adapters/ndjson/export-file';
import { type AuditSource, chunksOf, type EventsSourceOptions } from './sources';
import { AuditSourceError } from './store-file';

export function exportAuditSource(
  file: string,
  options: Pick<EventsSourceOptions, 'chunkEvents'> = {},
): AuditSource {
  const size = options.chunkEvents ?? 256;
  return {
    description: file,
    async open() {
      if (!fs.existsSync(file)) throw new AuditSourceError(`${file} does not exist: no export to audit`);
      // The header names the store's head when the export was taken: the target of the progress bar.
      let target: number | null = null;
      const events = readExportFile(file, { onHeader: (header) => (target = header.head_position) });
      return {
        get target() {
          return target;
        },
        chunks: () => chunksOf(events, size),
        close() {},
      };
    },
  };
}
