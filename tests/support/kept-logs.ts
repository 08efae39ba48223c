/**
 * The logs of a failed end-to-end run, kept: the test's temporary folder is removed when it ends, and a
 * failure's message holds only the last lines of each process. Copies every `*.log` under `from`
 * (each role's whole output, the broker's and the read store's server logs), leaving data out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Copies the logs to a new folder under the system's temporary folder and returns its path. */
export function keepLogs(from: string, prefix: string): string {
  const kept = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  for (const file of logFiles(from)) {
    const target = path.join(kept, path.relative(from, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
  return kept;
}

function logFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    // Kafka's partition segments are `*.log` files too: its data folder is not a log.
    if (entry.isDirectory() && entry.name !== 'data') found.push(...logFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.log')) found.push(full);
  }
  return found;
}
