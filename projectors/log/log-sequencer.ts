/**
 * The single writer of the Merkle log. It follows the admission events in global event-store order,
 * integrates each batch as leaves, signs one checkpoint per batch and appends it as `TreeHeadSigned`
 * to the log's own stream with the expected revision: a second sequencer's append fails there, so two
 * writers can never publish different trees. Everything it holds in memory is rebuilt from the event
 * store at start and checked against the last signed root.
 */
import type { Logger } from 'pino';
import { type JsonSth, sthFromCheckpointNote, timestampExtension } from '../../domain/log';
import type { TreeHeadSigned } from '../../event-schemas';
import { fromHex, type NoteSigner, signCheckpoint, TileLog, toHex } from '../../merkle-core';
import type { EventStore, EventSubscription, RecordedEvent } from '../../ports/event-store';
import type { IntegratedLeaf, LogSource, PublishedTreeHead } from '../../ports/log';
import type { Metrics } from '../../runtime/support/metrics';
import { sleep } from '../../runtime/support/sleep';
import { LeafWaiters } from './leaf-waiters';
import { LogVerifierKeys } from './log-verifier-keys';

/** Events whose record becomes a leaf, and the member holding that record. */
export const LEAF_RECORD_MEMBER = {
  EvidenceAdmitted: 'envelope',
  ExecutionAdmitted: 'trace',
  VarianceRecorded: 'record',
} as const;
export const ADMISSION_EVENT_TYPES = Object.keys(LEAF_RECORD_MEMBER) as (keyof typeof LEAF_RECORD_MEMBER)[];

/** A leaf is its stored hash: followers of the log read only that member of the (5 KB) admissions. */
export const LEAF_HASH_ONLY = Object.fromEntries(ADMISSION_EVENT_TYPES.map((type) => [type, ['leaf_hash']]));

/** Events of the service itself (not of a tenant) carry this tenant id. */
export const SYSTEM_TENANT = 'system';

/** The stream of signed tree heads (one log per deployment). */
export const LOG_STREAM = 'merkle-log';

export interface LogSequencerOptions {
  eventStore: EventStore;
  signer: NoteSigner;
  /** Verifier keys of the log's retired keys (`gov keys rotate log`): older tree heads are signed by one. */
  retiredVerifierKeys?: readonly string[];
  logger: Logger;
  metrics?: Metrics;
  clock?: () => Date;
  /** Largest batch integrated under one signature. */
  maxBatch?: number;
}

export class LogSequencer implements LogSource {
  private tree = new TileLog();
  private head: PublishedTreeHead | null = null;
  /** Position of the head's `TreeHeadSigned` event. */
  private headPosition = 0;
  /** Revision of the log stream we last appended or read (-1: none). */
  private revision = -1;
  private lastPosition = 0;
  private subscription: EventSubscription | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private readonly stopSignal = new AbortController();
  private readonly leaves = new LeafWaiters();
  private readyResolve!: () => void;
  /** Resolves once the tree is rebuilt and a tree head is published. */
  readonly ready = new Promise<void>((resolve) => {
    this.readyResolve = resolve;
  });

  private readonly keys: LogVerifierKeys;

  constructor(private readonly options: LogSequencerOptions) {
    this.keys = new LogVerifierKeys([options.signer.verifierKey, ...(options.retiredVerifierKeys ?? [])]);
  }

  get origin(): string {
    return this.options.signer.name;
  }

  get verifierKey(): string {
    return this.options.signer.verifierKey;
  }

  /** The JSON STH of a checkpoint this log signed, under whichever of its keys (current or retired). */
  sthOf(checkpoint: string): JsonSth {
    return this.keys.sthOf(checkpoint);
  }

  /** The in-memory tree; sizes beyond `latest().sth.tree_size` are not signed yet. */
  get log(): TileLog {
    return this.tree;
  }

  latest(): PublishedTreeHead {
    if (!this.head) throw new Error('the log sequencer has not started');
    return this.head;
  }

  latestPosition(): number {
    return this.headPosition;
  }

  /** The sequencer appends every head itself: it never trails the store. */
  async catchUp(): Promise<void> {}

  async start(): Promise<void> {
    this.loop = this.run();
    await Promise.race([this.ready, this.loop]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopSignal.abort();
    await this.subscription?.close();
    await this.loop;
  }

  /**
   * Resolves when the admission event `eventId` (appended at `position`) is a leaf under a signed tree
   * head. Call it after the append: recent integrations are remembered.
   */
  waitForEvent(eventId: string): Promise<IntegratedLeaf> {
    return this.leaves.wait(eventId);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.rebuild();
        this.readyResolve();
        await this.follow();
        return;
      } catch (error) {
        if (this.stopped) return;
        this.options.logger.error({ err: error }, 'log sequencer failed; rebuilding from the event store');
        await sleep(500, this.stopSignal.signal);
      }
    }
  }

  /** Rebuilds the tree from the admission events and checks it against the last signed tree head. */
  private async rebuild(): Promise<void> {
    const { eventStore } = this.options;
    let last: RecordedEvent<TreeHeadSigned> | null = null;
    for await (const event of eventStore.readStream(LOG_STREAM, { direction: 'backwards', maxCount: 1 })) {
      last = event as RecordedEvent<TreeHeadSigned>;
    }
    this.tree = new TileLog();
    this.revision = last?.revision ?? -1;
    this.lastPosition = 0;
    if (last) {
      const { tree_size: size, leaf_positions: positions } = last.data;
      const upTo = positions.length > 0 ? positions[positions.length - 1]! : await this.positionOfLeaf(size);
      const hashes: Uint8Array[] = [];
      for await (const event of eventStore.readAll({ filter: { eventTypes: ADMISSION_EVENT_TYPES } })) {
        if (event.position > upTo) break;
        hashes.push(fromHex((event.data as { leaf_hash: string }).leaf_hash));
        if (hashes.length === 4096) await this.tree.appendLeafHashes(hashes.splice(0));
        this.lastPosition = event.position;
      }
      await this.tree.appendLeafHashes(hashes);
      if (this.tree.size !== size || toHex(this.tree.root()) !== last.data.root_hash) {
        throw new Error(
          `the admission events give a tree of ${this.tree.size} leaves with root ${toHex(this.tree.root())}, ` +
            `but the last signed tree head has ${size} leaves with root ${last.data.root_hash}`,
        );
      }
      this.head = {
        checkpoint: last.data.checkpoint,
        sth: this.sthOf(last.data.checkpoint),
      };
      this.headPosition = last.position;
    } else {
      await this.publish([], []);
    }
    this.options.logger.info({ tree_size: this.tree.size, origin: this.origin }, 'merkle log ready');
  }

  /** Position of the event that made leaf `size - 1`, for a head whose batch was empty (size 0 → 0). */
  private async positionOfLeaf(size: number): Promise<number> {
    if (size === 0) return 0;
    let count = 0;
    for await (const event of this.options.eventStore.readAll({
      filter: { eventTypes: ADMISSION_EVENT_TYPES },
    })) {
      if (++count === size) return event.position;
    }
    throw new Error(`the event store holds fewer than ${size} admission events`);
  }

  private async follow(): Promise<void> {
    this.subscription = this.options.eventStore.subscribeToAll({
      after: this.lastPosition,
      filter: { eventTypes: ADMISSION_EVENT_TYPES },
      maxBatchSize: this.options.maxBatch ?? 4096,
      dataMembers: LEAF_HASH_ONLY,
    });
    if (this.stopped) await this.subscription.close();
    for await (const batch of this.subscription) {
      const stop = this.options.metrics?.sequencerBatchSeconds.startTimer();
      await this.tree.appendLeafHashes(
        batch.map((event) => fromHex((event.data as { leaf_hash: string }).leaf_hash)),
      );
      await this.publish(
        batch,
        batch.map((event) => event.position),
      );
      stop?.();
      this.options.metrics?.sequencerLeaves.inc(batch.length);
    }
  }

  /** Signs the current tree, appends the head (fenced by revision), then releases the batch's waiters. */
  private async publish(batch: readonly RecordedEvent[], positions: number[]): Promise<void> {
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
    const data: TreeHeadSigned = {
      origin: this.origin,
      tree_size: size,
      root_hash: sth.root_hash,
      timestamp: sth.timestamp,
      checkpoint,
      first_leaf_index: firstIndex,
      leaf_positions: positions,
    };
    const result = await this.options.eventStore.append(
      LOG_STREAM,
      [
        {
          type: 'TreeHeadSigned',
          data,
          tenant_id: SYSTEM_TENANT,
          correlation_id: `sth-${size}`,
          causation_id: null,
        },
      ],
      { expectedRevision: this.revision < 0 ? 'no-stream' : this.revision },
    );
    this.revision = result.nextRevision;
    this.head = { sth, checkpoint };
    this.headPosition = result.position;
    if (batch.length > 0) this.lastPosition = batch[batch.length - 1]!.position;
    const head = this.head;
    for (let i = 0; i < batch.length; i++)
      this.leaves.settle(batch[i]!.id, { leafIndex: firstIndex + i, head });
  }
}
