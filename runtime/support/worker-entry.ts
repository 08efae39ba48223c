import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose entry module is `entryName` in `directory`, with the extension of the
 * caller's own file: `.js` when built, `.ts` under a TypeScript loader (tsx, jest), where the thread
 * needs the loader registered too.
 */
export function startWorker(
  directory: string,
  callerFile: string,
  entryName: string,
  workerData: unknown,
): Worker {
  const entry = path.join(directory, `${entryName}${path.extname(callerFile)}`);
  return entry.endsWith('.ts')
    ? new Worker(`require('tsx/cjs');require(${JSON.stringify(entry)});`, { eval: true, workerData })
    : new Worker(entry, { workerData });
}
