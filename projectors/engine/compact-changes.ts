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
 */
import type { Change } from '../../ports/read-store';

export function compactChanges(changes: readonly Change[]): Change[] {
  const lastWrite = new Map<string, number>();
  changes.forEach((change, index) => {
    if (change.kind === 'upsert' || change.kind === 'delete') lastWrite.set(documentKey(change), index);
  });
  return changes.filter((change, index) => index >= (lastWrite.get(documentKey(change)) ?? 0));
}

function documentKey(change: Change): string {
  return `${change.collection}\u0000${change.id}`;
}
