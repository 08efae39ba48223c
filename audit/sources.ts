/**
 * Where an audit reads events from: the embedded store's SQLite file (read directly, in position
 * ranges the workers read themselves), or any stream of recorded events (in memory, an NDJSON export).
 */
import type { RecordedEvent } from '../ports/event-store';
import type { AuditChunk } from './chunks';
import { type RawEventRow, rawRowOf } from './event-facts';
import { StoreFileReader } from './store-file';

/** A readable event stream: the embedded SQLite store file, an NDJSON export, or events in memory. */
export interface AuditSource {
  /** What is audited, for messages: a file name, or "events in memory". */
  readonly description: string;
  /** Prepares the reading; throws AuditSourceError when the source cannot be read at all. */
  open(): Promise<OpenedSource>;
}

interface OpenedSource {
  /** The last position to reach, for progress; null when unknown until the end. */
  readonly target: number | null;
  /** The events in position order, cut into chunks of parallel work. */
  chunks(): AsyncIterable<AuditChunk>;
  close(): void;
}

export interface SqliteSourceOptions {
  /** Events per chunk of work. Default 1024. */
  chunkEvents?: number;
}

/** The embedded event store file (GOV_EVENT_STORE_FILE), opened read-only; a running server may share it. */
export function sqliteAuditSource(file: string, options: SqliteSourceOptions = {}): AuditSource {
  const size = options.chunkEvents ?? 1024;
  return {
    description: file,
    async open() {
      const reader = new StoreFileReader(file);
      // Positions are committed in order: everything up to `last` is already final, whatever is
      // appended while the audit runs.
      let bounds: ReturnType<StoreFileReader['bounds']>;
      try {
        bounds = reader.bounds();
      } catch (error) {
        reader.close();
        throw error;
      }
      return {
        target: bounds.last,
        // Cut by events, not by positions: positions need not be dense (a store imported from
        // EventStoreDB keeps its commit positions, hundreds apart).
        async *chunks() {
          if (bounds.count === 0) return;
          // Every position from first to last holds an event (the embedded store numbers them so):
          // the chunks are cut by arithmetic, without walking the table for each boundary.
          const dense = bounds.count === bounds.last - bounds.first + 1;
          for (let from = bounds.first; from <= bounds.last; ) {
            const next = dense ? from + size : reader.positionAfter(from, size);
            const to = next === null || next > bounds.last ? bounds.last + 1 : next;
            yield { kind: 'range', file, from, to };
            from = to;
          }
        },
        close() {
          reader.close();
        },
      };
    },
  };
}

export interface EventsSourceOptions {
  /** Events per chunk of work. Default 256. */
  chunkEvents?: number;
  description?: string;
}

/** Recorded events from memory or any (async) iterable: an NDJSON export, a test's hand-built list. */
export function eventsAuditSource(
  events: AsyncIterable<RecordedEvent> | Iterable<RecordedEvent>,
  options: EventsSourceOptions = {},
): AuditSource {
  return {
    description: options.description ?? 'events in memory',
    async open() {
      return { target: null, chunks: () => chunksOf(events, options.chunkEvents ?? 256), close() {} };
    },
  };
}

/** Cuts a stream of recorded events into chunks of `size` raw rows. */
export async function* chunksOf(
  events: AsyncIterable<RecordedEvent> | Iterable<RecordedEvent>,
  size: number,
): AsyncGenerator<AuditChunk> {
  let rows: RawEventRow[] = [];
  try {
    for await (const event of events) {
      rows.push(rawRowOf(event));
      if (rows.length === size) {
        yield { kind: 'rows', rows };
        rows = [];
      }
    }
  } catch (error) {
    // What was read before the failure is still audited; the failure itself is reported after it.
    if (rows.length > 0) yield { kind: 'rows', rows };
    throw error;
  }
  if (rows.length > 0) yield { kind: 'rows', rows };
}
