import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** The niceness of a thread, from its /proc stat line (field 19). */
function niceOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** Threads have a niceness of their own, read from /proc, on Linux only. */
const onLinux = process.platform === 'linux' ? it : it.skip;

describe('niceThisThread', () => {
  onLinux(
    'on Linux, given a worker thread that calls it, then that thread runs at the niceness given and the main thread keeps its own',
    async () => {
      const before = niceOf('/proc/thread-self/stat');
      const worker = new Worker(
        `require('tsx/cjs');
         const { parentPort } = require('node:worker_threads');
         const { readFileSync } = require('node:fs');
         const { niceThisThread } = require(${JSON.stringify(require.resolve('./thread-priority'))});
         niceThisThread(7);
         parentPort.postMessage(readFileSync('/proc/thread-self/stat', 'utf8'));`,
        { eval: true },
      );
      const stat = await new Promise<string>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      await worker.terminate();
      expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])).toBe(Math.max(before, 7));
      expect(niceOf('/proc/thread-self/stat')).toBe(before);
    },
  );
});
