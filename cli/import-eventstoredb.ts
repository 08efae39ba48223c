/**
 * `gov import` into EventStoreDB: the messages, progress bars and exit codes around
 * importWithNewPositions (./repositioned-import.ts), and standard input saved to a temporary file,
 * since the export is read twice (verified whole, then appended).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { RepositioningImportTarget } from '../adapters/ndjson/event-stores';
import { ExportIntegrityError } from '../adapters/ndjson/export-file';
import { LeafPositionError } from '../projectors/log/leaf-positions';
import { type Progress, ProgressBar } from '../runtime/support/progress-bar';
import { EXIT } from './command';
import { printImportSummary } from './import-summary';
import {
  ImportInterruptedError,
  ImportRefusedError,
  importWithNewPositions,
  type RepositionedImportResult,
  TargetNotEmptyError,
} from './repositioned-import';

export interface EventStoreDbImport {
  target: RepositioningImportTarget;
  /** The store in messages, without a password. */
  storeName: string;
  /** The export file, or `-` for standard input. */
  file: string;
  json: boolean;
  resume: boolean;
}

export async function importIntoEventStoreDb(options: EventStoreDbImport): Promise<number> {
  const { file, storeName } = options;
  const source = file === '-' ? 'standard input' : file;
  let saved: { file: string; remove(): void } | null = null;
  const bars = options.json ? null : new PhaseBars();
  const started = performance.now();
  let result: RepositionedImportResult;
  try {
    saved = file === '-' ? await saveStandardInput() : null;
    result = await importWithNewPositions({
      file: saved?.file ?? file,
      target: options.target,
      resume: options.resume,
      onProgress: (phase, progress) => bars?.update(phase, progress),
    });
  } catch (error) {
    bars?.finish();
    console.error(`gov import: ${failureMessage(error, source, storeName)}`);
    return EXIT.failure;
  } finally {
    saved?.remove();
  }
  bars?.finish();
  const seconds = (performance.now() - started) / 1000;
  const { header, trailer } = result;
  if (options.json)
    printImportSummary({
      file,
      storeName,
      header,
      trailer,
      appended: result.appended,
      alreadyImported: result.kept,
      lastPosition: result.last_position,
      seconds,
    });
  else
    console.log(
      `imported ${trailer.events} events (exported ${header.exported_at} from ${header.source}) into ${storeName} ` +
        `in ${seconds.toFixed(2)} s` +
        (result.kept > 0 ? ` (${result.kept} were already there from an earlier run)` : '') +
        '; checksum verified before anything was appended. EventStoreDB gave the events positions of its own, ' +
        `up to ${result.last_position}; tree heads name their admissions by these. ` +
        'Copy the keys folder of the source, then build the read models.',
    );
  return EXIT.ok;
}

function failureMessage(error: unknown, source: string, storeName: string): string {
  if (error instanceof TargetNotEmptyError)
    return (
      `${storeName} already holds events (head position ${error.head}); import only into an empty database, ` +
      'or continue an import of this same file that stopped part way with --resume. Nothing was written.'
    );
  if (error instanceof ExportIntegrityError)
    return `${source} is not an intact gov-events export: line ${error.line}: ${error.reason}. Nothing was written.`;
  if (error instanceof ImportRefusedError || error instanceof LeafPositionError)
    return `${source} cannot be imported into ${storeName}: ${error.message}. Nothing was written.`;
  if (error instanceof ImportInterruptedError) {
    const stored = error.kept + error.appended;
    return (
      `the import stopped after ${stored} of ${error.total} events: ${error.message}. EventStoreDB cannot take ` +
      `back the ${stored} events stored; run the same command with --resume to append the rest.`
    );
  }
  return `${(error as Error).message}. Nothing was written.`;
}

/** One progress bar per phase (verify, then import); a phase's bar is finished when the next starts. */
class PhaseBars {
  private readonly bars = { verify: new ProgressBar('verify'), import: new ProgressBar('import') };
  private shown: { phase: 'verify' | 'import'; last: Progress } | null = null;

  update(phase: 'verify' | 'import', progress: Progress): void {
    if (this.shown && this.shown.phase !== phase) this.finish();
    this.shown = { phase, last: progress };
    this.bars[phase].update(progress);
  }

  finish(): void {
    if (this.shown) this.bars[this.shown.phase].finish(this.shown.last);
    this.shown = null;
  }
}

/** Standard input in a temporary file of its own (read twice by the import), removed afterwards. */
async function saveStandardInput(): Promise<{ file: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gov-import-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  const file = path.join(dir, 'events.ndjson');
  try {
    await pipeline(process.stdin, fs.createWriteStream(file, { mode: 0o600 }));
  } catch (error) {
    remove();
    throw error;
  }
  return { file, remove };
}
