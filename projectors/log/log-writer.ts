/**
 * One log as its single writer holds it: the tree, the latest signed head, and the fence on the log's
 * tree-head stream. The sequencer (log-sequencer.ts) feeds each log it writes its admissions, in global
 * event order, and the writer signs one checkpoint per batch and appends it as `TreeHeadSigned` to the
 * log's own stream with the expected revision: a second writer's append fails there, so two writers can
 * never publish different trees of one log.
 */
import type { Logger } from 'pino';
import {
  type JsonSth,
  SHARED_LOG_NAME,
  sthFromCheckpointNote,
  timestampExtension,
  treeHeadStreamOf,
} from '../../domain/log';
import type { TreeHeadSigned } from '../../event-schemas';
import { fromHex, type NoteSigner, signCheckpoint, TileLog, toHex } from '../../merkle-core';
import type { EventStore, RecordedEvent } from '../../ports/event-store';
import type { IntegratedLeaf, LogName, LogSource, PublishedTreeHead } from '../../ports/log';
import type { Metrics } from '../../runtime/support/metrics';
import type { LeafWaiters } from './leaf-waiters';
import { LogVerifierKeys } from './log-verifier-keys';

/** Events of the service itself (not of a tenant) carry this tenant id. */
export const SYSTEM_TENANT = 'system';

/** An admission as the writer needs it: its id, position and leaf hash. */
export interface AdmissionLeaf {
  id: string;
  position: number;
  leafHash: string;
}

export interface LogWriterOptions {
  name: LogName;
  eventStore: EventStore;
  /** Callers waiting for this log's leaves (kept by the sequencer across writers of the log). */
  leaves: LeafWaiters;
  signer: NoteSigner;
  /** Verifier keys of the log's retired keys: older tree heads are signed by one. */
  retiredVerifierKeys?: readonly string[];
  logger: Logger;
  metrics?: Metrics;
  clock?: () => Date;
}

const REBUILD_CHUNK = 4096;

export class LogWriter implements LogSource {
  readonly name: LogName;
  /** The stream of this log's signed tree heads. */
  readonly stream: string;
  private readonly tree = new TileLog();
  private head: PublishedTreeHead | null = null;
  private headPosition = 0;
  /** Revision of the tree-head stream we last appended or read (-1: none). */
  private revision = -1;
  private readonly leaves: LeafWaiters;
  private readonly keys: LogVerifierKeys;
  /** While rebuilding: the last signed head, the hashes not yet in the tree, the leaves beyond it. */
  private lastSigned: RecordedEvent<TreeHeadSigned> | null = null;
  private rebuilt: Uint8Array[] = [];
  private rebuiltCount = 0;
  private unsigned: AdmissionLeaf[] = [];

  constructor(private readonly options: LogWriterOptions) {
    this.name = options.name;
    this.stream = treeHeadStreamOf(options.name);
    this.leaves = options.leaves;
    this.keys = new LogVerifierKeys([options.signer.verifierKey, ...(options.retiredVerifierKeys ?? [])]);
  }

  get origin(): string {
    return this.options.signer.name;
  }

  get verifierKey(): string {
    return this.options.signer.verifierKey;
  }

  get log(): TileLog {
    return this.tree;
  }

  sthOf(checkpoint: string): JsonSth {
    return this.keys.sthOf(checkpoint);
  }

  get signed(): boolean {
    return this.head !== null;
  }

  latest(): PublishedTreeHead {
    if (!this.head) throw new Error(`the sequencer of log '${this.name}' has not started`);
    return this.head;
  }

  latestPosition(): number {
    return this.headPosition;
  }

  /** The writer appends every head itself: it never trails the store. */
  async catchUp(): Promise<void> {}

  waitForEvent(eventId: string): Promise<IntegratedLeaf> {
    return this.leaves.wait(eventId);
  }

  /** Rebuilding, step 1: the last signed head of the log's stream. */
  async readLastHead(): Promise<void> {
    for await (const event of this.options.eventStore.readStream(this.stream, {
      direction: 'backwards',
      maxCount: 1,
    }))
      this.lastSigned = event as RecordedEvent<TreeHeadSigned>;
    this.revision = this.lastSigned?.revision ?? -1;
  }

  /** Rebuilding, step 2: each admission of this log, in event order. */
  async rebuildLeaf(leaf: AdmissionLeaf): Promise<void> {
    this.rebuilt.push(fromHex(leaf.leafHash));
    if (++this.rebuiltCount > (this.lastSigned?.data.tree_size ?? 0)) this.unsigned.push(leaf);
    if (this.rebuilt.length === REBUILD_CHUNK) await this.tree.appendLeafHashes(this.rebuilt.splice(0));
  }

  /**
   * Rebuilding, step 3: checks the tree against the last signed head, then signs what the previous
   * writer admitted but did not sign (or the empty tree of a new log).
   */
  async finishRebuild(): Promise<void> {
    await this.tree.appendLeafHashes(this.rebuilt.splice(0));
    const last = this.lastSigned;
    this.lastSigned = null;
    if (last) {
      const size = last.data.tree_size;
      const root = this.tree.size >= size ? toHex(this.tree.root(size)) : null;
      if (root !== last.data.root_hash)
        throw new Error(
          `log '${this.name}': the admission events give a tree of ${this.tree.size} leaves` +
            (root ? ` whose first ${size} have root ${root}` : '') +
            `, but the last signed tree head has ${size} leaves with root ${last.data.root_hash}`,
        );
      this.head = { checkpoint: last.data.checkpoint, sth: this.sthOf(last.data.checkpoint) };
      this.headPosition = last.position;
    }
    const unsigned = this.unsigned;
    this.unsigned = [];
    if (!last || unsigned.length > 0) await this.publish(unsigned);
    this.options.logger.info(
      { log: this.name, tree_size: this.tree.size, origin: this.origin },
      'merkle log ready',
    );
  }

  /** Integrates a batch of this log's admissions under one signed head. */
  async integrate(batch: readonly AdmissionLeaf[]): Promise<void> {
    const stop = this.options.metrics?.sequencerBatchSeconds.startTimer({ log: this.name });
    await this.tree.appendLeafHashes(batch.map((leaf) => fromHex(leaf.leafHash)));
    await this.publish(batch);
    stop?.();
    this.options.metrics?.sequencerLeaves.inc({ log: this.name }, batch.length);
  }

  /** Signs the current tree, appends the head (fenced by revision), then releases the batch's waiters. */
  private async publish(batch: readonly AdmissionLeaf[]): Promise<void> {
    const size = this.tree.size;
    const firstIndex = size - batch.length;
    // Tree heads never go back in time, even if the wall clock does.
    const previous = this.head ? Date.parse(this.head.sth.timestamp) : 0;
    const time = new Date(Math.max(previous, (this.options.clock?.() ?? new Date()).getTime()));
    // The time line is what signs the JSON STH's timestamp (see domain/log/sth.ts).
    const checkpoint = signCheckpoint(
      { origin: this.origin, size, rootHash: this.tree.root(), extensions: [timestampExtension(time)] },
      this.options.signer,
    );
    const sth = sthFromCheckpointNote(checkpoint, this.verifierKey);
    const shared = this.name === SHARED_LOG_NAME;
    const data: TreeHeadSigned = {
      origin: this.origin,
      tree_size: size,
      root_hash: sth.root_hash,
      timestamp: sth.timestamp,
      checkpoint,
      first_leaf_index: firstIndex,
      leaf_positions: batch.map((leaf) => leaf.position),
      // The shared log's heads stay as they always were.
      ...(shared ? {} : { log: this.name }),
    };
    const result = await this.options.eventStore.append(
      this.stream,
      [
        {
          type: 'TreeHeadSigned',
          data,
          tenant_id: SYSTEM_TENANT,
          correlation_id: shared ? `sth-${size}` : `sth-${this.name}-${size}`,
          causation_id: null,
        },
      ],
      { expectedRevision: this.revision < 0 ? 'no-stream' : this.revision },
    );
    this.revision = result.nextRevision;
    this.head = { sth, checkpoint };
    this.headPosition = result.position;
    const head = this.head;
    for (let i = 0; i < batch.length; i++)
      this.leaves.settle(batch[i]!.id, { leafIndex: firstIndex + i, position: batch[i]!.position, head });
  }
}
