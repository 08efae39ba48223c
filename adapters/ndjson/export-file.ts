/**
 * Reading a `gov-events` export (the format is described in ./format.ts), streamed with constant
 * memory whatever the file's size.
 *
 * UNVERIFIED UNTIL THE END: events are yielded as they are read, but the checksum, the count and the
 * presence of the trailer can only be checked once the last line has been read. A consumer must
 * treat everything it received as unverified until the iteration completes without throwing, and
 * discard it (roll back) when an ExportIntegrityError is thrown, even after the last event.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { RecordedEvent } from '../../ports/event-store';
import { ExportVerifier } from './export-verifier';
import type { ExportHeader, ExportTrailer } from './format';
import { DEFAULT_MAX_LINE_BYTES, splitLines } from './lines';

export { type ExportHeader, ExportIntegrityError, type ExportTrailer } from './format';

export interface ReadExportOptions {
  /** Called once with the header, before the first event is yielded. */
  onHeader?: (header: ExportHeader) => void;
  /** Called once with the verified trailer, after the last event and before the iteration ends. */
  onTrailer?: (trailer: ExportTrailer) => void;
  /** Longest line accepted, in bytes. */
  maxLineBytes?: number;
}

/**
 * The events of an export file in position order. Throws ExportIntegrityError (with `.line`) for a
 * malformed line, a truncated file, or a count or checksum mismatch, at the point it is detected; an
 * unreadable file throws the file system's error.
 */
export function readExportFile(file: string, options: ReadExportOptions = {}): AsyncIterable<RecordedEvent> {
  return {
    [Symbol.asyncIterator]: () =>
      readExportStream(fs.createReadStream(file, { highWaterMark: 1024 * 1024 }), options)[
        Symbol.asyncIterator
      ](),
  };
}

/** As readExportFile, from any byte stream (standard input, a download…). */
export async function* readExportStream(
  input: Readable | AsyncIterable<Buffer> | Iterable<Buffer>,
  options: ReadExportOptions = {},
): AsyncGenerator<RecordedEvent> {
  const verifier = new ExportVerifier();
  try {
    for await (const line of splitLines(input, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)) {
      const event = verifier.accept(line);
      if (event) yield event;
      else if (line.number === 1) options.onHeader?.(verifier.header!);
    }
    options.onTrailer?.(verifier.finish());
  } finally {
    // A consumer that stops early (or an error) must not leave the file open.
    if ('destroy' in input && typeof input.destroy === 'function') input.destroy();
  }
}
