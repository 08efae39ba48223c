/**
 * The audit: per-event checks in parallel over disjoint chunks (worker threads, which also write the
 * link facts of their leaves to disk), then, in position order on this thread, only the sequential
 * part — stream ordering, the pending admissions, the replayed Merkle tree and its signed heads — and
 * at the end the closed-loop links, checked with joins over the on-disk index.
 */
import os from 'node:os';
import { SHARED_LOG_NAME, treeHeadStreamOf } from '../domain/log';
import type { Progress } from '../runtime/support/progress-bar';
import type { AnchorHooks } from './anchor-checks';
import { type ChunkChecker, createChunkChecker } from './checker-pool';
import type { AuditChunk } from './chunks';
import type { AuditScope } from './event-checks';
import { type ChunkResult, eventIdAt, LEAF_HASHED, NOT_A_LEAF } from './event-facts';
import { LinkChecks } from './link-index';
import { AuditedLogs } from './log-directory';
import type { ReplayHooks } from './log-replay';
import { type AuditReport, type Discrepancy, discrepancyAt, type Finding, sortDiscrepancies } from './report';
import type { AuditSource } from './sources';
import { AuditSourceError } from './store-file';
import { StreamOrder } from './stream-order';
import { type AuditTrust, prepareTrust, trustToWire } from './trust';

export interface AuditOptions extends ReplayHooks, AnchorHooks {
  trust: AuditTrust;
  onProgress?: (progress: Progress) => void;
  /** Worker threads for parsing/hashing/signature checks; default os.availableParallelism(). 0: inline. */
  workers?: number;
  /** `all` (default) every check; `log` the log structure alone (see audit/log-checks.ts). */
  checks?: AuditScope;
  /**
   * Audit this log alone (`shared`, `test`, `dedicated-<24 hex>`): other logs' leaves and heads are
   * neither replayed nor reported. Default: every log found in the stream.
   */
  log?: string;
  /** The log whose leaves, heads and anchors the hooks see: default `log`, else the shared log. */
  hooksLog?: string;
}

/** Chunks checked ahead of the sequential part, per worker: enough to keep every worker busy. */
const CHUNKS_AHEAD_PER_WORKER = 3;

export async function runAudit(source: AuditSource, options: AuditOptions): Promise<AuditReport> {
  const started = performance.now();
  const trust = prepareTrust(options.trust); // a key that cannot be used fails now, before any work
  const workers = Math.max(0, Math.floor(options.workers ?? os.availableParallelism()));
  const scope = options.checks ?? 'all';
  const opened = await source.open();
  // The closed-loop links are not part of the log structure: a log-only audit keeps no link index.
  const links = scope === 'all' ? LinkChecks.create() : null;
  const audit = new SequentialAudit(
    scope,
    new AuditedLogs(trust, options, options.log ?? null, options.hooksLog),
  );
  try {
    const checker = createChunkChecker(workers, trustToWire(options.trust), links?.dir ?? null, scope);
    let sourceFailure: unknown = null;
    try {
      const ahead = Math.max(1, workers) * CHUNKS_AHEAD_PER_WORKER;
      for await (const item of checkInOrder(opened.chunks(), checker, ahead)) {
        if ('failure' in item) {
          sourceFailure = item.failure;
          break;
        }
        await audit.apply(item.result);
        options.onProgress?.(audit.progress(started, opened.target));
      }
    } finally {
      // Closing the checking threads closes their parts of the link index, which are gathered below.
      await checker.close();
    }
    if (sourceFailure !== null && audit.events === 0)
      throw new AuditSourceError(`${source.description} cannot be read: ${messageOf(sourceFailure)}`);
    if (sourceFailure !== null)
      audit.discrepancies.push({
        position: null,
        event_id: null,
        event_type: null,
        check: 'source-integrity',
        message: `${source.description} failed after ${audit.events} events: ${messageOf(sourceFailure)}; the rest of it was not audited`,
      });
    if (links) for (const discrepancy of links.discrepancies()) audit.discrepancies.push(discrepancy);
  } finally {
    opened.close();
    links?.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return audit.report(seconds);
}

/** Everything that needs the events in order: ordering, pending admissions, the tree and its heads. */
class SequentialAudit {
  events = 0;
  readonly discrepancies: Discrepancy[] = [];
  private signatures = 0;
  private leaves = 0;
  private treeHeads = 0;
  private lastPosition = 0;
  private readonly order = new StreamOrder();

  constructor(
    private readonly scope: AuditScope,
    private readonly logs: AuditedLogs,
  ) {}

  async apply(result: ChunkResult): Promise<void> {
    this.signatures += result.signatures;
    // The events' own findings first: for one position they read before the sequential ones.
    for (const discrepancy of this.covered(result)) this.discrepancies.push(discrepancy);
    const { positions, revisions, streams, streamCodes, types, typeCodes, leafKinds, leafHashes } = result;
    const { treeHeads, logCodes, logs, logsCreated, bindings, anchors } = result;
    let hashAt = 0;
    let nextHead = 0;
    let nextCreated = 0;
    let nextBinding = 0;
    let nextAnchor = 0;
    const report = (i: number, findings: readonly Finding[]) => {
      for (const finding of findings) this.discrepancies.push(discrepancyAt(eventAt(result, i), finding));
    };
    for (let i = 0; i < result.count; i++) {
      const position = positions[i]!;
      this.events++;
      this.lastPosition = Math.max(this.lastPosition, position);
      const stream = streams[streamCodes[i]!]!;
      const ordering = this.order.next(position, stream, revisions[i]!);
      if (ordering.length > 0) report(i, ordering);
      const leaf = leafKinds[i];
      if (leaf !== NOT_A_LEAF) {
        const log = logs[logCodes[i]!]!;
        const hash = leaf === LEAF_HASHED ? leafHashes.subarray(hashAt, hashAt + 32) : null;
        if (hash) hashAt += 32;
        if (this.logs.covers(log)) this.leaves++;
        const found = this.logs.admit(log, position, hash);
        if (found.length > 0) report(i, found);
        if (bindings[nextBinding]?.index === i)
          report(i, this.logs.binding(log, bindings[nextBinding++]!.logId));
        if (anchors[nextAnchor]?.index === i)
          report(i, await this.logs.anchor(anchors[nextAnchor++]!.anchor, hash));
        continue;
      }
      if (logsCreated[nextCreated]?.index === i) {
        report(i, this.logs.created(position, stream, logsCreated[nextCreated++]!.created));
        continue;
      }
      if (types[typeCodes[i]!] !== 'TreeHeadSigned') continue;
      // An unreadable head integrates nothing here; the next head's first_leaf_index says what it lost.
      if (treeHeads[nextHead]?.index !== i) {
        if (this.logs.covers(logOfHeadStream(stream))) this.treeHeads++;
        continue;
      }
      const { head } = treeHeads[nextHead++]!;
      if (this.logs.covers(head.log)) this.treeHeads++;
      report(i, await this.logs.treeHead(position, stream, head));
    }
  }

  /**
   * The checking threads' findings, less those of events of logs the audit does not cover
   * (`--log`): an admission's log, a tree head's, a LogCreated's.
   */
  private covered(result: ChunkResult): Discrepancy[] {
    const found = result.discrepancies;
    if (found.length === 0 || this.logs.only === null) return found;
    const logAt = new Map<number, string>();
    for (let i = 0; i < result.count; i++) {
      if (result.leafKinds[i] !== NOT_A_LEAF)
        logAt.set(result.positions[i]!, result.logs[result.logCodes[i]!]!);
      else if (result.types[result.typeCodes[i]!] === 'TreeHeadSigned')
        logAt.set(result.positions[i]!, logOfHeadStream(result.streams[result.streamCodes[i]!]!));
    }
    for (const { index, head } of result.treeHeads) logAt.set(result.positions[index]!, head.log);
    for (const { index, created } of result.logsCreated) logAt.set(result.positions[index]!, created.log);
    return found.filter((d) => {
      const log = d.position === null ? undefined : logAt.get(d.position);
      return log === undefined || this.logs.covers(log);
    });
  }

  progress(started: number, target: number | null): Progress {
    const elapsed = (performance.now() - started) / 1000;
    const rate = elapsed > 0 ? this.events / elapsed : 0;
    const end = target ?? this.lastPosition;
    const perPosition = this.lastPosition > 0 ? elapsed / this.lastPosition : null;
    return {
      events: this.events,
      position: this.lastPosition,
      target: end,
      rate,
      etaSeconds: perPosition === null ? null : Math.max(0, end - this.lastPosition) * perPosition,
    };
  }

  report(seconds: number): AuditReport {
    const logs = this.logs.figures();
    const main = logs.find((log) => log.log === (this.logs.only ?? SHARED_LOG_NAME));
    return {
      checks: this.scope,
      log: this.logs.only,
      events: this.events,
      leaves: this.leaves,
      tree_heads: this.treeHeads,
      tree_size: main?.tree_size ?? 0,
      root_hash: main ? main.root_hash : null,
      logs,
      discrepancies: sortDiscrepancies(this.discrepancies),
      notices: this.logs.notices(),
      signatures: this.signatures + this.logs.signatures,
      seconds,
      leaves_per_second: seconds > 0 ? this.leaves / seconds : 0,
    };
  }
}

type Checked = { result: ChunkResult } | { failure: unknown };

/**
 * Keeps up to `ahead` chunks in the checker and yields their results in source order. A source that
 * fails part way yields the results of the chunks it did produce, then the failure.
 */
async function* checkInOrder(
  chunks: AsyncIterable<AuditChunk>,
  checker: ChunkChecker,
  ahead: number,
): AsyncGenerator<Checked> {
  const inFlight: Promise<ChunkResult>[] = [];
  const source = chunks[Symbol.asyncIterator]();
  let failure: unknown = null;
  try {
    for (;;) {
      let next: IteratorResult<AuditChunk>;
      try {
        next = await source.next();
      } catch (error) {
        failure = error;
        break;
      }
      if (next.done) break;
      const checked = checker.check(next.value);
      checked.catch(() => {}); // awaited in order below; this only keeps an early rejection from being "unhandled"
      inFlight.push(checked);
      if (inFlight.length >= ahead) yield { result: await inFlight.shift()! };
    }
    while (inFlight.length > 0) yield { result: await inFlight.shift()! };
    if (failure !== null) yield { failure };
  } finally {
    if (failure === null) await source.return?.();
  }
}

/** What a discrepancy names of event `index` of a chunk. */
function eventAt(result: ChunkResult, index: number): { position: number; id: string; type: string } {
  return {
    position: result.positions[index]!,
    id: eventIdAt(result, index),
    type: result.types[result.typeCodes[index]!]!,
  };
}

/** The log whose tree heads a stream holds (for a head too broken to say): `merkle-log-<log>`, else shared. */
function logOfHeadStream(stream: string): string {
  const prefix = `${treeHeadStreamOf(SHARED_LOG_NAME)}-`;
  return stream.startsWith(prefix) ? stream.slice(prefix.length) : SHARED_LOG_NAME;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
