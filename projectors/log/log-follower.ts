/**
 * The Merkle log as a process that does not sequence sees it (command-api, read-api and dispatcher
 * processes of the production topology): it follows the admission events and the sequencer's
 * `TreeHeadSigned` events in global order, rebuilds the same tree in memory and exposes only signed
 * sizes. Every head is checked on arrival (signature under a known log key, root at its size), so a
 * follower never serves a tree the sequencer did not sign.
 */
import type { Logger } from 'pino';
import type { JsonSth } from '../../domain/log';
import type { TreeHeadSigned } from '../../event-schemas';
import { fromHex, TileLog, toHex } from '../../merkle-core';
import type { EventStore, EventSubscription, RecordedEvent } from '../../ports/event-store';
import type { IntegratedLeaf, LogSource, PublishedTreeHead } from '../../ports/log';
import { sleep } from '../../runtime/support/sleep';
import { FreshRead } from '../engine/fresh-read';
import { FollowedPosition } from '../engine/position-waiters';
import { LeafWaiters } from './leaf-waiters';
import { ADMISSION_EVENT_TYPES, LEAF_HASH_ONLY } from './log-sequencer';
import { LogVerifierKeys } from './log-verifier-keys';

export interface LogFollowerOptions {
  eventStore: EventStore;
  /** The log's verifier keys in note format, the current key first, then retired ones. */
  verifierKeys: readonly string[];
  logger: Logger;
  /** Called with each `WitnessCosigned` event (the latest head's cosignatures may have changed). */
  onCosigned?(event: RecordedEvent): void;
}

const FOLLOWED_TYPES = [...ADMISSION_EVENT_TYPES, 'TreeHeadSigned', 'WitnessCosigned'];

export class LogFollower implements LogSource {
  private tree = new TileLog();
  private head: PublishedTreeHead | null = null;
  /** Position of the head's `TreeHeadSigned` event. */
  private headPosition = 0;
  /** How far the subscription has read. */
  private readonly read = new FollowedPosition();
  /** The position of the store's newest head, for `catchUp`. */
  private readonly newestHeadInStore: FreshRead<number>;
  /** Admissions not yet covered by a head: their position → event id. */
  private readonly uncovered = new Map<number, string>();
  private readonly leaves = new LeafWaiters();
  private readonly keys: LogVerifierKeys;
  private subscription: EventSubscription | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private readonly stopSignal = new AbortController();
  private caughtUp!: () => void;
  /** Resolves once the follower has read what the store held at start and holds a signed head. */
  readonly ready = new Promise<void>((resolve) => {
    this.caughtUp = resolve;
  });

  constructor(private readonly options: LogFollowerOptions) {
    this.keys = new LogVerifierKeys(options.verifierKeys);
    this.newestHeadInStore = new FreshRead(() =>
      options.eventStore.headPosition({ eventTypes: ['TreeHeadSigned'] }),
    );
  }

  get verifierKey(): string {
    return this.options.verifierKeys[0]!;
  }

  get log(): TileLog {
    return this.tree;
  }

  latest(): PublishedTreeHead {
    if (!this.head) throw new Error('the log follower has not read a signed tree head yet');
    return this.head;
  }

  sthOf(checkpoint: string): JsonSth {
    return this.keys.sthOf(checkpoint);
  }

  latestPosition(): number {
    return this.headPosition;
  }

  async catchUp(): Promise<void> {
    await this.read.wait(await this.newestHeadInStore.get());
  }

  waitForEvent(eventId: string): Promise<IntegratedLeaf> {
    return this.leaves.wait(eventId);
  }

  /** Resolves once caught up with the store (and a head exists: the sequencer publishes one at start). */
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

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.follow();
        return;
      } catch (error) {
        if (this.stopped) return;
        this.options.logger.error(
          { err: error },
          'log follower failed; reading the log again from the start',
        );
        await sleep(500, this.stopSignal.signal);
      }
    }
  }

  private async follow(): Promise<void> {
    const { eventStore } = this.options;
    this.tree = new TileLog();
    this.uncovered.clear();
    // Heads read before a restart may be ahead of the tree rebuilt now: serve none until caught up.
    this.head = null;
    const startHead = await eventStore.headPosition({ eventTypes: ['TreeHeadSigned'] });
    this.subscription = eventStore.subscribeToAll({
      after: null,
      filter: { eventTypes: FOLLOWED_TYPES },
      dataMembers: LEAF_HASH_ONLY,
    });
    if (this.stopped) await this.subscription.close();
    for await (const batch of this.subscription) {
      await this.apply(batch);
      this.read.advance(batch[batch.length - 1]!.position);
      if (this.head && batch[batch.length - 1]!.position >= startHead) this.caughtUp();
    }
  }

  private async apply(batch: readonly RecordedEvent[]): Promise<void> {
    let hashes: Uint8Array[] = [];
    for (const event of batch) {
      if (event.type === 'TreeHeadSigned') {
        await this.tree.appendLeafHashes(hashes);
        hashes = [];
        this.acceptHead(event as RecordedEvent<TreeHeadSigned>);
      } else if (event.type === 'WitnessCosigned') {
        this.options.onCosigned?.(event);
      } else {
        hashes.push(fromHex((event.data as { leaf_hash: string }).leaf_hash));
        this.uncovered.set(event.position, event.id);
      }
    }
    await this.tree.appendLeafHashes(hashes);
  }

  /** Checks a head against the tree rebuilt here, then settles the admissions it covers. */
  private acceptHead(event: RecordedEvent<TreeHeadSigned>): void {
    const { tree_size: size, root_hash: rootHash, checkpoint, first_leaf_index: first } = event.data;
    if (size > this.tree.size)
      throw new Error(
        `tree head at position ${event.position} covers ${size} leaves; only ${this.tree.size} were admitted before it`,
      );
    const root = toHex(this.tree.root(size));
    if (root !== rootHash)
      throw new Error(
        `tree head at position ${event.position} has root ${rootHash}, but the admitted leaves give ${root}`,
      );
    const sth = this.sthOf(checkpoint);
    if (sth.root_hash !== rootHash || sth.tree_size !== size)
      throw new Error(`tree head at position ${event.position}: its checkpoint does not match its event`);
    this.head = { checkpoint, sth };
    this.headPosition = event.position;
    const head = this.head;
    event.data.leaf_positions.forEach((position, i) => {
      const eventId = this.uncovered.get(position);
      if (eventId === undefined) return;
      this.uncovered.delete(position);
      this.leaves.settle(eventId, { leafIndex: first + i, head });
    });
  }
}
