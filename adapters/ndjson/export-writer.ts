import { createHash } from 'node:crypto';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Progress } from '../../runtime/support/progress-bar';
import type { ExportableEventStore } from './event-stores';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportHeader,
  encodeEvent,
  encodeHeader,
  encodeTrailer,
} from './format';
import { TransferProgress } from './transfer-progress';

export interface WriteExportOptions {
  store: ExportableEventStore;
  /** Names the store in the header, e.g. `sqlite:/var/lib/gov/events.db`. */
  source: string;
  /** Where the file's bytes go; it is not ended (the caller owns it: it may be stdout). */
  output: Writable;
  now?: () => Date;
  onProgress?: (progress: Progress) => void;
}

export interface ExportSummary {
  events: number;
  head_position: number;
  last_position: number;
  sha256: string;
  bytes: number;
  exported_at: string;
  seconds: number;
  progress: Progress;
}

/** Lines are gathered into chunks of about this size: one write per chunk, not per event. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Writes the `gov-events` export (see ./format.ts) of everything up to the head position read at the
 * start: a consistent snapshot even while a server keeps appending. The store is read page by page
 * and the output's backpressure is honoured, so memory stays constant whatever the stream's size.
 */
export async function writeExport(options: WriteExportOptions): Promise<ExportSummary> {
  const { store, output } = options;
  const started = performance.now();
  const head = await store.headPosition();
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: (options.now ?? (() => new Date()))().toISOString(),
    source: options.source,
    head_position: head,
  };
  const progress = new TransferProgress(head);
  const hash = createHash('sha256');
  let events = 0;
  let lastPosition = 0;
  let bytes = 0;
  let sha256 = '';

  async function* chunks(): AsyncGenerator<Buffer> {
    let parts: Buffer[] = [];
    let size = 0;
    const add = (text: string, hashed: boolean) => {
      const line = Buffer.from(text);
      if (hashed) hash.update(line);
      parts.push(line);
      size += line.length;
      bytes += line.length;
    };
    const take = () => {
      const chunk = Buffer.concat(parts, size);
      parts = [];
      size = 0;
      return chunk;
    };
    add(encodeHeader(header), true);
    for await (const event of store.readAll({ after: null })) {
      // Appended after the export started: outside the snapshot.
      if (event.position > head) break;
      add(encodeEvent(event), true);
      events += 1;
      lastPosition = event.position;
      if (progress.record(event.position)) options.onProgress?.(progress.snapshot());
      if (size >= CHUNK_BYTES) yield take();
    }
    sha256 = hash.digest('hex');
    add(encodeTrailer({ trailer: true, events, last_position: lastPosition, sha256 }), false);
    yield take();
  }

  // Byte mode with a one-chunk high-water mark: at most about one chunk is read ahead of the output.
  await pipeline(Readable.from(chunks(), { objectMode: false, highWaterMark: CHUNK_BYTES }), output, {
    end: false,
  });
  const final = progress.snapshot();
  options.onProgress?.(final);
  return {
    events,
    head_position: head,
    last_position: lastPosition,
    sha256,
    bytes,
    exported_at: header.exported_at,
    seconds: (performance.now() - started) / 1000,
    progress: final,
  };
}
