/**
 * Crash-safe file writes: the content goes to a temporary file beside the target, is fsynced, and only
 * then takes the target's name (one atomic rename or link), after which the folder is fsynced so the
 * new name survives a power loss. A reader therefore sees the old file or the new one, never a part.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Temporary files carry this infix; `removeTempFiles` recognises leftovers of a crash by it. */
const TEMP_INFIX = '.tmp-';

function writeTemp(file: string, content: string, mode: number): string {
  const temp = `${file}${TEMP_INFIX}${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = fs.openSync(temp, 'wx', mode);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  return temp;
}

/** Makes the folder's entries durable (a rename is only durable once its folder is synced). */
function fsyncDir(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch {
    return; // platforms that cannot open a folder (Windows) have no folder fsync either
  }
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error;
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `file` atomically, replacing it if present. */
export function writeFileAtomic(file: string, content: string, mode = 0o600): void {
  const temp = writeTemp(file, content, mode);
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDir(path.dirname(file));
}

/**
 * Creates `file` atomically unless it exists: a hard link never replaces its target, so two writers
 * racing keep exactly one content. Returns whether this call created it.
 */
export function createFileAtomic(file: string, content: string, mode = 0o600): boolean {
  const temp = writeTemp(file, content, mode);
  try {
    fs.linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  fsyncDir(path.dirname(file));
  return true;
}

/** Deletes the temporary files a crashed writer left in `dir`; call it only while holding the folder's lock. */
export function removeTempFiles(dir: string): string[] {
  const leftovers = fs.readdirSync(dir).filter((name) => name.includes(TEMP_INFIX));
  for (const name of leftovers) fs.rmSync(path.join(dir, name), { force: true });
  return leftovers;
}

/** A text file's content, or null when it does not exist (any other error is thrown). */
export function readTextIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
