/**
 * Ordering checks over the whole stream: positions strictly increase, and every stream's revisions run
 * 0, 1, 2… without a gap or a step back. A dropped event leaves a gap in its stream; two events swapped
 * between positions step back. Memory is one number per stream (streams are bounded by tenants and
 * webhooks, never by leaves).
 */
import type { Finding } from './report';

export class StreamOrder {
  private lastPosition: number | null = null;
  private readonly revisions = new Map<string, number>();

  /** The ordering findings of the next event read (one shared empty list when there are none). */
  next(position: number, stream: string, revision: number): readonly Finding[] {
    const last = this.revisions.get(stream);
    if (
      Number.isSafeInteger(position) &&
      (this.lastPosition === null || position > this.lastPosition) &&
      revision === (last === undefined ? 0 : last + 1)
    ) {
      // The common case, in order: no finding, and nothing allocated.
      this.lastPosition = position;
      this.revisions.set(stream, revision);
      return NO_FINDINGS;
    }
    return this.findings(position, stream, revision, last);
  }

  private findings(position: number, stream: string, revision: number, last: number | undefined): Finding[] {
    const findings: Finding[] = [];
    if (!Number.isSafeInteger(position))
      findings.push({ check: 'position-order', message: `position ${position} is not an integer` });
    else {
      if (this.lastPosition !== null && position <= this.lastPosition)
        findings.push({
          check: 'position-order',
          message: `position ${position} does not come after the previous event's position ${this.lastPosition}`,
        });
      this.lastPosition = Math.max(this.lastPosition ?? position, position);
    }
    const expected = last === undefined ? 0 : last + 1;
    if (!Number.isSafeInteger(revision)) {
      findings.push({
        check: 'revision-order',
        message: `revision ${revision} of stream '${stream}' is not an integer`,
      });
      return findings;
    }
    if (revision > expected)
      findings.push({
        check: 'revision-gap',
        message:
          last === undefined
            ? `stream '${stream}' starts at revision ${revision}, not 0: its first ${revision} event(s) are missing`
            : `stream '${stream}' jumps from revision ${last} to ${revision}: ${revision - expected} event(s) are missing`,
      });
    else if (revision < expected)
      findings.push({
        check: 'revision-order',
        message: `stream '${stream}' goes back from revision ${last} to ${revision}: events were reordered or duplicated`,
      });
    // Resynchronize on the highest revision seen, so one fault is reported once, not for every later event.
    this.revisions.set(stream, Math.max(last ?? revision, revision));
    return findings;
  }
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);
