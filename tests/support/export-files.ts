import fs from 'node:fs';
import { writeExport } from '../../adapters/ndjson/export-writer';
import type { RecordedEvent } from '../../ports/event-store';

/** Writes `events` to `file` as `gov export` would (header, one line per event, verified trailer). */
export async function writeExportFile(events: readonly RecordedEvent[], file: string): Promise<string> {
  const output = fs.createWriteStream(file);
  await writeExport({
    store: {
      headPosition: async () => events[events.length - 1]?.position ?? 0,
      readAll: async function* () {
        yield* events;
      },
    },
    source: 'sqlite:/test/events.db',
    output,
  });
  await new Promise((resolve) => output.end(resolve));
  return file;
}
