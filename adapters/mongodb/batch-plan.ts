import type { Change } from '../../ports/read-store';
import { groupBy } from '../../runtime/support/group-by';
import { incrementTargetName } from '../shared/read-store-validation';

/**
 * Turns a batch of changes into one write per document: the document's state after the batch,
 * computed here from its stored state, so an increment is stored as the resulting value rather than
 * sent as `$inc`. Every write is then the same idempotent, position-guarded replacement ("become this
 * state unless you already hold position ≥ p"), so replaying it, or two instances applying the same
 * batch, leave one state. Computing the batch first is also how an invalid increment is found before
 * anything is written.
 *
 * A document the batch only creates is not read: its write inserts the first create's state where
 * nothing is stored and leaves any stored document (a tombstone included) as it is. A document both
 * created and otherwise changed in one batch is read, so that its state after the batch is known.
 */

export interface DocumentState {
  position: number;
  deleted: boolean;
  data: Record<string, unknown>;
}

export interface PlannedWrite {
  collection: string;
  id: string;
  state: DocumentState;
  /** Write `state` only if nothing is stored under the id (a create); otherwise as a guarded replacement. */
  ifAbsent?: true;
}

/** Stored states by collection and id; a document read but absent maps to null. */
export type StoredStates = ReadonlyMap<string, ReadonlyMap<string, DocumentState | null>>;

type IncrementChange = Extract<Change, { kind: 'increment' }>;
type DataChange = Extract<Change, { kind: 'upsert' | 'create' }>;

/** The documents the batch increments: counters, written last (`countersLast`). */
export function incrementTargets(changes: readonly Change[]): Map<string, Set<string>> {
  return documentsWhere(changes, (documentChanges) =>
    documentChanges.some((change) => change.kind === 'increment'),
  );
}

/**
 * The documents whose stored state the plan needs: those the batch increments, and those it both
 * creates and otherwise changes (whether the create takes effect depends on what is stored).
 */
export function readTargets(changes: readonly Change[]): Map<string, Set<string>> {
  return documentsWhere(
    changes,
    (documentChanges) =>
      documentChanges.some((change) => change.kind === 'increment') ||
      (documentChanges.some((change) => change.kind === 'create') &&
        documentChanges.some((change) => change.kind !== 'create')),
  );
}

function documentsWhere(
  changes: readonly Change[],
  wanted: (documentChanges: readonly Change[]) => boolean,
): Map<string, Set<string>> {
  const targets = new Map<string, Set<string>>();
  for (const documentChanges of byDocument(changes).values()) {
    if (!wanted(documentChanges)) continue;
    const { collection, id } = documentChanges[0]!;
    const ids = targets.get(collection) ?? new Set<string>();
    ids.add(id);
    targets.set(collection, ids);
  }
  return targets;
}

/** A batch's changes by document, in the order documents first appear. */
function byDocument(changes: readonly Change[]): Map<string, Change[]> {
  return groupBy(changes, (change) => `${change.collection}\u0000${change.id}`);
}

/**
 * The order to write a batch in without a transaction: counters (increment targets) last. A
 * projection derives other documents from its counters (the governance projection takes a leaf's
 * index from its leaf count), so a crash between the writes must leave the counters behind, never
 * ahead: the replay then reads the counts the batch started from and derives the same documents,
 * where an advanced count would give the next leaf the wrong index.
 */
export function countersLast(
  writes: readonly PlannedWrite[],
  targets: ReadonlyMap<string, ReadonlySet<string>>,
): [documents: PlannedWrite[], counters: PlannedWrite[]] {
  const isCounter = (write: PlannedWrite) => targets.get(write.collection)?.has(write.id) ?? false;
  return [writes.filter((write) => !isCounter(write)), writes.filter(isCounter)];
}

/**
 * The writes of a validated batch, one per document it changes, in the order documents first appear.
 * `stored` holds the states of `readTargets(changes)`. Throws, before anything is written, when an
 * increment meets a non-numeric member.
 */
export function planWrites(changes: readonly Change[], stored: StoredStates): PlannedWrite[] {
  const writes: PlannedWrite[] = [];
  for (const documentChanges of byDocument(changes).values()) {
    const { collection, id } = documentChanges[0]!;
    // Undefined: not read (no increment, no create beside other changes).
    let state = stored.get(collection)?.get(id);
    if (state === undefined && documentChanges.every((change) => change.kind === 'create')) {
      // Only creates: the first one's state, where nothing is stored; the later ones find it there.
      const first = documentChanges[0] as DataChange;
      writes.push({ collection, id, state: createdState(first), ifAbsent: true });
      continue;
    }
    let changed = false;
    for (const change of documentChanges) {
      if (state && state.position >= change.position) continue; // a replay: already in effect
      if (change.kind === 'create') {
        if (state === undefined)
          throw new Error(`${collection}/${id} is created in a batch but was not read`);
        if (state) continue; // stored or written earlier in the batch (a tombstone included): it stays
      }
      // Undefined before a replacement: what follows a replacement does not depend on the stored state.
      state = nextState(state ?? null, change);
      changed = true;
    }
    if (changed && state) writes.push({ collection, id, state });
  }
  return writes;
}

function createdState(change: DataChange): DocumentState {
  return { position: change.position, deleted: false, data: storableData(change) };
}

function nextState(prior: DocumentState | null, change: Change): DocumentState {
  switch (change.kind) {
    case 'upsert':
    case 'create':
      return createdState(change);
    case 'delete':
      return { position: change.position, deleted: true, data: {} };
    case 'increment': {
      // A deleted document starts again from nothing; the state's data is the plan's own copy.
      const data = prior && !prior.deleted ? prior.data : {};
      return { position: change.position, deleted: false, data: incremented(data, change) };
    }
  }
}

/**
 * A JSON copy of the upserted data (what the embedded adapter stores too: dates become strings,
 * undefined members vanish), refusing member names MongoDB servers disagree on or reject.
 */
function storableData(change: DataChange): Record<string, unknown> {
  return JSON.parse(JSON.stringify(change.data), (name: string, value: unknown) => {
    if (name.startsWith('$') || name.includes('.')) {
      throw new Error(
        `The data of ${change.collection}/${change.id} has a member named ${JSON.stringify(name)}: ` +
          'the MongoDB read store cannot store names that start with $ or contain a dot',
      );
    }
    return value;
  }) as Record<string, unknown>;
}

function incremented(data: Record<string, unknown>, change: IncrementChange): Record<string, unknown> {
  const segments = change.field.split('.');
  const last = segments.pop()!;
  let parent = data;
  for (const segment of segments) {
    const member = ownMember(parent, segment);
    if (member === undefined) {
      const created: Record<string, unknown> = {};
      setOwnMember(parent, segment, created);
      parent = created;
    } else if (isPlainObject(member)) {
      parent = member;
    } else {
      throw new Error(`Cannot increment ${incrementTargetName(change)}: a parent member is not an object`);
    }
  }
  const current = ownMember(parent, last);
  if (current !== undefined && typeof current !== 'number') {
    throw new Error(
      `Cannot increment ${incrementTargetName(change)}: it holds ${describe(current)}, not a number`,
    );
  }
  setOwnMember(parent, last, (current ?? 0) + change.by);
  return data;
}

/** Own members only: a member path like `__proto__.x` must never reach the prototype. */
function ownMember(object: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}

function setOwnMember(object: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
