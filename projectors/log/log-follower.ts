/**
 * The Merkle logs as a process that does not sequence sees them (command-api, read-api and dispatcher
 * processes of the production topology): one subscription follows the admission events, the
 * sequencers' `TreeHeadSigned` events and the `LogCreated` events in global order, and rebuilds each
 * log's tree in memory, exposing only signed sizes. Every head is checked on arrival (signature under a
 * known key of its log, root at its size), so a follower never serves a tree a sequencer did not sign.
 * It is the process's `LogDirectory`; `LogFollower` itself is the shared log's `LogSource`.
 */
import type { Logger } from 'pino';
import { type JsonSth, logOfEvent, SHARED_LOG_NAME } from '../../domain/log';
import type { LogCreated, TreeHeadSigned } from '../../event-schemas';
import { fromHex, TileLog, toHex } from '../../merkle-core';
import type { EventStore, EventSubscription, RecordedEvent } from '../../ports/event-store';
import type {
  IntegratedLeaf,
  LogDescription,
  LogDirectory,
  LogName,
  LogSource,
  PublishedTreeHead,
} from '../../ports/log';
import { sleep } from '../../runtime/support/sleep';
import { FreshRead } from '../engine/fresh-read';
import { FollowedPosition } from '../engine/position-waiters';
import { LeafWaiters } from './leaf-waiters';
import { byLogOrder, describedLog } from './log-directory';
import { ADMISSION_EVENT_TYPES, LEAF_HASH_ONLY } from './log-sequencer';
import { LogVerifierKeys } from './log-verifier-keys';

export interface LogFollowerOptions {
  eventStore: EventStore;
  /** The shared log's verifier keys in note format, the current key first, then retired ones. */
  verifierKeys: readonly string[];
  logger: Logger;
  /** Called with each `WitnessCosigned` event (the latest head's cosignatures may have changed). */
  onCosigned?(event: RecordedEvent): void;
}

const FOLLOWED_TYPES = [...ADMISSION_EVENT_TYPES, 'TreeHeadSigned', 'WitnessCosigned', 'LogCreated'];

/** One log as a follower rebuilds it. */
export class FollowedLog implements LogSource {
  private tree = new TileLog();
  private head: PublishedTreeHead | null = null;
  private headPosition = 0;
  /** Admissions not yet covered by a head: their position → event id. */
  private readonly uncovered = new Map<number, string>();
  private readonly leaves = new LeafWaiters();
  private readonly keys: LogVerifierKeys;
  /** Hashes read since the last head, appended to the tree when the next head (or the batch's end) comes. */
  private pending: Uint8Array[] = [];

  constructor(
    readonly description: LogDescription,
    verifierKeys: readonly string[],
    /** Resolves once the follower holds every head the store held when called. */
    readonly catchUp: () => Promise<void>,
  ) {
    this.keys = new LogVerifierKeys(verifierKeys);
  }

  get verifierKey(): string {
    return this.description.verifierKey;
  }

  get log(): TileLog {
    return this.tree;
  }

  /** Whether a signed head has been read (a log just created has none until its sequencer signs one). */
  get signed(): boolean {
    return this.head !== null;
  }

  latest(): PublishedTreeHead {
    if (!this.head)
      throw new Error(
        `the log follower has not read a signed tree head of log '${this.description.name}' yet`,
      );
    return this.head;
  }

  sthOf(checkpoint: string): JsonSth {
    return this.keys.sthOf(checkpoint);
  }

  latestPosition(): number {
    return this.headPosition;
  }

  waitForEvent(eventId: string): Promise<IntegratedLeaf> {
    return this.leaves.wait(eventId);
  }

  /** Forgets the tree, to read the log again from the start. */
  reset(): void {
    this.tree = new TileLog();
    this.uncovered.clear();
    this.pending = [];
    // Heads read before a restart may be ahead of the tree rebuilt now: serve none until caught up.
    this.head = null;
  }

  admitted(event: RecordedEvent): void {
    this.pending.push(fromHex((event.data as { leaf_hash: string }).leaf_hash));
    this.uncovered.set(event.position, event.id);
  }

  async flush(): Promise<void> {
    if (this.pending.length > 0) await this.tree.appendLeafHashes(this.pending.splice(0));
  }

  /** Checks a head against the tree rebuilt here, then settles the admissions it covers. */
  async signedHead(event: RecordedEvent<TreeHeadSigned>): Promise<void> {
    await this.flush();
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
      this.leaves.settle(eventId, { leafIndex: first + i, position, head });
    });
  }
}

export class LogFollower implements LogSource, LogDirectory {
  private readonly logs = new Map<LogName, FollowedLog>();
  private readonly shared: FollowedLog;
  /** How far the subscription has read. */
  private readonly read = new FollowedPosition();
  /** The position of the store's newest head, for `catchUp`. */
  private readonly newestHeadInStore: FreshRead<number>;
  private subscription: EventSubscription | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private readonly stopSignal = new AbortController();
  private caughtUpResolve!: () => void;
  /** Resolves once the follower has read what the store held at start and holds a signed shared head. */
  readonly ready = new Promise<void>((resolve) => {
    this.caughtUpResolve = resolve;
  });

  constructor(private readonly options: LogFollowerOptions) {
    this.newestHeadInStore = new FreshRead(() =>
      options.eventStore.headPosition({ eventTypes: ['TreeHeadSigned'] }),
    );
    const [current] = options.verifierKeys;
    this.shared = new FollowedLog(
      {
        name: SHARED_LOG_NAME,
        kind: 'shared',
        origin: current!.split('+')[0]!,
        verifierKey: current!,
        tenantId: null,
      },
      options.verifierKeys,
      () => this.catchUp(),
    );
    this.logs.set(SHARED_LOG_NAME, this.shared);
  }

  // ---- the shared log's `LogSource`

  get verifierKey(): string {
    return this.shared.verifierKey;
  }

  get log(): TileLog {
    return this.shared.log;
  }

  get signed(): boolean {
    return this.shared.signed;
  }

  latest(): PublishedTreeHead {
    return this.shared.latest();
  }

  sthOf(checkpoint: string): JsonSth {
    return this.shared.sthOf(checkpoint);
  }

  latestPosition(): number {
    return this.shared.latestPosition();
  }

  async catchUp(): Promise<void> {
    await this.read.wait(await this.newestHeadInStore.get());
  }

  waitForEvent(eventId: string): Promise<IntegratedLeaf> {
    return this.shared.waitForEvent(eventId);
  }

  // ---- the directory

  list(): LogDescription[] {
    return [...this.logs.values()].map((log) => log.description).sort(byLogOrder);
  }

  source(name: LogName): FollowedLog | null {
    return this.logs.get(name) ?? null;
  }

  async caughtUp(): Promise<void> {
    await this.read.wait(await this.options.eventStore.headPosition({ eventTypes: ['LogCreated'] }));
  }

  /** Resolves when admission `eventId` of `log` is a leaf under a signed head (once the log is known). */
  async waitForLeaf(eventId: string, log: LogName): Promise<IntegratedLeaf> {
    let followed = this.logs.get(log);
    if (!followed) {
      await this.caughtUp();
      followed = this.logs.get(log);
      if (!followed) throw new Error(`no log '${log}' in the event store`);
    }
    return followed.waitForEvent(eventId);
  }

  // ---- running

  /** Resolves once caught up with the store (and a shared head exists: the sequencer publishes one at start). */
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
          'log follower failed; reading the logs again from the start',
        );
        await sleep(500, this.stopSignal.signal);
      }
    }
  }

  private async follow(): Promise<void> {
    const { eventStore } = this.options;
    for (const log of this.logs.values()) log.reset();
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
      if (this.shared.signed && batch[batch.length - 1]!.position >= startHead) this.caughtUpResolve();
    }
  }

  private async apply(batch: readonly RecordedEvent[]): Promise<void> {
    const touched = new Set<FollowedLog>();
    for (const event of batch) {
      switch (event.type) {
        case 'TreeHeadSigned':
          await this.logOf(event).signedHead(event as RecordedEvent<TreeHeadSigned>);
          break;
        case 'WitnessCosigned':
          this.options.onCosigned?.(event);
          break;
        case 'LogCreated':
          this.learn(event as RecordedEvent<LogCreated>);
          break;
        default: {
          const log = this.logOf(event);
          log.admitted(event);
          touched.add(log);
        }
      }
    }
    for (const log of touched) await log.flush();
  }

  private logOf(event: RecordedEvent): FollowedLog {
    const name = logOfEvent(event.data);
    const log = this.logs.get(name);
    // A log's LogCreated comes before anything of it in the global order.
    if (!log)
      throw new Error(
        `${event.type} at position ${event.position} is of log '${name}', which no LogCreated event created before it`,
      );
    return log;
  }

  private learn(event: RecordedEvent<LogCreated>): void {
    const { data } = event;
    if (this.logs.has(data.log)) return;
    this.logs.set(data.log, new FollowedLog(describedLog(data), [data.verifier_key], () => this.catchUp()));
  }
}
