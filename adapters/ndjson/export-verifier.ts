import { createHash, type Hash } from 'node:crypto';
import type { RecordedEvent } from '../../ports/event-store';
import {
  decodeEvent,
  decodeHeader,
  decodeTrailer,
  type ExportHeader,
  ExportIntegrityError,
  type ExportTrailer,
  isTrailerObject,
  parseObjectLine,
} from './format';
import type { Line } from './lines';

/**
 * Checks a `gov-events` export line by line, with constant memory: header first, events in strictly
 * increasing position order up to the header's head position, then a trailer whose count, last
 * position and SHA-256 match what came before, then nothing. Each check throws ExportIntegrityError
 * at the line where it fails. No I/O: lines come from `splitLines`.
 */
export class ExportVerifier {
  private readonly hash: Hash = createHash('sha256');
  private headerSeen: ExportHeader | null = null;
  private trailerSeen: ExportTrailer | null = null;
  private count = 0;
  private lastPosition = 0;
  private lastLine = 0;

  get header(): ExportHeader | null {
    return this.headerSeen;
  }

  /** The event the line holds; null for the header and the (verified) trailer. */
  accept(line: Line): RecordedEvent | null {
    this.lastLine = line.number;
    if (this.trailerSeen)
      throw new ExportIntegrityError(line.number, 'unexpected content after the trailer line');
    // Only the trailer may lack its newline: any other unterminated line is a cut-off file.
    const value = this.parse(line);
    if (!this.headerSeen) {
      if (!line.terminated) throw truncatedAt(line.number);
      this.headerSeen = decodeHeader(value, line.number);
      this.digest(line);
      return null;
    }
    if (isTrailerObject(value)) {
      this.trailerSeen = this.checkTrailer(decodeTrailer(value, line.number), line.number);
      return null;
    }
    if (!line.terminated) throw truncatedAt(line.number);
    const event = decodeEvent(value, line.number);
    this.checkOrder(event, this.headerSeen, line.number);
    this.digest(line);
    this.count += 1;
    this.lastPosition = event.position;
    return event;
  }

  /** Call at the end of the input: the verified trailer, or an error for a file without one. */
  finish(): ExportTrailer {
    if (this.trailerSeen) return this.trailerSeen;
    if (!this.headerSeen) throw new ExportIntegrityError(1, 'the file is empty: it has no header line');
    throw new ExportIntegrityError(
      this.lastLine + 1,
      `the file ends after ${this.count} events without a trailer line: it is truncated`,
    );
  }

  private parse(line: Line): Record<string, unknown> {
    try {
      return parseObjectLine(line.bytes.toString('utf8'), line.number);
    } catch (error) {
      throw line.terminated ? error : truncatedAt(line.number);
    }
  }

  private digest(line: Line): void {
    this.hash.update(line.bytes);
    this.hash.update(NEWLINE);
  }

  private checkOrder(event: RecordedEvent, header: ExportHeader, line: number): void {
    if (event.position <= this.lastPosition)
      throw new ExportIntegrityError(
        line,
        `event position ${event.position} does not follow position ${this.lastPosition}: events must be in strictly increasing position order`,
      );
    if (event.position > header.head_position)
      throw new ExportIntegrityError(
        line,
        `event position ${event.position} is beyond the header's head_position ${header.head_position}`,
      );
  }

  private checkTrailer(trailer: ExportTrailer, line: number): ExportTrailer {
    if (trailer.events !== this.count)
      throw new ExportIntegrityError(
        line,
        `the trailer counts ${trailer.events} events but the file holds ${this.count}`,
      );
    if (trailer.last_position !== this.lastPosition)
      throw new ExportIntegrityError(
        line,
        `the trailer's last_position is ${trailer.last_position} but the last event is at position ${this.lastPosition}`,
      );
    const actual = this.hash.digest('hex');
    if (trailer.sha256 !== actual)
      throw new ExportIntegrityError(
        line,
        `checksum mismatch: the trailer says sha256 ${trailer.sha256} but the preceding bytes hash to ${actual}; the file was altered or damaged`,
      );
    return trailer;
  }
}

const NEWLINE = Buffer.from('\n');

function truncatedAt(line: number): ExportIntegrityError {
  return new ExportIntegrityError(
    line,
    'the file ends in the middle of this line and has no trailer: it is truncated',
  );
}
