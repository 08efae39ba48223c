/**
 * Drops the changes of a batch that a later change in the same batch overwrites: every change to a
 * document before its last upsert or delete. A batch of many events rewrites some documents once per
 * event (an agent's read model, a subject's observables, a tenant's counts, the delivery queue's
 * `applied` marker, a pending leaf upserted at its admission and deleted at its integration); only the
 * last of those writes is kept. Every projector's batch goes through it (`projectInto`).
 *
 * An upsert or delete replaces the whole document and is position-guarded, so the document ends the
 * same whatever state the batch is applied to, a replayed or half-applied one included. Increments
 * and creates after the last write are kept as they are (merging them would change what a replay
 * skips); a create replaces nothing, so it never drops what came before it.
 *
 * `born`: documents the batch writes for the first time ever (their projection says which: a pending
 * leaf is keyed by the position of the admission that writes it, and by no other event). One the batch
 * also deletes is not written at all: deleted, it would stay in the store as a tombstone, a row per
 * admission for good. A store without transactions may hold it from an attempt at the batch cut short;
 * that copy is never read again (nothing but its own events looks it up), so it is harmless.
 */
import type { Change } from '../../ports/read-store';
import { documentKey } from './applied-documents';

export function compactChanges(changes: readonly Change[], born?: ReadonlySet<string>): Change[] {
  const lastWrite = new Map<string, number>();
  const lastChange = new Map<string, number>();
  changes.forEach((change, index) => {
    const key = documentKey(change.collection, change.id);
    if (change.kind === 'upsert' || change.kind === 'delete') lastWrite.set(key, index);
    lastChange.set(key, index);
  });
  return changes.filter((change, index) => {
    const key = documentKey(change.collection, change.id);
    const last = lastWrite.get(key);
    // Born and deleted, with nothing after: as if never written (a create after the delete would
    // meet the tombstone and do nothing, so then the tombstone stays).
    if (born?.has(key) && last === lastChange.get(key) && changes[last!]!.kind === 'delete') return false;
    return index >= (last ?? 0);
  });
}
