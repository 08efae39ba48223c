/**
 * Who may write `<data>/keys`, and whether a server is using it.
 *
 *   keys.lock    held (exclusively created) by whoever writes key files or the history: `gov keys`
 *                and a starting server. Two rotations can never interleave, and a server never loads
 *                a keyring half way through a rotation.
 *   in-use.json  written by a server once it has loaded its keys and removed when it stops. `gov keys`
 *                refuses to change keys while it is there: a running server keeps signing with the keys
 *                it loaded, and a retired signing key must not sign again.
 *
 * Both name the process (pid, host). A file left by a process that is gone is reported, never broken
 * silently: two processes that both decided a lock was stale could otherwise both take it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTextIfExists, writeFileAtomic } from '../support/atomic-file';

export const LOCK_FILE = 'keys.lock';
export const IN_USE_FILE = 'in-use.json';

interface ProcessMark {
  pid: number;
  host: string;
  /** What holds it, for the message another process prints. */
  purpose: string;
  since: string;
  /** Tells this holder's mark from a later one written by another process with the same pid. */
  token: string;
}

/** The keys folder is locked or in use by another process; the message says what to do. */
export class KeysFolderBusyError extends Error {
  override readonly name = 'KeysFolderBusyError';
}

function newMark(purpose: string): ProcessMark {
  return {
    pid: process.pid,
    host: os.hostname(),
    purpose,
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
}

function readMark(file: string): ProcessMark | null {
  const text = readTextIfExists(file);
  if (text === null) return null;
  try {
    const mark = JSON.parse(text) as Partial<ProcessMark>;
    if (typeof mark.pid === 'number' && typeof mark.host === 'string') return mark as ProcessMark;
  } catch {
    // fall through: a file cut short by a crash while it was written
  }
  return { pid: 0, host: '?', purpose: 'an unknown process', since: '?', token: '' };
}

/** Whether the process of `mark` is alive; null when it runs on another host (cannot be known here). */
function isAlive(mark: ProcessMark): boolean | null {
  if (mark.host !== os.hostname()) return null;
  if (mark.pid <= 0) return false;
  try {
    process.kill(mark.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describe(mark: ProcessMark): string {
  const alive = isAlive(mark);
  const state = alive === null ? '' : alive ? ', running' : ', no longer running';
  return `${mark.purpose} (pid ${mark.pid} on host ${mark.host}${state}, since ${mark.since})`;
}

function tryLock(file: string, mark: ProcessMark): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeFileSync(fd, `${JSON.stringify(mark)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function unlockIfOurs(file: string, mark: ProcessMark): void {
  if (readMark(file)?.token === mark.token) fs.rmSync(file, { force: true });
}

export interface LockOptions {
  /** Says who holds the lock, in the message of a process that finds it taken. */
  purpose: string;
  /** How long to wait for a lock held by another process before giving up (default: do not wait). */
  waitMs?: number;
}

/** Runs `work` holding the keys folder's lock; throws KeysFolderBusyError when another process holds it. */
export async function withKeysLock<T>(
  keysDir: string,
  options: LockOptions,
  work: () => T | Promise<T>,
): Promise<T> {
  const file = path.join(keysDir, LOCK_FILE);
  const mark = newMark(options.purpose);
  const deadline = Date.now() + (options.waitMs ?? 0);
  while (!tryLock(file, mark)) {
    if (Date.now() >= deadline) {
      const holder = readMark(file);
      throw new KeysFolderBusyError(
        `${keysDir} is locked by ${holder ? describe(holder) : 'another process'}: wait for it to finish. ` +
          `If that process is gone (it crashed while writing keys), check the keys, then delete ${file}.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  try {
    return await work();
  } finally {
    unlockIfOurs(file, mark);
  }
}

/** Throws KeysFolderBusyError when a server may be using the keys (call it holding the lock). */
export function assertNoServerUsing(keysDir: string, action: string): void {
  const file = path.join(keysDir, IN_USE_FILE);
  const server = readMark(file);
  if (!server || isAlive(server) === false) return; // none, or one that crashed on this host
  throw new KeysFolderBusyError(
    `cannot ${action}: ${describe(server)} uses ${keysDir} and would keep signing with the keys it ` +
      `loaded. Stop the server, run this again, then start the server. If no server runs on ` +
      `host ${server.host} (it crashed), delete ${file}.`,
  );
}

/** Marks the keys as used by this server (call it holding the lock); the returned function unmarks. */
export function markServerUsing(keysDir: string, purpose: string): () => void {
  const file = path.join(keysDir, IN_USE_FILE);
  const mark = newMark(purpose);
  // A mark left by a crashed server is simply replaced; a live one too (its stop then keeps ours).
  writeFileAtomic(file, `${JSON.stringify(mark)}\n`);
  return () => unlockIfOurs(file, mark);
}
