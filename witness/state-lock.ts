/**
 * One witness process per state file: two processes following one log from one state could each
 * cosign a different extension of the same tree, which is exactly what a witness must never do.
 *
 * The lock is a file created atomically beside the state, naming its holder (pid, host, a random
 * token). A lock whose holder runs on this host and is gone, or has this process's pid without being
 * held here (a restarted container reuses pids), is stale and taken over; one held by a live process,
 * or by a process on another host sharing the folder, is an error saying what to do.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFileAtomic } from '../runtime/support/atomic-file';

export class StateLockBusyError extends Error {
  override readonly name = 'StateLockBusyError';
}

interface LockMark {
  pid: number;
  host: string;
  token: string;
  since: string;
}

/** Locks held by this process, by path: a second opening here is refused, not mistaken for stale. */
const heldHere = new Set<string>();

export class StateLock {
  private released = false;

  private constructor(
    readonly file: string,
    private readonly token: string,
  ) {}

  /** Takes the lock `file` guarding `what` (named in errors), taking over a stale one. */
  static acquire(file: string, what: string): StateLock {
    const resolved = path.resolve(file);
    if (heldHere.has(resolved)) throw new StateLockBusyError(`${what} is already open in this process`);
    const mark: LockMark = {
      pid: process.pid,
      host: os.hostname(),
      token: randomBytes(8).toString('hex'),
      since: new Date().toISOString(),
    };
    for (let attempt = 0; attempt < 5; attempt++) {
      if (createFileAtomic(file, `${JSON.stringify(mark)}\n`)) {
        heldHere.add(resolved);
        return new StateLock(file, mark.token);
      }
      const text = readOrNull(file);
      if (text === null) continue;
      const holder = parseMark(text);
      const busy = holder && busyReason(holder);
      if (busy) {
        throw new StateLockBusyError(
          `${what} is in use by ${busy}; stop that witness or give this one its own --state. If you are sure no process uses it, delete ${file}.`,
        );
      }
      takeOver(file, text);
    }
    throw new StateLockBusyError(`could not lock ${what} (lock file ${file}); retry`);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    heldHere.delete(path.resolve(this.file));
    const text = readOrNull(this.file);
    if (text !== null && parseMark(text)?.token === this.token) fs.rmSync(this.file, { force: true });
  }
}

/** Why the holder still counts, or null when its lock is stale. */
function busyReason(holder: LockMark): string | null {
  const who = `pid ${holder.pid} on host ${holder.host} (since ${holder.since})`;
  if (holder.host !== os.hostname()) return `${who}, which this host cannot check`;
  if (holder.pid === process.pid) return null;
  try {
    process.kill(holder.pid, 0);
    return who;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? who : null;
  }
}

/**
 * Removes the stale lock whose content is `staleText`. It is first moved aside (atomic: of two
 * processes taking over at once, one moves it); if what was moved is not that lock any more, another
 * process took it over meanwhile, and it is put back.
 */
function takeOver(file: string, staleText: string): void {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (readOrNull(aside) !== staleText) {
    try {
      fs.linkSync(aside, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  fs.rmSync(aside, { force: true });
}

function parseMark(text: string): LockMark | null {
  try {
    const mark = JSON.parse(text) as Partial<LockMark>;
    if (typeof mark.pid === 'number' && typeof mark.host === 'string' && typeof mark.token === 'string')
      return { pid: mark.pid, host: mark.host, token: mark.token, since: String(mark.since ?? '?') };
  } catch {
    // not a lock this code wrote whole: treated as stale below
  }
  return null;
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
