/**
 * The witness's memory: per log origin, the size and root hash of the latest tree it cosigned. It is
 * what stops the witness from ever signing two views of one log, so it is written durably (temporary
 * file, fsync, rename, fsync of the folder) before any cosignature leaves the process, and one process
 * at a time holds it (`<file>.lock`, see state-lock.ts).
 *
 * Format (JSON): { "format": "gov-witness-state/1",
 *                  "logs": { "<origin>": { "size": 12, "root_hash": "<hex>", "updated_at": "<ISO>" } } }
 */
import fs from 'node:fs';
import path from 'node:path';
import { bytesEqual, fromHex, toHex, type WitnessLogState, type WitnessStateStore } from '../merkle-core';
import { writeFileAtomic } from '../runtime/support/atomic-file';
import { StateLock } from './state-lock';

const FORMAT = 'gov-witness-state/1';

export class WitnessStateError extends Error {
  override readonly name = 'WitnessStateError';
}

interface StoredLogState {
  size: number;
  root_hash: string;
  updated_at: string;
}

interface StateDocument {
  format: typeof FORMAT;
  logs: Record<string, StoredLogState>;
}

/** One log's entry: the latest tree cosigned, and when the entry last changed. */
export interface WitnessLogEntry extends WitnessLogState {
  readonly updatedAt: string;
}

/** Parses a state file's text; throws WitnessStateError saying what is wrong. */
function parseWitnessState(text: string, file: string): Map<string, WitnessLogEntry> {
  const broken = (why: string) =>
    new WitnessStateError(
      `${file} is not a usable witness state file (${why}). Restore it from a backup: without it the witness would treat every log as new and could cosign a forked tree.`,
    );
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw broken(`not JSON: ${(error as Error).message}`);
  }
  const doc = document as Partial<StateDocument> | null;
  if (doc === null || typeof doc !== 'object' || doc.format !== FORMAT)
    throw broken(`"format" must be "${FORMAT}"`);
  if (doc.logs === null || typeof doc.logs !== 'object' || Array.isArray(doc.logs))
    throw broken('"logs" must be an object');
  const entries = new Map<string, WitnessLogEntry>();
  for (const [origin, entry] of Object.entries(doc.logs)) {
    const valid =
      entry !== null &&
      typeof entry === 'object' &&
      Number.isSafeInteger(entry.size) &&
      entry.size >= 0 &&
      typeof entry.root_hash === 'string' &&
      /^[0-9a-f]{64}$/.test(entry.root_hash);
    if (!valid) throw broken(`the entry of ${JSON.stringify(origin)} needs a size and a 64-hex root_hash`);
    entries.set(origin, {
      size: entry.size,
      rootHash: fromHex(entry.root_hash),
      updatedAt: typeof entry.updated_at === 'string' ? entry.updated_at : '',
    });
  }
  return entries;
}

/** The file's text for `entries`, origins sorted so the file diffs cleanly. */
function formatWitnessState(entries: ReadonlyMap<string, WitnessLogEntry>): string {
  const logs: Record<string, StoredLogState> = {};
  for (const origin of [...entries.keys()].sort()) {
    const entry = entries.get(origin)!;
    logs[origin] = { size: entry.size, root_hash: toHex(entry.rootHash), updated_at: entry.updatedAt };
  }
  const document: StateDocument = { format: FORMAT, logs };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function sameState(a: WitnessLogState | undefined, b: WitnessLogState | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.size === b.size && bytesEqual(a.rootHash, b.rootHash);
}

/**
 * A `WitnessStateStore` over one JSON file. Open it with `FileWitnessStateStore.open`, which takes
 * the lock; `close` releases it. Between the two, this process is the only writer, so the copy in
 * memory is the file's content and `compareAndSet` is atomic.
 */
export class FileWitnessStateStore implements WitnessStateStore {
  private constructor(
    readonly file: string,
    private entries: ReadonlyMap<string, WitnessLogEntry>,
    private readonly lock: StateLock,
    private readonly now: () => Date,
  ) {}

  /** Locks and reads `file` (a missing file is an empty state: every log is new). */
  static open(file: string, now: () => Date = () => new Date()): FileWitnessStateStore {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const lock = StateLock.acquire(`${file}.lock`, file);
    try {
      let text: string | null = null;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const entries = text === null ? new Map() : parseWitnessState(text, file);
      return new FileWitnessStateStore(file, entries, lock, now);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  get(origin: string): WitnessLogState | undefined {
    const entry = this.entries.get(origin);
    return entry && { size: entry.size, rootHash: entry.rootHash.slice() };
  }

  compareAndSet(origin: string, expected: WitnessLogState | undefined, next: WitnessLogState): boolean {
    if (!sameState(this.get(origin), expected)) return false;
    const entries = new Map(this.entries).set(origin, {
      size: next.size,
      rootHash: next.rootHash.slice(),
      updatedAt: this.now().toISOString(),
    });
    // On disk first: if the write fails, memory still says what the file says.
    writeFileAtomic(this.file, formatWitnessState(entries));
    this.entries = entries;
    return true;
  }

  close(): void {
    this.lock.release();
  }
}
