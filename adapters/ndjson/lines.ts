import { ExportIntegrityError } from './format';

/** One line of a byte stream, without its `\n`. */
export interface Line {
  /** 1-based. */
  number: number;
  bytes: Buffer;
  /** False only for a last line the stream ended in the middle of (no `\n`). */
  terminated: boolean;
}

/** Longest line accepted: far above the largest event a store accepts (16 MiB), far below memory limits. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Splits a byte stream into lines on `\n` only (a `\r` is content: the checksum covers the exact
 * bytes), holding at most one line in memory. A line longer than `maxLineBytes` is refused before it
 * is buffered whole, so a corrupt file without newlines cannot exhaust memory.
 */
export async function* splitLines(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): AsyncGenerator<Line> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, end);
      number += 1;
      if (pendingBytes + piece.length > maxLineBytes) throw tooLong(number, maxLineBytes);
      const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      start = end + 1;
      yield { number, bytes, terminated: true };
    }
    if (start < chunk.length) {
      // Copied: a stream may reuse its chunk buffers once we ask for the next one.
      const rest = Buffer.from(chunk.subarray(start));
      if (pendingBytes + rest.length > maxLineBytes) throw tooLong(number + 1, maxLineBytes);
      pending.push(rest);
      pendingBytes += rest.length;
    }
  }
  if (pendingBytes > 0) yield { number: number + 1, bytes: Buffer.concat(pending), terminated: false };
}

function tooLong(line: number, maxLineBytes: number): ExportIntegrityError {
  return new ExportIntegrityError(
    line,
    `the line is longer than ${maxLineBytes} bytes: not an event of a gov-events export`,
  );
}
