import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { ImportableEventStore } from '../adapters/ndjson/event-stores';
import {
  type ExportHeader,
  ExportIntegrityError,
  type ExportTrailer,
  readExportFile,
  readExportStream,
} from '../adapters/ndjson/export-file';
import { TransferProgress } from '../adapters/ndjson/transfer-progress';
import type { RecordedEvent } from '../ports/event-store';
import { ProgressBar } from '../runtime/support/progress-bar';
import { type CliCommand, EXIT, UsageError } from './command';
import { importIntoEventStoreDb } from './import-eventstoredb';
import { printImportSummary } from './import-summary';
import {
  chooseEventStore,
  openTransferStore,
  STORE_LOCATION_HELP,
  SUPPORTED_STORES_HELP,
  type TransferStore,
} from './stores';

const USAGE = 'gov import FILE|- [--store FILE|URL] [--resume] [--json]';

export const importCommand: CliCommand = {
  name: 'import',
  synopsis: USAGE,
  summary: 'load a gov export file into an empty event store, verified before anything is committed',
  help: `Usage: ${USAGE}

Loads a gov-events NDJSON file written by \`gov export\` (\`-\`: standard input) into an EMPTY event
store. A store that already holds events is refused, and nothing is written.

Into the embedded store, every event keeps its id, stream, revision, position and recorded_at exactly.
The whole file is verified (format, position order, event count, SHA-256 checksum) inside one
transaction that is committed only after the trailer has been checked: a truncated, altered or
malformed file imports nothing and leaves the store empty.

Into EventStoreDB (--store esdb://…, or GOV_EVENT_STORE_URL), every event keeps its id, stream,
revision, data and recorded_at (carried in its metadata), but EventStoreDB gives it a position of its
own: each tree head's leaf_positions are translated to the new positions of the same admissions, and
everything signed stays as it was. EventStoreDB cannot roll appends back, so the whole file is
verified first (checksum, order, every event storable, every tree head naming admissions before it)
and only then appended, in the export's order, each event at its revision. Standard input is saved to
a temporary file for that. If the import stops part way (a lost connection), run the same command
with --resume: it checks that the database holds exactly the export's first events and appends the
rest.

Keys are not part of the event stream: copy the source's <data>/keys folder into the new data folder,
then build the read models (\`gov rebuild\`, or projectors started on an empty read store) before
serving.

Options:
  --store FILE|URL  the event store to import into: an embedded store's SQLite file (created if
                    missing) or an EventStoreDB URL. Default: GOV_EVENT_STORE_URL if set, else the
                    server's store
  --resume          EventStoreDB only: continue an import of this same file that stopped part way
  --json            print the result as JSON instead of the progress bar and summary line

${SUPPORTED_STORES_HELP}
${STORE_LOCATION_HELP}

Exit codes: 0 imported, 1 failed (store not empty, damaged file…: nothing imported; an import into
EventStoreDB that stopped part way says how many events it stored: continue it with --resume), 2 usage
error.`,
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, store: { type: 'string' }, resume: { type: 'boolean' } },
    });
    if (positionals.length !== 1)
      throw new UsageError(`give one export file (or - for standard input); usage: ${USAGE}`);
    const file = positionals[0]!;
    const json = Boolean(values.json);
    if (file !== '-' && !isReadableFile(file)) {
      console.error(`gov import: cannot read ${file}: no such file, or not a readable file`);
      return EXIT.failure;
    }
    const location = chooseEventStore(values.store);
    if (values.resume && location.kind !== 'eventstoredb')
      throw new UsageError(
        '--resume applies to EventStoreDB only: an import into the embedded store is all or nothing',
      );
    let opened: TransferStore;
    try {
      opened = await openTransferStore(location);
    } catch (error) {
      console.error(`gov import: ${(error as Error).message}. Nothing was written.`);
      return EXIT.failure;
    }
    const { store, importer, name } = opened;
    try {
      return importer.kind === 'atomic'
        ? await importAtomically(importer.store, name, file, json)
        : await importIntoEventStoreDb({
            target: importer.store,
            storeName: name,
            file,
            json,
            resume: Boolean(values.resume),
          });
    } finally {
      await store.close();
    }
  },
};

async function importAtomically(
  store: ImportableEventStore,
  storeName: string,
  file: string,
  json: boolean,
): Promise<number> {
  const head = await store.headPosition();
  if (head !== 0) {
    console.error(
      `gov import: the event store at ${storeName} already holds events (head position ${head}); ` +
        'import only into an empty store (a fresh GOV_DATA_DIR). Nothing was written.',
    );
    return EXIT.failure;
  }

  const bar = json ? null : new ProgressBar('import');
  const progress = new TransferProgress(0);
  // Set by the reader's callbacks (the assertion keeps TypeScript from narrowing them to null).
  let header = null as ExportHeader | null;
  let trailer = null as ExportTrailer | null;
  const options = {
    onHeader: (h: ExportHeader) => {
      header = h;
      progress.setTarget(h.head_position);
    },
    onTrailer: (t: ExportTrailer) => {
      trailer = t;
    },
  };
  const source = file === '-' ? readExportStream(process.stdin, options) : readExportFile(file, options);
  async function* reported(): AsyncGenerator<RecordedEvent> {
    for await (const event of source) {
      if (progress.record(event.position)) bar?.update(progress.snapshot());
      yield event;
    }
  }

  const started = performance.now();
  try {
    await store.importEvents(reported());
  } catch (error) {
    bar?.finish(progress.snapshot());
    console.error(
      `gov import: ${failureMessage(error, file)} Nothing was imported: the event store is still empty.`,
    );
    return EXIT.failure;
  }
  const seconds = (performance.now() - started) / 1000;
  const final = progress.snapshot();
  bar?.finish(final);
  // The reader yields nothing past a missing header and ends only after a verified trailer.
  if (!header || !trailer) throw new Error('the import ended without a verified header and trailer');
  if (json)
    printImportSummary({
      file,
      storeName,
      header,
      trailer,
      appended: trailer.events,
      alreadyImported: 0,
      lastPosition: trailer.last_position,
      seconds,
    });
  else
    console.log(
      `imported ${trailer.events} events (up to position ${trailer.last_position}, exported ${header.exported_at} from ${header.source}) ` +
        `into ${storeName} in ${seconds.toFixed(2)} s; checksum verified. ` +
        'Copy the keys folder of the source, then run `gov rebuild`.',
    );
  return EXIT.ok;
}

function failureMessage(error: unknown, file: string): string {
  const name = file === '-' ? 'standard input' : file;
  if (error instanceof ExportIntegrityError)
    return `${name} is not an intact gov-events export: line ${error.line}: ${error.reason}.`;
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_BUSY')
    return 'the event store is locked by another process: stop the server using it, then retry.';
  return `${(error as Error).message}.`;
}

function isReadableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
