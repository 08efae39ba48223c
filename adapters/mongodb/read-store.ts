import type { Collection, Db, Document } from 'mongodb';
import { FencedOutError, type LeaseGrant } from '../../ports/lease';
import type {
  Change,
  Checkpoint,
  FindQuery,
  IndexSpec,
  Page,
  ReadStore,
  StoredDocument,
} from '../../ports/read-store';
import { groupBy } from '../../runtime/support/group-by';
import { mapConcurrently } from '../../runtime/support/map-concurrently';
import { decodeCursor, encodeCursor, queryShape } from '../shared/read-cursor';
import {
  assertFinite,
  assertValidBatch,
  collectionName,
  memberPath,
  nonEmpty,
  offsetOf,
  orderingOf,
  pageSize,
  sortLabel,
} from '../shared/read-store-validation';
import {
  countersLast,
  type DocumentState,
  incrementTargets,
  type PlannedWrite,
  planWrites,
  readTargets,
  type StoredStates,
} from './batch-plan';
import {
  afterCursor,
  cursorValueOf,
  dataPath,
  equalityConditions,
  liveDocuments,
  rangeConditions,
  sortOf,
} from './find-query';
import { KeyedSerializer } from './keyed-serializer';
import {
  ensureLeaseIndexes,
  isCurrentGrant,
  type LeaseRecord,
  leaseRecords,
  MongoLeaseManager,
} from './lease';
import { duplicateKeyWrites, isDuplicateKey, isNamespaceNotFound } from './mongo-errors';
import { defaultStallWatch, RenewingClient, type StallWatch, urlOptions } from './renewing-client';

/**
 * The read store on MongoDB, without multi-document transactions or change streams (FerretDB v1 has
 * neither). Each read-store collection is the MongoDB collection `read.<name>`, holding
 * `{ _id: id, position, deleted, data }`; a delete leaves a tombstone (`deleted: true`) so the
 * position guard still holds for a deleted document. Checkpoints live in `checkpoints`, leases in
 * `leases` (see `lease.ts`).
 *
 * `apply` computes each changed document's state after the batch (`batch-plan.ts`), which is how a
 * batch is validated in full, increment targets included, before the first write; then it writes
 * each state (an insert, or a replacement guarded by `position < p`; a created document, only the
 * insert) and stores the checkpoint last.
 * Only the order of changes to one document matters to the position guard, and computing the state
 * keeps it; without transactions no reader could rely on the order of writes across documents.
 *
 * FerretDB v1 (SQLite backend) runs an update as a query followed by a separate write (FerretDB
 * issue #3040), so a single-document update is not atomic against a concurrent writer of the same
 * document. Hence the design: inserts (atomic everywhere) arbitrate leases; writes are whole,
 * idempotent states, so concurrent appliers of the same batch converge; in single-writer mode a
 * projector has one writer. On MongoDB every one of these updates is atomic.
 */

export interface MongoReadStoreOptions {
  /** The database of the read models, checkpoints and leases. Default `gov`. */
  database?: string;
  /** Clock for lease expiry (tests); default `Date.now`. */
  now?: () => number;
  /**
   * How long an operation waits for the server's answer before it fails (the driver's
   * socketTimeoutMS); default ANSWER_TIMEOUT_MS. A `socketTimeoutMS` in the URL wins.
   */
  answerTimeoutMs?: number;
  /** When the client counts as stalled and is replaced; default `defaultStallWatch` (a minute). */
  stallWatch?: StallWatch;
  /** Told when the client was replaced, with how long it had been silent (with the default watch). */
  onClientRenewed?: (silentMs: number) => void;
}

/**
 * By default the driver puts no limit of its own on the wait for an answer on a connection it holds,
 * nor on the wait for a free connection from its pool: a server that stops answering (stopped,
 * wedged, a connection dropped without a reset) holds every request and projector batch that touches
 * it until the driver's monitor gives the server up (~70 s in the test). Past these, the operation
 * fails sooner: the request answers 500 and a projector resumes from its checkpoint. Both are far
 * above any answer a working server takes (a projector's bulk write of a full batch included).
 */
const ANSWER_TIMEOUT_MS = 60_000;
const POOL_WAIT_TIMEOUT_MS = 30_000;

interface DocumentRecord extends DocumentState {
  _id: string;
}

interface CheckpointRecord {
  _id: string;
  position: number;
  /** The lease grant the checkpoint was last stored under (single-writer mode). */
  fence?: { lease: string; epoch: number };
}

const COLLECTION_PREFIX = 'read.';
const CHECKPOINTS_COLLECTION = 'checkpoints';
const DEFAULT_DATABASE = 'gov';
/**
 * FerretDB v1.24 never answers an `update` command whose statements match 100 documents or more
 * (the connection just hangs), nor, under the topology's load, two projections' `update` commands of
 * 50 statements each at once (after which every command of that database hangs: seen as the
 * topology stalling for good), so replacements are sent in small commands.
 */
const REPLACEMENTS_PER_COMMAND = 10;
/**
 * Replacement commands of one write in flight at once (each on a connection of the driver's pool).
 * Few: a projection's large write (a batch's tenants and subjects) sent many at a time holds every
 * other process's small writes (the dispatcher's, the checkpoints) behind it on the server's cores.
 */
const COMMANDS_AT_ONCE = 2;
/** A counter update that keeps meeting a concurrent change (creation, reset) gives up eventually. */
const COUNTER_ATTEMPTS = 10;
/** Documents remembered as stored (see `knownStored`); past this many the memory starts again. */
const KNOWN_STORED_MAX = 50_000;
/**
 * A grant this store has found current is trusted without reading the lease again while it has at
 * least this long left (see `fenceHolds`): longer than clocks of the processes sharing the leases may
 * differ by, shorter than what a grant renewed every third of its default 5 s has left.
 */
const TRUSTED_GRANT_MARGIN_MS = 2_000;
const TRUSTED_GRANTS_MAX = 1_000;

export class MongoReadStore implements ReadStore {
  private readonly now: () => number;
  /** Counters are updated one at a time per document (see `incrementCounter`). */
  private readonly counters = new KeyedSerializer();
  /** Only a client this store connected is closed by it; a shared one belongs to its opener. */
  private ownedClient: RenewingClient | null = null;

  /**
   * How the documents a batch changes are read: one `$in` query per collection, or one `_id` query
   * each. FerretDB v1 answers `_id: { $in: … }` (and `$or`) by scanning and decoding the whole
   * collection — 0.8 s on 20,000 documents, growing with every admission a projection records —
   * while it looks up `_id` equality in its index (~2 ms).
   */
  private idLookups: 'in' | 'each' = 'in';
  /** Grants found current by a read of their lease (see `fenceHolds`). */
  private readonly trustedGrants = new Set<string>();

  /**
   * Documents (`collection` NUL `id`) this store has read or written, so known to be stored: nothing
   * removes a document but `dropCollections`. Their next write is a replacement straight away, not an
   * insert that meets E11000 first (on FerretDB v1 that failed insert cost about as much as the
   * replacement). A collection dropped elsewhere (a rebuild in another process) does not make this
   * wrong: the replacement is an upsert, which writes a document no longer there.
   */
  private readonly knownStored = new Set<string>();

  /** @param database the database, asked for each operation (the client under it may be renewed). */
  private constructor(
    private readonly database: () => Db,
    options: Omit<MongoReadStoreOptions, 'database'>,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Looks up how the server answers queries by a list of ids (see `idLookups`). */
  private async learnServer(db: Db): Promise<void> {
    const info = await db.admin().command({ buildInfo: 1 });
    if (typeof info.ferretdbVersion === 'string') this.idLookups = 'each';
  }

  /**
   * Connects to `url` (a `mongodb://` connection string); closing the store closes the connection.
   * The client is replaced if its server monitor stalls (renewing-client.ts).
   */
  static async connect(url: string, options: MongoReadStoreOptions = {}): Promise<MongoReadStore> {
    // ignoreUndefined: an undefined member is left out, as JSON leaves it out in the embedded adapter.
    const clientOptions = { ignoreUndefined: true, ...driverTimeouts(url, options) };
    const client = await RenewingClient.connect(
      url,
      clientOptions,
      options.stallWatch ?? { ...defaultStallWatch(url), onRenewed: options.onClientRenewed },
    );
    const name = options.database ?? DEFAULT_DATABASE;
    try {
      const store = new MongoReadStore(() => client.db(name), options);
      await ensureLeaseIndexes(client.db(name));
      await store.learnServer(client.db(name));
      store.ownedClient = client;
      return store;
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** A store on a database whose client the caller owns (and closes). */
  static async open(db: Db, options: Omit<MongoReadStoreOptions, 'database'> = {}): Promise<MongoReadStore> {
    const store = new MongoReadStore(() => db, options);
    await ensureLeaseIndexes(db);
    await store.learnServer(db);
    return store;
  }

  /** The leases `apply` checks its fence against: hand it to the projectors' single-writer mode. */
  leases(): MongoLeaseManager {
    return new MongoLeaseManager(this.database, this.now);
  }

  private get db(): Db {
    return this.database();
  }

  private get checkpoints(): Collection<CheckpointRecord> {
    return this.db.collection<CheckpointRecord>(CHECKPOINTS_COLLECTION);
  }

  private get leaseRecords(): Collection<LeaseRecord> {
    return leaseRecords(this.db);
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    if (spec.fields.length === 0) throw new Error('An index needs at least one field');
    const fields = spec.fields.map(memberPath);
    const key: Record<string, 1> = {};
    for (const field of fields) key[dataPath(field)] = 1;
    key._id = 1; // the tie-break of every sort, so a sorted page is read in index order
    // No partialFilterExpression (tombstones left out): FerretDB v1 does not implement it.
    await this.documents(spec.collection).createIndex(key, { name: `read:${fields.join(',')}` });
  }

  // By `_id` alone, whole records, tombstones left out here: with any other condition or a
  // projection, FerretDB v1 no longer looks the `_id` up in its index but scans and decodes the
  // collection until it meets the document (a miss reads all of it: 0.7 s at 20,000 documents).
  async get<T>(collection: string, id: string): Promise<StoredDocument<T> | null> {
    const record = await this.documents(collection).findOne({ _id: id });
    return record && !record.deleted ? toDocument<T>(record) : null;
  }

  async find<T>(collection: string, query: FindQuery): Promise<Page<T>> {
    collectionName(collection);
    const limit = pageSize(query.limit);
    const skip = offsetOf(query.skip);
    const ordering = orderingOf(query.sort);
    const filters = [...equalityConditions(query.where), ...rangeConditions(query.range)];
    const shape = queryShape(collection, query);
    const after = query.cursor ? decodeCursor(query.cursor, shape, sortLabel(ordering)) : null;
    const records = await this.documents(collection)
      .find(liveDocuments([...filters, ...afterCursor(ordering, after)]))
      .sort(sortOf(ordering))
      .skip(skip)
      .limit(limit + 1)
      .toArray();
    const items = records.slice(0, limit);
    const last = items.at(-1);
    const nextCursor =
      records.length > limit && last
        ? encodeCursor({
            shape,
            sort: sortLabel(ordering),
            value: cursorValueOf(last.data, ordering.field, last._id),
            id: last._id,
          })
        : null;
    return { items: items.map((record) => toDocument<T>(record)), nextCursor };
  }

  async count(collection: string, where?: FindQuery['where'], range?: FindQuery['range']): Promise<number> {
    const filters = [...equalityConditions(where), ...rangeConditions(range)];
    return this.documents(collection).countDocuments(liveDocuments(filters));
  }

  async apply(changes: readonly Change[], checkpoint?: Checkpoint): Promise<void> {
    assertValidBatch(changes, checkpoint);
    const phases = countersLast(
      planWrites(changes, await this.readStates(readTargets(changes))),
      incrementTargets(changes),
    );
    const fence = checkpoint?.fence;
    if (fence && !(await this.fenceHolds(fence))) throw new FencedOutError(fence.name, fence.epoch);
    /*
     * Without transactions the fence is checked before the first write, not with it: an instance
     * paused right after the check, past its lease, could still write once another has taken over.
     * That is safe here: every write is the idempotent, position-guarded state the new owner computes
     * from the same events, so it either is a replay or is replayed; the checkpoint write is refused
     * once the new owner has stored one under its newer epoch (below); and the event-store side of
     * the single writer (the Merkle sequencer) is fenced by expected revision, not by this lease.
     */
    for (const writes of phases) await this.writeStates(writes);
    if (checkpoint) await this.saveCheckpoint(checkpoint);
  }

  async getCheckpoint(projector: string): Promise<number | null> {
    const record = await this.checkpoints.findOne({ _id: projector });
    return record ? record.position : null;
  }

  /**
   * `$inc` on a live numeric `value`; creation, the reset of a tombstone and a missing member are
   * handled apart, each conditional on what was read, and retried when a concurrent call changed it.
   * FerretDB v1 loses concurrent `$inc`s to one document (its update is a read then a write), so calls
   * are serialized per document within this process; on MongoDB `$inc` is atomic across processes.
   */
  async incrementCounter(collection: string, id: string, by: number): Promise<number> {
    assertFinite(by, 'A counter increment');
    nonEmpty(id, 'A counter id');
    const documents = this.documents(collection);
    return this.counters.run(`${collection}\u0000${id}`, async () => {
      for (let attempt = 0; attempt < COUNTER_ATTEMPTS; attempt++) {
        const value = await addToCounter(documents, collection, id, by);
        if (value !== null) return value;
      }
      throw new Error(`Counter ${collection}/${id} kept changing concurrently; try again`);
    });
  }

  /** Dropping takes the collection's indexes too; projectors declare theirs again when they start. */
  async dropCollections(collections: readonly string[]): Promise<void> {
    const names = collections.map(collectionName);
    this.knownStored.clear();
    for (const name of names) {
      try {
        await this.documents(name).drop();
      } catch (error) {
        if (!isNamespaceNotFound(error)) throw error;
      }
    }
  }

  async deleteCheckpoint(projector: string): Promise<void> {
    await this.checkpoints.deleteOne({ _id: projector });
  }

  async close(): Promise<void> {
    await this.ownedClient?.close();
    this.ownedClient = null;
  }

  private documents(collection: string): Collection<DocumentRecord> {
    return this.db.collection<DocumentRecord>(`${COLLECTION_PREFIX}${collectionName(collection)}`);
  }

  /** The stored states (tombstones included) of the documents a plan needs, one query per collection. */
  private async readStates(targets: Map<string, Set<string>>): Promise<StoredStates> {
    const states = new Map<string, Map<string, DocumentState | null>>();
    for (const [collection, ids] of targets) {
      const found = new Map<string, DocumentState | null>([...ids].map((id) => [id, null]));
      const documents = this.documents(collection);
      const records =
        this.idLookups === 'in'
          ? await documents.find({ _id: { $in: [...ids] } }).toArray()
          : (await Promise.all([...ids].map((id) => documents.findOne({ _id: id })))).filter(
              (record) => record !== null,
            );
      for (const { _id, position, deleted, data } of records) {
        found.set(_id, { position, deleted, data });
        this.rememberStored(collection, _id);
      }
      states.set(collection, found);
    }
    return states;
  }

  private async writeStates(writes: readonly PlannedWrite[]): Promise<void> {
    await Promise.all(
      [...groupBy(writes, (write) => write.collection)].map(([collection, list]) =>
        this.writeCollectionStates(collection, list),
      ),
    );
  }

  /**
   * A document not known to be stored is inserted first: one never stored is written by the insert,
   * and one that exists meets E11000 and then gets the replacement guarded by `position < p`, which
   * matches nothing when the stored document is at ≥ p (a replay, or another instance's identical
   * write). A document known to be stored (`knownStored`) gets that replacement at once, as an
   * upsert: should it be gone (its collection dropped elsewhere), the upsert writes it; if it is
   * stored at ≥ p, the upsert meets E11000 and is done. (FerretDB v1 also runs each update as a scan
   * of the collection, where a batch insert is cheap.) A create that meets E11000 is done: the stored
   * document stays as it is.
   */
  private async writeCollectionStates(collection: string, writes: readonly PlannedWrite[]): Promise<void> {
    const documents = this.documents(collection);
    // A create is always an insert (one that meets E11000 is done).
    const isKnown = (write: PlannedWrite) =>
      !write.ifAbsent && this.knownStored.has(storedKey(collection, write.id));
    const known = writes.filter(isKnown);
    const fresh = writes.filter((write) => !isKnown(write));
    let existing: PlannedWrite[] = [];
    if (fresh.length > 0) {
      try {
        await documents.insertMany(
          fresh.map(({ id, state }) => ({ _id: id, ...state })),
          { ordered: false },
        );
      } catch (error) {
        existing = duplicateKeyWrites(error)
          .map((index) => fresh[index]!)
          .filter((write) => !write.ifAbsent);
      }
      for (const write of fresh) this.rememberStored(collection, write.id);
    }
    const replacements = [
      ...existing.map((write) => ({ write, upsert: false })),
      ...known.map((write) => ({ write, upsert: true })),
    ];
    // A batch writes each document once, so its commands are independent: sent side by side, they
    // take one round trip each at once instead of one after the other.
    const commands: (typeof replacements)[] = [];
    for (let start = 0; start < replacements.length; start += REPLACEMENTS_PER_COMMAND)
      commands.push(replacements.slice(start, start + REPLACEMENTS_PER_COMMAND));
    await mapConcurrently(commands, COMMANDS_AT_ONCE, async (command) => {
      try {
        await documents.bulkWrite(
          command.map(({ write: { id, state }, upsert }) => ({
            replaceOne: {
              filter: { _id: id, position: { $lt: state.position } },
              replacement: state,
              upsert,
            },
          })),
          { ordered: false },
        );
      } catch (error) {
        // An upsert that met E11000 found the document stored at a position ≥ its own: a replay, done.
        duplicateKeyWrites(error);
      }
    });
  }

  /**
   * Whether `fence` is the lease's current grant. A grant read as current once is trusted again
   * without a read while it has TRUSTED_GRANT_MARGIN_MS left: while it is live no other owner can take
   * the lease. Each renewal (a new expiry) is read once: a renewal that raced a takeover of a lapsed
   * grant returns a grant that is not current, and only a read shows it.
   */
  private async fenceHolds(fence: LeaseGrant): Promise<boolean> {
    const key = `${fence.name}\u0000${fence.owner}\u0000${fence.epoch}\u0000${fence.expiresAt}`;
    if (fence.expiresAt - this.now() >= TRUSTED_GRANT_MARGIN_MS && this.trustedGrants.has(key)) return true;
    const current = await isCurrentGrant(this.leaseRecords, fence, this.now());
    if (!current) this.trustedGrants.delete(key);
    else {
      if (this.trustedGrants.size >= TRUSTED_GRANTS_MAX) this.trustedGrants.clear();
      this.trustedGrants.add(key);
    }
    return current;
  }

  private rememberStored(collection: string, id: string): void {
    if (this.knownStored.size >= KNOWN_STORED_MAX) this.knownStored.clear();
    this.knownStored.add(storedKey(collection, id));
  }

  /** `$max`: a checkpoint never moves backwards; under a fence, never over a newer epoch's. */
  private async saveCheckpoint({ projector, position, fence }: Checkpoint): Promise<void> {
    const filter: Document = { _id: projector };
    const update: Document = { $max: { position } };
    if (fence) {
      filter.$nor = [{ 'fence.lease': fence.name, 'fence.epoch': { $gt: fence.epoch } }];
      update.$set = { fence: { lease: fence.name, epoch: fence.epoch } };
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.checkpoints.updateOne(filter, update, { upsert: true });
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Created concurrently (try again: the update now matches), or kept by a newer epoch: then
        // this instance is fenced out (its writes above were replays the new owner makes too).
        if (fence && (await this.checkpointHasNewerFence(projector, fence))) {
          throw new FencedOutError(fence.name, fence.epoch);
        }
      }
    }
    throw new Error(`The checkpoint of ${projector} kept changing concurrently; the batch will be replayed`);
  }

  private async checkpointHasNewerFence(projector: string, fence: LeaseGrant): Promise<boolean> {
    const stored = await this.checkpoints.findOne({ _id: projector });
    return stored?.fence?.lease === fence.name && stored.fence.epoch > fence.epoch;
  }
}

/** The counter's new value, or null when its document changed under us (the caller tries again). */
async function addToCounter(
  documents: Collection<DocumentRecord>,
  collection: string,
  id: string,
  by: number,
): Promise<number | null> {
  // No projection: FerretDB v1 does not implement findAndModify's `fields`.
  const updated = await documents.findOneAndUpdate(
    { _id: id, deleted: false, 'data.value': { $type: 'number' } },
    { $inc: { 'data.value': by } },
    { returnDocument: 'after' },
  );
  if (updated) return updated.data.value as number;
  const stored = await documents.findOne({ _id: id });
  if (!stored) {
    try {
      await documents.insertOne({ _id: id, position: 0, deleted: false, data: { value: by } });
      return by;
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }
  const value = stored.deleted ? undefined : stored.data.value;
  if (value !== undefined && typeof value !== 'number') {
    throw new Error(`Counter ${collection}/${id} holds a non-numeric value; cannot increment it`);
  }
  // A tombstone starts again from nothing (its position stays); a live document gains the member.
  const replaced = stored.deleted
    ? await documents.updateOne({ _id: id, deleted: true }, { $set: { deleted: false, data: { value: by } } })
    : await documents.updateOne(
        { _id: id, deleted: false, 'data.value': { $exists: false } },
        { $set: { 'data.value': by } },
      );
  return replaced.matchedCount === 1 ? by : null;
}

function toDocument<T>(record: Pick<DocumentRecord, '_id' | 'position' | 'data'>): StoredDocument<T> {
  return { id: record._id, position: record.position, data: record.data as T };
}

/** The timeouts the connection string leaves unset (options given here would override the URL's). */
function driverTimeouts(
  url: string,
  options: MongoReadStoreOptions,
): { socketTimeoutMS?: number; waitQueueTimeoutMS?: number } {
  const named = urlOptions(url);
  return {
    ...(!named.has('sockettimeoutms') && { socketTimeoutMS: options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS }),
    ...(!named.has('waitqueuetimeoutms') && { waitQueueTimeoutMS: POOL_WAIT_TIMEOUT_MS }),
  };
}

function storedKey(collection: string, id: string): string {
  return `${collection}\u0000${id}`;
}
