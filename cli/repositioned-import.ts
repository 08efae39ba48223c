/**
 * `gov import` into a store that gives events positions of its own (EventStoreDB), where appends cannot
 * be rolled back. So the export is read twice: first verified whole (format, order, count, SHA-256,
 * every event storable, every tree head naming admissions before it) while nothing is written; then
 * appended event by event in the export's order, each to its stream at its revision with its id and
 * recorded_at, tree heads' leaf_positions translated to the new positions (projectors/log/leaf-positions.ts).
 * An import that stops part way (a lost connection) continues with `resume`: the events already in the
 * store must be exactly the export's first ones, and are not written again. Memory is constant: one
 * append window, and the admissions no tree head has integrated yet.
 */
import { isDeepStrictEqual } from 'node:util';
import type { RepositioningImportTarget } from '../adapters/ndjson/event-stores';
import { type ExportHeader, type ExportTrailer, readExportFile } from '../adapters/ndjson/export-file';
import { TransferProgress } from '../adapters/ndjson/transfer-progress';
import type { RecordedEvent } from '../ports/event-store';
import { LeafPositionMap } from '../projectors/log/leaf-positions';
import type { Progress } from '../runtime/support/progress-bar';

export interface RepositionedImportOptions {
  /** A gov export file; it is read twice (standard input must be saved to a file first). */
  file: string;
  target: RepositioningImportTarget;
  /** Continue an import of this same file that stopped part way, instead of refusing a non-empty store. */
  resume?: boolean;
  onProgress?: (phase: 'verify' | 'import', progress: Progress) => void;
}

export interface RepositionedImportResult {
  header: ExportHeader;
  trailer: ExportTrailer;
  /** Events appended by this run. */
  appended: number;
  /** Events a resumed import found already stored, exactly as the export has them. */
  kept: number;
  /** The store's position of the last event of the export. */
  last_position: number;
  /** Admissions no tree head of the export integrates (the source's sequencer had not caught up). */
  unintegrated: number;
}

/** The store already holds events, and no resume was asked: nothing was written. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';
  constructor(readonly head: number) {
    super(`the store already holds events (head position ${head})`);
  }
}

/** An event of the export cannot be stored as it is, or a resume found other events: nothing was written. */
export class ImportRefusedError extends Error {
  override readonly name = 'ImportRefusedError';
}

/** Appending stopped part way: `appended` events of this run (after `kept` earlier ones) stay stored. */
export class ImportInterruptedError extends Error {
  override readonly name = 'ImportInterruptedError';
  constructor(
    readonly appended: number,
    readonly kept: number,
    readonly total: number,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

export async function importWithNewPositions(
  options: RepositionedImportOptions,
): Promise<RepositionedImportResult> {
  const { file, target } = options;
  const head = await target.headPosition();
  if (head !== 0 && !options.resume) throw new TargetNotEmptyError(head);
  const { header, trailer } = await verifyWhole(options);

  if (!options.resume) {
    // Checked again: another writer may have appended while the file was being verified.
    const now = await target.headPosition();
    if (now !== 0) throw new TargetNotEmptyError(now);
  }
  const positions = new LeafPositionMap();
  const progress = new TransferProgress(header.head_position);
  let kept = 0;
  let appended = 0;
  let lastPosition = 0;
  const report = (event: RecordedEvent) => {
    if (progress.record(event.position)) options.onProgress?.('import', progress.snapshot());
  };
  const events = readExportFile(file);
  const fresh = options.resume
    ? afterStored(events, target, positions, (event, position) => {
        kept += 1;
        lastPosition = position;
        report(event);
      })
    : events;
  try {
    await target.appendRecorded(fresh, {
      translate: (event) => positions.translate(event),
      onAppended: (event, position) => {
        positions.appended(event, position);
        appended += 1;
        lastPosition = position;
        report(event);
      },
    });
  } catch (error) {
    if (error instanceof ImportRefusedError) throw error;
    throw new ImportInterruptedError(appended, kept, trailer.events, error);
  }
  options.onProgress?.('import', progress.snapshot());
  return {
    header,
    trailer,
    appended,
    kept,
    last_position: lastPosition,
    unintegrated: positions.unintegrated,
  };
}

/**
 * Reads the whole export once, writing nothing: its integrity (the reader throws ExportIntegrityError),
 * that the store can hold every event as it is, and that every tree head names admissions before it.
 */
async function verifyWhole(
  options: RepositionedImportOptions,
): Promise<{ header: ExportHeader; trailer: ExportTrailer }> {
  // Set by the reader's callbacks (the assertion keeps TypeScript from narrowing them to null).
  let header = null as ExportHeader | null;
  let trailer = null as ExportTrailer | null;
  const progress = new TransferProgress(0);
  const positions = new LeafPositionMap();
  const events = readExportFile(options.file, {
    onHeader: (h) => {
      header = h;
      progress.setTarget(h.head_position);
    },
    onTrailer: (t) => {
      trailer = t;
    },
  });
  for await (const event of events) {
    const problem = options.target.importProblem(event);
    if (problem)
      throw new ImportRefusedError(`the event at position ${event.position} (id ${event.id}) ${problem}`);
    positions.translate(event);
    positions.appended(event, event.position);
    if (progress.record(event.position)) options.onProgress?.('verify', progress.snapshot());
  }
  options.onProgress?.('verify', progress.snapshot());
  // The reader yields nothing past a missing header and ends only after a verified trailer.
  if (!header || !trailer) throw new Error('the export ended without a verified header and trailer');
  return { header, trailer };
}

/**
 * The export's events after those the store already holds, which must be the export's first ones,
 * exactly (positions aside, and tree heads as translated): each is reported with its stored position.
 */
async function* afterStored(
  events: AsyncIterable<RecordedEvent>,
  target: RepositioningImportTarget,
  positions: LeafPositionMap,
  onKept: (event: RecordedEvent, position: number) => void,
): AsyncGenerator<RecordedEvent> {
  const stored = target.readAll()[Symbol.asyncIterator]();
  let storedLeft = true;
  let index = 0;
  try {
    for await (const event of events) {
      index += 1;
      if (storedLeft) {
        const next = await stored.next();
        if (!next.done) {
          const expected = positions.translate(event);
          if (!sameEvent(expected, next.value))
            throw new ImportRefusedError(
              `--resume: the store does not hold the beginning of this export: its event ${index} (position ` +
                `${next.value.position}, id ${next.value.id}) is not the export's event ${index} (position ` +
                `${event.position}, id ${event.id})`,
            );
          positions.appended(event, next.value.position);
          onKept(event, next.value.position);
          continue;
        }
        storedLeft = false;
      }
      yield event;
    }
    if (storedLeft && !(await stored.next()).done)
      throw new ImportRefusedError(
        `--resume: the store holds more events than this export (${index}): it is not this export's import`,
      );
    storedLeft = false;
  } finally {
    if (storedLeft) await stored.return?.();
  }
}

/** The same event, whatever position each store gave it. */
function sameEvent(expected: RecordedEvent, stored: RecordedEvent): boolean {
  const { position: _a, ...left } = expected;
  const { position: _b, ...right } = stored;
  return isDeepStrictEqual(left, right);
}
