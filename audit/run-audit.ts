/**
 * The audit: per-event checks in parallel over disjoint chunks (worker threads, which also write the
 * link facts of their leaves to disk), then, in position order on this thread, only the sequential
 * part — stream ordering, the pending admissions, the replayed Merkle tree and its signed heads — and
 * at the end the closed-loop links, checked with joins over the on-disk index.
 */
import os from 'node:os';
import type { Progress } from '../runtime/support/progress-bar';
import { type ChunkChecker, createChunkChecker } from './checker-pool';
import type { AuditChunk } from './chunks';
import type { AuditScope } from './event-checks';
import { type ChunkResult, eventIdAt, LEAF_HASHED, NOT_A_LEAF } from './event-facts';
import { LinkChecks } from './link-index';
import { LogReplay, type ReplayHooks } from './log-replay';
import { type AuditReport, type Discrepancy, discrepancyAt, sortDiscrepancies } from './report';
import type { AuditSource } from './sources';
import { AuditSourceError } from './store-file';
import { StreamOrder } from './stream-order';
import { type AuditTrust, prepareTrust, trustToWire } from './trust';

export interface AuditOptions extends ReplayHooks {
  trust: AuditTrust;
  onProgress?: (progress: Progress) => void;
  /** Worker threads for parsing/hashing/signature checks; default os.availableParallelism(). 0: inline. */
  workers?: number;
  /** `all` (default) every check; `log` the log structure alone (see audit/log-checks.ts). */
  checks?: AuditScope;
}

/** Chunks checked ahead of the sequential part, per worker: enough to keep every worker busy. */
const CHUNKS_AHEAD_PER_WORKER = 3;

export async function runAudit(source: AuditSource, options: AuditOptions): Promise<AuditReport> {
  const started = performance.now();
  prepareTrust(options.trust); // a key that cannot be used fails now, before any work
  const workers = Math.max(0, Math.floor(options.workers ?? os.availableParallelism()));
  const scope = options.checks ?? 'all';
  const opened = await source.open();
  // The closed-loop links are not part of the log structure: a log-only audit keeps no link index.
  const links = scope === 'all' ? LinkChecks.create() : null;
  const audit = new SequentialAudit(options, scope);
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
  private readonly replay: LogReplay;

  constructor(
    hooks: ReplayHooks,
    private readonly scope: AuditScope,
  ) {
    this.replay = new LogReplay(hooks);
  }

  async apply(result: ChunkResult): Promise<void> {
    this.signatures += result.signatures;
    // The events' own findings first: for one position they read before the sequential ones.
    for (const discrepancy of result.discrepancies) this.discrepancies.push(discrepancy);
    const { positions, revisions, streams, streamCodes, types, typeCodes, leafKinds, leafHashes, treeHeads } =
      result;
    let hashAt = 0;
    let nextHead = 0;
    for (let i = 0; i < result.count; i++) {
      const position = positions[i]!;
      this.events++;
      this.lastPosition = Math.max(this.lastPosition, position);
      const ordering = this.order.next(position, streams[streamCodes[i]!]!, revisions[i]!);
      for (const finding of ordering) this.discrepancies.push(discrepancyAt(eventAt(result, i), finding));
      const leaf = leafKinds[i];
      if (leaf !== NOT_A_LEAF) {
        this.leaves++;
        const hash = leaf === LEAF_HASHED ? leafHashes.subarray(hashAt, hashAt + 32) : null;
        if (hash) hashAt += 32;
        this.replay.admit(position, hash);
      }
      if (types[typeCodes[i]!] !== 'TreeHeadSigned') continue;
      this.treeHeads++;
      // An unreadable head integrates nothing here; the next head's first_leaf_index says what it lost.
      if (treeHeads[nextHead]?.index !== i) continue;
      const { head } = treeHeads[nextHead++]!;
      for (const finding of await this.replay.treeHead(position, head))
        this.discrepancies.push(discrepancyAt(eventAt(result, i), finding));
    }
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
    const outcome = this.replay.finish();
    return {
      checks: this.scope,
      events: this.events,
      leaves: this.leaves,
      tree_heads: this.treeHeads,
      tree_size: outcome.treeSize,
      root_hash: outcome.rootHash,
      discrepancies: sortDiscrepancies(this.discrepancies),
      notices: outcome.notices,
      signatures: this.signatures,
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
