/**
 * The events a store committed itself most recently, as long as their positions run on without a
 * gap: a subscription on the same store that follows the head reads them from memory instead of from
 * the file. (The log's sequencer, on the server's main thread, reads back every leaf hash the same
 * thread just appended: from the file that is an indexed query plus SQLite's JSON functions over each
 * event's whole document.)
 *
 * A commit by another connection in between (another process, a thread with a connection of its own)
 * leaves a gap in the positions: the run starts again after it, and reads from before the run go to
 * the file. An idempotent retry stores nothing and is not noted. Subscribers get data of their own:
 * parsed from the stored JSON, or, for a type they read only in part (`dataMembers`), those members of
 * the appended data, copied, with null for what it lacks, as the file's query gives them.
 */
import type { EventFilter, RecordedEvent, SubscribeOptions } from '../../ports/event-store';
import type { EventRow } from './group-commit';

interface Recent {
  event: Omit<RecordedEvent, 'data'>;
  /** As stored. */
  json: string;
  /** As appended: only read, for the members a subscriber selects. */
  data: unknown;
}

/** Events read, and the position the read looked through (the file may hold more after it). */
export interface RecentRead {
  events: RecordedEvent[];
  through: number;
}

export class RecentAppends {
  private run: Recent[] = [];

  /**
   * @param capacity events kept (each with its document: an evidence admission's is ~5 KB): a
   *   subscriber further behind, catching up, reads from the file. One following the head is a group
   *   commit or two behind.
   */
  constructor(private readonly capacity = 1024) {}

  /** The position of the newest event held (0 when none). */
  get last(): number {
    return this.run.at(-1)?.event.position ?? 0;
  }

  /** One append just committed: its rows, with the data they were serialized from, ending at `position`. */
  note(
    stream: string,
    rows: readonly EventRow[],
    data: readonly unknown[],
    result: { nextRevision: number; position: number },
    recordedAt: string,
  ): void {
    const first = result.position - rows.length + 1;
    if (first !== this.last + 1) this.run = [];
    rows.forEach((row, i) => {
      this.run.push({
        event: {
          position: first + i,
          id: row.id,
          stream,
          revision: result.nextRevision - rows.length + 1 + i,
          type: row.type,
          recorded_at: recordedAt,
          tenant_id: row.tenant_id,
          correlation_id: row.correlation_id,
          causation_id: row.causation_id,
          schema_version: row.schema_version,
        },
        json: row.data,
        data: data[i],
      });
    });
    if (this.run.length > this.capacity) this.run = this.run.slice(this.run.length - this.capacity / 2);
  }

  /**
   * The events after `after` held here, of the filter, at most `limit`; null when the run does not
   * reach back to `after` (or ends there): read the file.
   */
  read(
    after: number,
    filter: EventFilter | undefined,
    limit: number,
    dataMembers: SubscribeOptions['dataMembers'],
  ): RecentRead | null {
    const start = this.run[0]?.event.position;
    if (start === undefined || after < start - 1 || after >= this.last) return null;
    const events: RecordedEvent[] = [];
    let through = after;
    for (let i = after + 1 - start; i < this.run.length && events.length < limit; i++) {
      const recent = this.run[i]!;
      through = recent.event.position;
      if (!matches(recent.event, filter)) continue;
      const members = dataMembers?.[recent.event.type];
      events.push({
        ...recent.event,
        data: members ? selected(recent.data, members) : JSON.parse(recent.json),
      });
    }
    return { events, through };
  }
}

function matches(event: Omit<RecordedEvent, 'data'>, filter: EventFilter | undefined): boolean {
  if (filter?.eventTypes?.length && !filter.eventTypes.includes(event.type)) return false;
  if (filter?.streamPrefixes?.length && !filter.streamPrefixes.some((p) => event.stream.startsWith(p)))
    return false;
  return true;
}

/** The members of `data` named by dotted paths, as the store's query selects them (see selectedData). */
function selected(data: unknown, members: readonly string[]): object {
  const out: Record<string, unknown> = {};
  for (const member of members) {
    const names = member.split('.');
    let source: unknown = data;
    let target = out;
    names.forEach((name, i) => {
      const value = isObject(source) ? source[name] : undefined;
      if (i === names.length - 1) {
        target[name] = copy(value);
        return;
      }
      if (target[name] === undefined || (target[name] !== null && !isObject(target[name]))) {
        target[name] = isObject(value) ? {} : null;
      }
      source = value;
      if (target[name] === null) {
        target = {}; // the member is not an object: nothing below it is selected
        return;
      }
      target = target[name] as Record<string, unknown>;
    });
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the stored JSON holds for `value`: null for nothing, a copy of an object or array. */
function copy(value: unknown): unknown {
  if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return null;
  if (typeof value !== 'object' || value === null) return value;
  return JSON.parse(JSON.stringify(value));
}
