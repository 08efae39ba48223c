import { once } from 'node:events';
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { type ExportSummary, writeExport } from '../adapters/ndjson/export-writer';
import { type Progress, ProgressBar } from '../runtime/support/progress-bar';
import { type CliCommand, EXIT, UsageError } from './command';
import {
  chooseEventStore,
  noEventStoreMessage,
  openTransferStore,
  STORE_LOCATION_HELP,
  SUPPORTED_STORES_HELP,
  type TransferStore,
} from './stores';

const USAGE = 'gov export [--store FILE|URL] [--out FILE|-] [--json]';

export const exportCommand: CliCommand = {
  name: 'export',
  synopsis: USAGE,
  summary: 'write the whole event stream as a checksummed NDJSON file',
  help: `Usage: ${USAGE}

Writes every event of the event store as a gov-events NDJSON file: a header line
({"format":"gov-events","version":1,"exported_at","source","head_position"}), then one line per event
in position order with every member kept (id, type, stream, revision, position, recorded_at,
tenant_id, correlation_id, causation_id, schema_version, data), then a trailer line
({"trailer":true,"events","last_position","sha256"}) whose sha256 covers every byte before it.
The export is a consistent snapshot up to the head position read when it starts: a running server
may keep appending meanwhile. \`gov import\` loads the file into an empty store.

Options:
  --store FILE|URL  the event store to export: an EventStoreDB URL (esdb://host:2113?tls=false) or an
                    embedded store's SQLite file. Default: GOV_EVENT_STORE_URL if set, else the
                    server's store
  --out FILE        write to FILE (built as FILE.partial, renamed when complete); \`-\` (the default)
                    writes to standard output, which must then not be a terminal
  --json            print a JSON summary instead of the progress bar and summary line (on standard
                    error when the export itself goes to standard output)

${SUPPORTED_STORES_HELP}
${STORE_LOCATION_HELP}

Exit codes: 0 done, 1 failed (no event store, EventStoreDB not answering, unwritable file…), 2 usage
error.`,
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { out: { type: 'string' }, json: { type: 'boolean' }, store: { type: 'string' } },
    });
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument '${positionals[0]}'; usage: ${USAGE}`);
    const out = values.out ?? '-';
    if (out === '') throw new UsageError('--out needs a file name, or - for standard output');
    if (out === '-' && process.stdout.isTTY)
      throw new UsageError(
        'refusing to write the export to a terminal: give --out FILE or redirect standard output',
      );
    const json = Boolean(values.json);
    const location = chooseEventStore(values.store);
    if (location.kind === 'sqlite' && !fs.existsSync(location.file)) {
      console.error(
        `gov export: ${noEventStoreMessage(location.file, values.store === undefined ? 'configured' : 'named')}`,
      );
      return EXIT.failure;
    }

    let opened: TransferStore;
    try {
      opened = await openTransferStore(location);
    } catch (error) {
      console.error(`gov export: ${(error as Error).message}; no export was written`);
      return EXIT.failure;
    }
    const { store, name } = opened;
    const bar = json ? null : new ProgressBar('export');
    let summary: ExportSummary;
    let lastProgress = null as Progress | null;
    try {
      const write = (output: Writable) =>
        writeExport({
          store,
          source: name,
          output,
          onProgress: (p: Progress) => {
            lastProgress = p;
            bar?.update(p);
          },
        });
      summary = out === '-' ? await write(process.stdout) : await writeFileAtomically(out, write);
    } catch (error) {
      if (lastProgress) bar?.finish(lastProgress);
      console.error(`gov export: ${(error as Error).message}; no export was written`);
      return EXIT.failure;
    } finally {
      await store.close();
    }
    bar?.finish(summary.progress);

    const report = out === '-' ? console.error : console.log;
    if (json)
      report(
        JSON.stringify(
          {
            file: out === '-' ? null : out,
            source: name,
            exported_at: summary.exported_at,
            events: summary.events,
            head_position: summary.head_position,
            last_position: summary.last_position,
            bytes: summary.bytes,
            sha256: summary.sha256,
            seconds: summary.seconds,
            events_per_second: Math.round(summary.progress.rate),
          },
          null,
          2,
        ),
      );
    else
      report(
        `exported ${summary.events} events (up to position ${summary.head_position}) to ${out === '-' ? 'standard output' : out}: ` +
          `${summary.bytes} bytes, sha256 ${summary.sha256}` +
          `, ${summary.seconds.toFixed(2)} s (${Math.round(summary.progress.rate)} events/s)`,
      );
    return EXIT.ok;
  },
};

/**
 * Writes `file` through `FILE.partial`, synced and renamed into place only once complete: a failed or
 * interrupted export never leaves a file under the final name.
 */
async function writeFileAtomically<T>(file: string, write: (output: Writable) => Promise<T>): Promise<T> {
  const partial = `${file}.partial`;
  const stream = fs.createWriteStream(partial, { highWaterMark: 1024 * 1024 });
  try {
    await once(stream, 'open');
    const result = await write(stream);
    await new Promise<void>((resolve, reject) => {
      stream.once('error', reject);
      stream.end(() => resolve());
    });
    await once(stream, 'close');
    // On disk before it gets its final name (Linux: fsync through any descriptor syncs the file).
    const handle = await fs.promises.open(partial, 'r');
    await handle.sync().finally(() => handle.close());
    await fs.promises.rename(partial, file);
    return result;
  } catch (error) {
    stream.destroy();
    await fs.promises.rm(partial, { force: true });
    throw error;
  }
}
