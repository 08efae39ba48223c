/**
 * The anchorer: every interval, each log other than the shared one whose latest signed head is larger
 * than its last anchor gets one `LogAnchored`, whose record (GOV_LOG_ANCHOR_V1: domain/log/anchor.ts)
 * the shared log's sequencer then integrates like any admission. It runs beside the shared log's writer
 * (embedded: always; the production topology: in the projectors process holding the `merkle-log`
 * lease), and reads what it decides on from the event store: each log's latest `TreeHeadSigned` and
 * its last anchor, so that it needs no log's writer in this process and starts where it stopped.
 *
 * A log's anchors are the events of stream `log-anchor-<log>`, each appended with the expected revision
 * of the one before: an anchorer that lost the race (another process took the shared log over, or the
 * same head was anchored meanwhile) fails its append harmlessly, reads the stream again and decides
 * anew at its next turn. Once per interval and per log, never per admission.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  anchorStreamOf,
  headsToAnchor,
  leafHashOfRecord,
  logAnchorRecord,
  SHARED_LOG_NAME,
  type SignedHead,
  treeHeadStreamOf,
} from '../../domain/log';
import type { LogAnchored, TreeHeadSigned } from '../../event-schemas';
import { toHex } from '../../merkle-core';
import { type EventStore, WrongExpectedVersionError } from '../../ports/event-store';
import type { LogDirectory, LogName } from '../../ports/log';
import type { Metrics } from '../../runtime/support/metrics';
import { sleep } from '../../runtime/support/sleep';
import { SYSTEM_TENANT } from './log-writer';

export interface LogAnchorerOptions {
  eventStore: EventStore;
  /** The logs there are (the sequencer of this process). */
  logs: Pick<LogDirectory, 'list'>;
  /** Whether this process writes the shared log now: only its writer anchors. */
  writesShared(): boolean;
  /** GOV_ANCHOR_INTERVAL_MS. */
  intervalMs: number;
  logger: Logger;
  metrics?: Metrics;
  clock?: () => Date;
}

/** An anchor this process appended: the head anchored, and the position of its `LogAnchored`. */
export interface AppendedAnchor {
  head: SignedHead;
  /** The `LogAnchored` event's id and position. */
  id: string;
  position: number;
}

/** A log's last anchor as its stream holds it. */
interface LastAnchor {
  size: number;
  /** The stream's revision, the expected revision of the next anchor; -1: no anchor yet. */
  revision: number;
}

export class LogAnchorer {
  /** When each log's latest head read was signed (for the lag metric). */
  private readonly signedAt = new Map<LogName, string>();
  /** Each log's last anchor, read from its stream once and kept up to date by this process's appends. */
  private readonly last = new Map<LogName, LastAnchor>();
  private wasWriter = false;
  private loop: Promise<void> | null = null;
  private readonly stopSignal = new AbortController();

  constructor(private readonly options: LogAnchorerOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopSignal.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { signal } = this.stopSignal;
    while (!signal.aborted) {
      await sleep(this.options.intervalMs, signal);
      if (signal.aborted) return;
      try {
        await this.anchorOnce();
      } catch (error) {
        this.options.logger.error({ err: error }, 'anchoring failed; trying again at the next interval');
      }
    }
  }

  /**
   * One turn: anchors every log whose latest head is larger than its last anchor (when this process
   * writes the shared log). Resolves to the anchors appended, with their events' positions.
   */
  async anchorOnce(): Promise<AppendedAnchor[]> {
    const writer = this.options.writesShared();
    // Another process may have anchored while this one did not write: read the streams again.
    if (writer && !this.wasWriter) this.last.clear();
    this.wasWriter = writer;
    if (!writer) return [];
    const names = this.options.logs
      .list()
      .map((log) => log.name)
      .filter((name) => name !== SHARED_LOG_NAME);
    const heads = (await Promise.all(names.map((name) => this.latestHead(name)))).filter(
      (head): head is SignedHead => head !== null,
    );
    await Promise.all(heads.map((head) => this.lastAnchorOf(head.log)));
    const sizes = new Map([...this.last].map(([name, anchor]) => [name, anchor.size]));
    const due = headsToAnchor(heads, sizes);
    const appended: AppendedAnchor[] = [];
    for (const head of due) {
      const event = await this.append(head);
      if (event !== null) appended.push({ head, ...event });
    }
    return appended;
  }

  /** The latest tree head log `name` signed, or null before its first. */
  private async latestHead(name: LogName): Promise<SignedHead | null> {
    for await (const event of this.options.eventStore.readStream(treeHeadStreamOf(name), {
      direction: 'backwards',
      maxCount: 1,
    })) {
      const head = event.data as TreeHeadSigned;
      this.signedAt.set(name, head.timestamp);
      return {
        log: name,
        origin: head.origin,
        tree_size: head.tree_size,
        root_hash: head.root_hash,
        checkpoint: head.checkpoint,
      };
    }
    return null;
  }

  private async lastAnchorOf(name: LogName): Promise<LastAnchor> {
    let last = this.last.get(name);
    if (!last) {
      last = await this.readLastAnchor(name);
      this.last.set(name, last);
    }
    return last;
  }

  private async readLastAnchor(name: LogName): Promise<LastAnchor> {
    for await (const event of this.options.eventStore.readStream(anchorStreamOf(name), {
      direction: 'backwards',
      maxCount: 1,
    }))
      return { size: (event.data as LogAnchored).record.tree_size, revision: event.revision };
    return { size: 0, revision: -1 };
  }

  /** Appends the anchor of `head`: its event, or null when another anchorer appended one first. */
  private async append(head: SignedHead): Promise<{ id: string; position: number } | null> {
    const last = this.last.get(head.log)!;
    const now = this.options.clock?.() ?? new Date();
    const record = logAnchorRecord(head, now);
    const data: LogAnchored = {
      anchored_log: head.log,
      leaf_hash: toHex(leafHashOfRecord(record)),
      record,
    };
    const stream = anchorStreamOf(head.log);
    const id = randomUUID();
    try {
      const result = await this.options.eventStore.append(
        stream,
        [
          {
            id,
            type: 'LogAnchored',
            data,
            tenant_id: SYSTEM_TENANT,
            correlation_id: `anchor-${head.log}-${head.tree_size}`,
            causation_id: null,
          },
        ],
        { expectedRevision: last.revision < 0 ? 'no-stream' : last.revision },
      );
      this.last.set(head.log, { size: head.tree_size, revision: result.nextRevision });
      const signedAt = Date.parse(this.signedAt.get(head.log) ?? '');
      if (Number.isFinite(signedAt))
        this.options.metrics?.anchorLagSeconds.observe(
          { log: head.log },
          Math.max(0, now.getTime() - signedAt) / 1000,
        );
      return { id, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      // Another anchorer's: the next turn decides from what the stream holds now.
      this.last.delete(head.log);
      this.options.logger.info(
        { log: head.log, tree_size: head.tree_size },
        'another process anchored this log first; reading its anchors again',
      );
      return null;
    }
  }
}
