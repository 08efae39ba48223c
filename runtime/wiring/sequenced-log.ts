import { SHARED_LOG_NAME, treeHeadStreamOf } from '../../domain/log';
import { addSignatureLines, fromHex, LeafHashIndex, toHex } from '../../merkle-core';
import type { EventStore } from '../../ports/event-store';
import {
  type LeafView,
  type LogDescription,
  type LogDirectory,
  type LogName,
  LogNotSignedError,
  type LogSource,
  type PublishedLog,
  type PublishedLogs,
  type PublishedTreeHead,
} from '../../ports/log';
import {
  governanceProjection,
  LEAVES,
  type StoredLeaf,
} from '../../projectors/governance/governance-projection';
import {
  type CosignatureView,
  TREE_HEADS,
  type TreeHeadView,
  treeHeadId,
  treeHeadsProjection,
} from '../../projectors/log/tree-heads';
import { ReadModelsBehindError, withinTimeout } from '../../read-api/engine/read-barrier';
import type { ReadModels } from '../../read-api/engine/read-models';
import { leafRecordOf } from '../../read-api/governance/reports/admission-records';

/** The latest head with its witness cosignatures, as of the read-model document at `position`. */
interface WitnessedHead {
  size: number;
  position: number;
  head: PublishedTreeHead;
}

export interface SequencedLogOptions {
  /** The log it serves (default `shared`): which tree heads and leaves of the read models are its. */
  log?: LogName;
  /** Resolves once the read model of tree heads has applied the event at `position`. */
  awaitTreeHeads(position: number): Promise<void>;
  /** The longest a read waits for that read model, or for the log source to catch up; then 503. */
  timeoutMs: number;
}

/**
 * The public log as a process serves it: hashes and proofs from the in-memory tree of its log source
 * (the sequencer, or a follower of the sequencer's events), leaf records, historical heads and witness
 * cosignatures from the read models. Only signed sizes are visible. The latest head's cosignatures are
 * kept in memory, so the hot routes (sth, checkpoint, proof) read no store: they are loaded by `start`
 * and refreshed by every `treeHeadAt` of the latest size, which the cosignature command calls once it
 * has recorded one (and, in other processes, the log follower when it reads a `WitnessCosigned`).
 *
 * The latest head is the source's, known the moment it is signed; older heads are documents of the
 * tree-heads read model, which applies them a little later (on the projection thread, or in the
 * projectors process). So a head just handed out (in a 201, as the latest STH) may be missing there
 * for a moment after a newer head is signed: a miss waits until that read model has applied the
 * source's latest head, and with it every older one, before it answers that no head has that size.
 */
export class SequencedLog implements PublishedLog {
  readonly name: LogName;
  private witnessed: WitnessedHead | null = null;
  private readonly hashIndex = new LeafHashIndex((index) => this.sequencer.log.leafHash(index));

  constructor(
    private readonly sequencer: LogSource,
    private readonly readModels: ReadModels,
    /** Where the leaves' records are (the read models name their events). */
    private readonly events: Pick<EventStore, 'readAll'>,
    private readonly options: SequencedLogOptions,
  ) {
    this.name = options.log ?? SHARED_LOG_NAME;
  }

  /**
   * Loads the cosignatures already recorded for the latest head; call once before serving. A log just
   * created elsewhere may have no head here yet: it reads the heads the store holds first, and rejects
   * with `LogNotSignedError` if there is still none.
   */
  async start(): Promise<void> {
    if (!this.sequencer.signed) {
      await this.catchUpWithin();
      if (!this.sequencer.signed) throw new LogNotSignedError(this.name);
    }
    await this.treeHeadAt(this.sequencer.latest().sth.tree_size);
  }

  get verifierKey(): string {
    return this.sequencer.verifierKey;
  }

  latest(): PublishedTreeHead {
    const head = this.sequencer.latest();
    const witnessed = this.witnessed;
    // A newer head has no cosignatures yet: witnesses cosign a head after it is published.
    return witnessed?.size === head.sth.tree_size ? witnessed.head : head;
  }

  async caughtUp(): Promise<PublishedTreeHead> {
    await this.catchUpWithin();
    return this.latest();
  }

  /** The source's `catchUp`, or 503 after the read timeout. */
  private catchUpWithin(): Promise<void> {
    const { timeoutMs } = this.options;
    return withinTimeout(
      this.sequencer.catchUp(),
      timeoutMs,
      () =>
        new ReadModelsBehindError(
          treeHeadStreamOf(this.name),
          this.sequencer.latestPosition(),
          timeoutMs,
          `this process has not read the newest signed tree heads from the event store within ${timeoutMs} ms (${this.sequencer.signed ? `its latest is size ${this.latest().sth.tree_size}` : 'it has none of this log yet'}): nothing is lost, retry shortly`,
        ),
    );
  }

  async treeHeadAt(treeSize: number): Promise<PublishedTreeHead | null> {
    // A head handed out by another process may be newer than this one's: read the store's first.
    if (treeSize > this.sequencer.latest().sth.tree_size && treeSize > (await this.caughtUp()).sth.tree_size)
      return null;
    const doc = await this.headDocument(treeSize);
    const latestSize = this.sequencer.latest().sth.tree_size;
    if (treeSize === latestSize) {
      // The read model may not have the newest head yet; the sequencer does.
      if (doc) this.remember(treeSize, doc.position, doc.data.cosignatures ?? []);
      return this.latest();
    }
    if (doc) return this.withCosignatures(doc.data.checkpoint, doc.data.cosignatures ?? []);
    // Every head signed so far is in the read model once it has applied the latest one.
    const position = this.sequencer.latestPosition();
    const { timeoutMs } = this.options;
    await withinTimeout(
      this.options.awaitTreeHeads(position),
      timeoutMs,
      () => new ReadModelsBehindError(treeHeadsProjection.name, position, timeoutMs),
    );
    const applied = await this.headDocument(treeSize);
    return applied ? this.withCosignatures(applied.data.checkpoint, applied.data.cosignatures ?? []) : null;
  }

  private headDocument(treeSize: number) {
    return this.readModels.get<TreeHeadView>(
      treeHeadsProjection,
      TREE_HEADS,
      treeHeadId(this.name, treeSize),
    );
  }

  /** Keeps the latest head's cosignatures, never replacing them with an older read. */
  private remember(size: number, position: number, cosignatures: readonly CosignatureView[]): void {
    const current = this.witnessed;
    if (current?.size === size && current.position >= position) return;
    const base = this.sequencer.latest();
    if (base.sth.tree_size !== size) return;
    this.witnessed = { size, position, head: this.withCosignatures(base.checkpoint, cosignatures) };
  }

  /** The head whose note carries the log's signature line, then one line per witness cosignature. */
  private withCosignatures(logSigned: string, cosignatures: readonly CosignatureView[]): PublishedTreeHead {
    const checkpoint = addSignatureLines(
      logSigned,
      cosignatures.map((c) => c.line),
    );
    // Heads signed before a log key rotation name a retired key: the sequencer knows them all.
    return { checkpoint, sth: this.sequencer.sthOf(checkpoint) };
  }

  root(treeSize: number): Uint8Array {
    return this.sequencer.log.root(this.signed(treeSize));
  }

  leafHash(index: number): Uint8Array {
    this.signed(index + 1);
    return this.sequencer.log.leafHash(index);
  }

  inclusionProof(index: number, treeSize: number): Uint8Array[] {
    return this.sequencer.log.inclusionProof(index, this.signed(treeSize));
  }

  consistencyProof(from: number, to: number): Uint8Array[] {
    return this.sequencer.log.consistencyProof(from, this.signed(to));
  }

  tile(level: number, index: number, width: number): Uint8Array {
    return this.sequencer.log.tile(level, index, width);
  }

  async leafByHash(leafHashHex: string): Promise<LeafView | null> {
    const doc = await this.readModels.get<StoredLeaf>(governanceProjection, LEAVES, leafHashHex);
    if (!doc || !this.holds(doc.data) || doc.data.leaf_index >= this.latest().sth.tree_size) return null;
    return this.withRecord(doc.data);
  }

  leafIndexByHash(leafHashHex: string): number | null {
    const latest = this.latest().sth.tree_size;
    // Indexed up to the signed size only: a leaf not yet under a head is not in the log.
    this.hashIndex.extendTo(latest);
    const index = this.hashIndex.find(fromHex(leafHashHex));
    return index !== null && index < latest ? index : null;
  }

  async leafByIndex(index: number): Promise<LeafView | null> {
    if (index >= this.latest().sth.tree_size) return null;
    const hash = toHex(this.sequencer.log.leafHash(index));
    const doc = await this.readModels.get<StoredLeaf>(governanceProjection, LEAVES, hash);
    return doc && this.holds(doc.data) ? this.withRecord(doc.data) : null;
  }

  /** Whether a leaf document is of this log (documents written before there were many logs: shared). */
  private holds(stored: StoredLeaf): boolean {
    return (stored.log ?? SHARED_LOG_NAME) === this.name;
  }

  /** The leaf with its record, read from the admission event the read model names. */
  private async withRecord(stored: StoredLeaf): Promise<LeafView> {
    const { position: _, log: __, ...leaf } = stored;
    return { ...leaf, record: await leafRecordOf(this.events, stored) };
  }

  /** Refuses sizes beyond the latest signed head (the tree may hold leaves not signed yet). */
  private signed(treeSize: number): number {
    const size = this.latest().sth.tree_size;
    if (treeSize > size)
      throw new RangeError(`tree size ${treeSize} is beyond the latest signed size ${size}`);
    return treeSize;
  }
}

/**
 * Every log this process serves, one `SequencedLog` each, made when a route first asks for it from
 * the process's `LogDirectory` (and started: its latest head's cosignatures loaded). After that a
 * lookup is a map's, so the hot routes read no store for any log.
 */
export class SequencedLogs implements PublishedLogs {
  private readonly served = new Map<LogName, SequencedLog>();
  private readonly starting = new Map<LogName, Promise<SequencedLog>>();

  constructor(
    private readonly directory: LogDirectory,
    /** A `SequencedLog` of the named log over its source (not started). */
    private readonly make: (name: LogName, source: LogSource) => SequencedLog,
    /** The shared log as the process already serves it (the one the services name `log`). */
    shared: SequencedLog,
  ) {
    this.served.set(SHARED_LOG_NAME, shared);
  }

  get(name: LogName): SequencedLog | null {
    return this.served.get(name) ?? null;
  }

  async find(name: LogName): Promise<SequencedLog | null> {
    const served = this.served.get(name);
    if (served) return served;
    let source = this.directory.source(name);
    if (!source) {
      await this.directory.caughtUp();
      source = this.directory.source(name);
      if (!source) return null;
    }
    return this.start(name, source);
  }

  async list(): Promise<LogDescription[]> {
    await this.directory.caughtUp();
    return this.directory.list();
  }

  private start(name: LogName, source: LogSource): Promise<SequencedLog> {
    let starting = this.starting.get(name);
    if (!starting) {
      const log = this.make(name, source);
      starting = log.start().then(
        () => {
          this.served.set(name, log);
          this.starting.delete(name);
          return log;
        },
        (error: unknown) => {
          // The next request tries again (the read model may have been behind).
          this.starting.delete(name);
          throw error;
        },
      );
      this.starting.set(name, starting);
    }
    return starting;
  }
}
