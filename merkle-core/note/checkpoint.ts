/**
 * C2SP tlog-checkpoint body: origin line, decimal tree size, base64 root hash, then optional
 * extension lines, each ending in a newline. Portable (no Node APIs).
 */
import { fromBase64, toBase64 } from '../encoding/bytes';

export interface Checkpoint {
  /** Unique identifier of the log, e.g. "example.com/log"; also its signing key's name. */
  readonly origin: string;
  readonly size: number;
  readonly rootHash: Uint8Array;
  /** Extension lines, without their newlines. */
  readonly extensions: readonly string[];
}

export class CheckpointFormatError extends Error {
  override readonly name = 'CheckpointFormatError';
}

/** The checkpoint text that gets signed. */
export function formatCheckpoint({ origin, size, rootHash, extensions }: Checkpoint): string {
  if (origin.length === 0 || origin.includes('\n'))
    throw new CheckpointFormatError('origin must be one non-empty line');
  if (!Number.isSafeInteger(size) || size < 0) throw new CheckpointFormatError(`bad tree size ${size}`);
  if (rootHash.length !== 32) throw new CheckpointFormatError('root hash must be 32 bytes');
  for (const line of extensions) {
    if (line.length === 0 || line.includes('\n'))
      throw new CheckpointFormatError('extension lines must be non-empty lines');
  }
  return [origin, String(size), toBase64(rootHash), ...extensions].map((l) => `${l}\n`).join('');
}

/** Parses a checkpoint body (the text of a signed note); throws CheckpointFormatError. */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw new CheckpointFormatError('checkpoint must end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw new CheckpointFormatError('checkpoint needs origin, size and root hash lines');
  const [origin, sizeText, rootText, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin.length === 0) throw new CheckpointFormatError('empty origin line');
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) {
    throw new CheckpointFormatError(`bad tree size ${JSON.stringify(sizeText)}`);
  }
  let rootHash: Uint8Array;
  try {
    rootHash = fromBase64(rootText);
  } catch {
    throw new CheckpointFormatError('root hash is not valid base64');
  }
  if (rootHash.length !== 32) throw new CheckpointFormatError('root hash must be 32 bytes');
  if (extensions.some((l) => l.length === 0)) throw new CheckpointFormatError('empty extension line');
  return { origin, size: Number(sizeText), rootHash, extensions };
}
