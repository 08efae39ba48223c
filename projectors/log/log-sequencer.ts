/**
 * The single writer of the Merkle logs a process sequences. One subscription follows the admission
 * events in global event-store order and hands each log's admissions to that log's writer
 * (log-writer.ts), which integrates them and signs one checkpoint per batch; a log's leaf order is the
 * order of its admissions in the store. The logs themselves are learned from `LogCreated` events (the
 * shared log is always there), so the sequencer is also the process's `LogDirectory`.
 *
 * Which logs it writes: every log (embedded server, `writes: 'all'`), only the shared log (tools and
 * tests, `'shared'`), or those it is told to `join` (the production topology, where a lease per log
 * decides: leased-sequencer.ts). A log joined later is rebuilt from the store up to where the
 * subscription is, without stopping the others. Everything a writer holds is rebuilt from the event
 * store when it joins and checked against the log's last signed root.
 */
import type { Logger } from 'pino';
import { type JsonSth, logOfEvent, SHARED_LOG_NAME } from '../../domain/log';
import type { LogCreated } from '../../event-schemas';
import type { NoteSigner, TileLog } from '../../merkle-core';
import type { EventStore, EventSubscription, RecordedEvent } from '../../ports/event-store';
import type {
  IntegratedLeaf,
  LogDescription,
  LogDirectory,
  LogName,
  LogSource,
  PublishedTreeHead,
} from '../../ports/log';
import type { Metrics } from '../../runtime/support/metrics';
import { sleep } from '../../runtime/support/sleep';
import { FollowedPosition } from '../engine/position-waiters';
import { LeafWaiters } from './leaf-waiters';
import { byLogOrder, describedLog } from './log-directory';
import { type AdmissionLeaf, LogWriter } from './log-writer';

export { SYSTEM_TENANT } from './log-writer';

/**
 * Events whose record becomes a leaf, and the member holding that record. A `LogAnchored` (another
 * log's checkpoint, anchored: domain/log/anchor.ts) names no log: it is always a leaf of the shared log.
 * The agent platform's leaves (a config version, a passport, a governed action: signed records of
 * domain/platform/records.ts) go to their owner's tenant's log, sequenced with the evidence in one tree.
 */
export const LEAF_RECORD_MEMBER = {
  EvidenceAdmitted: 'envelope',
  ExecutionAdmitted: 'trace',
  VarianceRecorded: 'record',
  LogAnchored: 'record',
  AgentConfigVersioned: 'record',
  AgentPassportIssued: 'record',
  AgentActionDecided: 'record',
} as const;

/**
 * The clearinghouse's own leaf events. A wait for the read models after one of them names these, not
 * every leaf type: a read model reading the platform's leaf events but none of these (the agents read
 * model, the webhook delivery queue) never sees, so never passes, the position of an evidence admission.
 */
export const GOVERNANCE_ADMISSION_EVENT_TYPES = [
  'EvidenceAdmitted',
  'ExecutionAdmitted',
  'VarianceRecorded',
  'LogAnchored',
] as const satisfies readonly (keyof typeof LEAF_RECORD_MEMBER)[];

/** The agent platform's leaf events (a subset of LEAF_RECORD_MEMBER's). */
export const PLATFORM_LEAF_EVENT_TYPES = [
  'AgentConfigVersioned',
  'AgentPassportIssued',
  'AgentActionDecided',
] as const satisfies readonly (keyof typeof LEAF_RECORD_MEMBER)[];
export const ADMISSION_EVENT_TYPES = Object.keys(LEAF_RECORD_MEMBER) as (keyof typeof LEAF_RECORD_MEMBER)[];

/**
 * A leaf is its stored hash and its log: followers of the logs read only these members of the (5 KB)
 * admissions.
 */
export const LEAF_HASH_ONLY = Object.fromEntries(
  ADMISSION_EVENT_TYPES.map((type) => [type, ['leaf_hash', 'log']]),
);

/** The stream of the shared log's signed tree heads (the others': `merkle-log-<name>`). */
export const LOG_STREAM = 'merkle-log';

const FOLLOWED_TYPES = [...ADMISSION_EVENT_TYPES, 'LogCreated'];
const ADMISSIONS: ReadonlySet<string> = new Set(ADMISSION_EVENT_TYPES);

export interface LogSequencerOptions {
  eventStore: EventStore;
  /** The shared log's signer. */
  signer: NoteSigner;
  /** Verifier keys of the shared log's retired keys (`gov keys rotate log`). */
  retiredVerifierKeys?: readonly string[];
  /** The signer of another log (its key file), read when this process starts writing it. */
  signerOf?(name: LogName): NoteSigner;
  /** Which logs this process writes (see the top of this file); default `'shared'`. */
  writes?: 'all' | 'shared' | 'joined';
  logger: Logger;
  metrics?: Metrics;
  clock?: () => Date;
  /** Largest batch integrated under one signature. */
  maxBatch?: number;
  /** Told of each log once it is known (the shared log first). */
  onLearned?(log: LogDescription): void;
}

interface KnownLog {
  description: LogDescription;
  /** Position of its `LogCreated` event (0 for the shared log): none of its admissions precede it. */
  createdAt: number;
}

export class LogSequencer implements LogSource, LogDirectory {
  private readonly known = new Map<LogName, KnownLog>();
  private readonly writers = new Map<LogName, LogWriter>();
  private readonly sources = new Map<LogName, WrittenLog>();
  private readonly waiters = new Map<LogName, LeafWaiters>();
  /** The logs this process is to write (each has a writer, once rebuilt). */
  private readonly wanted = new Set<LogName>();
  /** How far the subscription's events have been handed to the writers. */
  private position = 0;
  /** Whether the writers are rebuilt up to `position` (not before the first catch-up, nor after a failure). */
  private synced = false;
  /** How far logs are learned, for `caughtUp`. */
  private readonly learned = new FollowedPosition();
  /** Batches, joins and leaves run one at a time, in this order. */
  private queue: Promise<unknown> = Promise.resolve();
  private subscription: EventSubscription | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private readonly stopSignal = new AbortController();
  private readyResolve!: () => void;
  /** Resolves once the logs are learned and the ones written from the start are rebuilt and signed. */
  readonly ready = new Promise<void>((resolve) => {
    this.readyResolve = resolve;
  });

  constructor(private readonly options: LogSequencerOptions) {
    const { signer } = options;
    this.learn(
      {
        name: SHARED_LOG_NAME,
        kind: 'shared',
        origin: signer.name,
        verifierKey: signer.verifierKey,
        tenantId: null,
      },
      0,
    );
    if ((options.writes ?? 'shared') === 'shared') this.wanted.add(SHARED_LOG_NAME);
  }

  // ---- the shared log, as the `LogSource` of this process (before there were many logs, the only one)

  /** The shared log through whichever writer holds it now (or held it last, while it is rebuilt). */
  private get shared(): LogSource {
    return this.written(SHARED_LOG_NAME);
  }

  get origin(): string {
    return this.options.signer.name;
  }

  get verifierKey(): string {
    return this.options.signer.verifierKey;
  }

  get log() {
    return this.shared.log;
  }

  sthOf(checkpoint: string): JsonSth {
    return this.shared.sthOf(checkpoint);
  }

  get signed(): boolean {
    return this.shared.signed;
  }

  latest(): PublishedTreeHead {
    return this.shared.latest();
  }

  latestPosition(): number {
    return this.shared.latestPosition();
  }

  async catchUp(): Promise<void> {}

  waitForEvent(eventId: string): Promise<IntegratedLeaf> {
    return this.waitForLeaf(eventId, SHARED_LOG_NAME);
  }

  // ---- the directory of logs

  list(): LogDescription[] {
    return [...this.known.values()].map((log) => log.description).sort(byLogOrder);
  }

  /**
   * Log `name` as this process writes it, or null when it does not write it. The same object for as
   * long as the process runs, whatever writer holds the log now: a writer that failed is replaced by
   * one rebuilt from the store, and a route serving the log keeps following it. Not `signed` while
   * no writer holds it (being rebuilt, or not yet joined).
   */
  source(name: LogName): LogSource | null {
    return this.wanted.has(name) && this.known.has(name) ? this.written(name) : null;
  }

  private written(name: LogName): WrittenLog {
    let source = this.sources.get(name);
    if (!source) {
      source = new WrittenLog(name, () => this.writers.get(name), this.waitersOf(name));
      this.sources.set(name, source);
    }
    return source;
  }

  /** The logs this process writes now. */
  writing(): LogName[] {
    return [...this.writers.keys()];
  }

  async caughtUp(): Promise<void> {
    await this.learned.wait(await this.options.eventStore.headPosition({ eventTypes: ['LogCreated'] }));
  }

  /**
   * Resolves when admission `eventId` of log `log` is a leaf under a signed head of that log, which
   * this process writes (or will, once it has learned or joined it).
   */
  waitForLeaf(eventId: string, log: LogName): Promise<IntegratedLeaf> {
    return this.waitersOf(log).wait(eventId);
  }

  /** Kept across writers of a log, so that a wait outlives a rebuild. */
  private waitersOf(log: LogName): LeafWaiters {
    let waiters = this.waiters.get(log);
    if (!waiters) {
      waiters = new LeafWaiters();
      this.waiters.set(log, waiters);
    }
    return waiters;
  }

  // ---- running

  async start(): Promise<void> {
    this.loop = this.run();
    await Promise.race([this.ready, this.loop]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopSignal.abort();
    await this.subscription?.close();
    await this.loop;
    await this.queue.catch(() => undefined);
  }

  /** Starts writing log `name` (rebuilt from the store); resolves once it is signed up to date. */
  join(name: LogName): Promise<void> {
    this.wanted.add(name);
    return this.enqueue(async () => {
      // Before the (next) catch-up with the store, that catch-up rebuilds it.
      if (this.synced && this.wanted.has(name) && !this.writers.has(name)) await this.rebuild([name]);
    });
  }

  /** Stops writing log `name` (another process took it over); its waiters are left to time out. */
  leave(name: LogName): Promise<void> {
    this.wanted.delete(name);
    return this.enqueue(async () => {
      if (!this.wanted.has(name)) this.writers.delete(name);
    });
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.enqueue(() => this.catchUpWithStore());
        this.readyResolve();
        await this.follow();
        return;
      } catch (error) {
        if (this.stopped) return;
        this.options.logger.error({ err: error }, 'log sequencer failed; rebuilding from the event store');
        this.synced = false;
        this.writers.clear();
        await sleep(500, this.stopSignal.signal);
      }
    }
  }

  /** Learns the logs the store holds now and rebuilds the ones to write, up to the same position. */
  private async catchUpWithStore(): Promise<void> {
    const { eventStore } = this.options;
    const upTo = await eventStore.headPosition({ eventTypes: FOLLOWED_TYPES });
    for await (const event of eventStore.readAll({ filter: { eventTypes: ['LogCreated'] } })) {
      if (event.position > upTo) break;
      this.learnFrom(event as RecordedEvent<LogCreated>);
    }
    this.position = upTo;
    this.writers.clear();
    await this.rebuild([...this.wanted]);
    this.synced = true;
    this.learned.advance(upTo);
  }

  private learnFrom(event: RecordedEvent<LogCreated>): void {
    const { data } = event;
    if (this.known.has(data.log)) return;
    this.learn(describedLog(data), event.position);
  }

  private learn(description: LogDescription, createdAt: number): void {
    this.known.set(description.name, { description, createdAt });
    if (this.options.writes === 'all') this.wanted.add(description.name);
    this.options.onLearned?.(description);
  }

  private async follow(): Promise<void> {
    this.subscription = this.options.eventStore.subscribeToAll({
      after: this.position,
      filter: { eventTypes: FOLLOWED_TYPES },
      maxBatchSize: this.options.maxBatch ?? 4096,
      dataMembers: LEAF_HASH_ONLY,
    });
    if (this.stopped) await this.subscription.close();
    for await (const batch of this.subscription) await this.enqueue(() => this.apply(batch));
  }

  /** Hands a batch's admissions to their logs' writers (all logs at once), then rebuilds logs learned in it. */
  private async apply(batch: readonly RecordedEvent[]): Promise<void> {
    const byLog = new Map<LogName, AdmissionLeaf[]>();
    const learnedHere: LogName[] = [];
    for (const event of batch) {
      if (!ADMISSIONS.has(event.type)) {
        const before = this.known.size;
        this.learnFrom(event as RecordedEvent<LogCreated>);
        if (this.known.size > before) learnedHere.push((event.data as LogCreated).log);
        continue;
      }
      const log = logOfEvent(event.data);
      if (!this.writers.has(log)) continue;
      let leaves = byLog.get(log);
      if (!leaves) {
        leaves = [];
        byLog.set(log, leaves);
      }
      leaves.push({
        id: event.id,
        position: event.position,
        leafHash: (event.data as { leaf_hash: string }).leaf_hash,
      });
    }
    await Promise.all(
      [...byLog].map(async ([log, leaves]) => {
        const writer = this.writers.get(log)!;
        try {
          await writer.integrate(leaves);
        } catch (error) {
          this.dropWriter(log, error);
        }
      }),
    );
    this.position = batch[batch.length - 1]!.position;
    const toJoin = learnedHere.filter((name) => this.wanted.has(name));
    if (toJoin.length > 0) await this.rebuild(toJoin);
    // Known, and written when this process writes every log.
    this.learned.advance(this.position);
  }

  /**
   * A writer's append failed (another process writes the log now, or the store failed): it stops
   * writing the log, and takes it up again, rebuilt, if it is still to write it.
   */
  private dropWriter(log: LogName, error: unknown): void {
    this.writers.delete(log);
    if (this.stopped) return;
    this.options.logger.error(
      { err: error, log },
      'the log writer failed; rebuilding the log from the event store',
    );
    void sleep(500, this.stopSignal.signal).then(() => {
      if (!this.stopped && this.wanted.has(log)) this.join(log).catch(() => undefined);
    });
  }

  /**
   * Rebuilds the writers of `names` from the admissions up to `this.position`, in one read of the store
   * from the oldest of their `LogCreated` events, and signs what was admitted but not signed.
   */
  private async rebuild(names: readonly LogName[]): Promise<void> {
    const logs = names.filter((name) => this.known.has(name));
    if (logs.length === 0) return;
    const writers = new Map(logs.map((name) => [name, this.newWriter(name)]));
    await Promise.all([...writers.values()].map((writer) => writer.readLastHead()));
    const from = Math.min(...logs.map((name) => this.known.get(name)!.createdAt));
    const upTo = this.position;
    for await (const event of this.options.eventStore.readAll({
      after: from > 0 ? from : null,
      filter: { eventTypes: ADMISSION_EVENT_TYPES },
    })) {
      if (event.position > upTo) break;
      const writer = writers.get(logOfEvent(event.data));
      if (writer)
        await writer.rebuildLeaf({
          id: event.id,
          position: event.position,
          leafHash: (event.data as { leaf_hash: string }).leaf_hash,
        });
    }
    for (const [name, writer] of writers) {
      // Left meanwhile: another process writes it now.
      if (!this.wanted.has(name)) continue;
      // In place before it signs what was not signed, so a leaf that signature settles is served at once.
      this.writers.set(name, writer);
      try {
        await writer.finishRebuild();
      } catch (error) {
        this.dropWriter(name, error);
      }
    }
  }

  private newWriter(name: LogName): LogWriter {
    const { options } = this;
    const shared = name === SHARED_LOG_NAME;
    if (!shared && !options.signerOf)
      throw new Error(`no key for log '${name}': this sequencer writes the shared log only`);
    return new LogWriter({
      name,
      eventStore: options.eventStore,
      leaves: this.waitersOf(name),
      signer: shared ? options.signer : options.signerOf!(name),
      ...(shared && options.retiredVerifierKeys ? { retiredVerifierKeys: options.retiredVerifierKeys } : {}),
      logger: options.logger,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }
}

/**
 * A log this process writes, through whichever writer holds it now (log-sequencer.ts `source`); while
 * none does (being rebuilt), the last one's signed state, which stays true of the log.
 */
class WrittenLog implements LogSource {
  private last: LogWriter | undefined;

  constructor(
    readonly name: LogName,
    private readonly writer: () => LogWriter | undefined,
    /** Kept across writers, so that a wait outlives a rebuild. */
    private readonly leaves: LeafWaiters,
  ) {}

  private get now(): LogWriter | undefined {
    const writer = this.writer();
    if (writer?.signed) this.last = writer;
    return this.last;
  }

  private get current(): LogWriter {
    const writer = this.now;
    if (!writer)
      throw new Error(`the log sequencer has not started: no tree head of log '${this.name}' is signed yet`);
    return writer;
  }

  get signed(): boolean {
    return this.now !== undefined;
  }

  get verifierKey(): string {
    return this.current.verifierKey;
  }

  get log(): TileLog {
    return this.current.log;
  }

  latest(): PublishedTreeHead {
    return this.current.latest();
  }

  latestPosition(): number {
    return this.current.latestPosition();
  }

  async catchUp(): Promise<void> {}

  sthOf(checkpoint: string): JsonSth {
    return this.current.sthOf(checkpoint);
  }

  waitForEvent(eventId: string): Promise<IntegratedLeaf> {
    return this.leaves.wait(eventId);
  }
}
