import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Gives the calling thread (a worker thread: Linux schedules each thread apart) the niceness `nice`,
 * so that on cores the admission path keeps busy it yields to the threads that run at the process's
 * priority. Elsewhere (no /proc/thread-self: not Linux), or where not allowed, nothing changes.
 */
export function niceThisThread(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // the thread keeps the process's priority
  }
}
