import type { Change, Checkpoint, SortKey } from '../../ports/read-store';

/**
 * The read store port's rules for names, positions, batches and pages, shared by its adapters so
 * every adapter rejects the same inputs with the same messages.
 */

const MAX_PAGE_SIZE = 1000;
const NAME_PATTERN = /^[A-Za-z0-9_.]+$/;
const MEMBER_PATH_PATTERN = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/;

export function collectionName(name: string): string {
  if (!NAME_PATTERN.test(name)) {
    throw new Error(`Invalid collection name ${JSON.stringify(name)}: use letters, digits, _ and .`);
  }
  return name;
}

export function memberPath(field: string): string {
  if (!MEMBER_PATH_PATTERN.test(field)) {
    throw new Error(`Invalid member path ${JSON.stringify(field)}: use letters, digits and _, joined by .`);
  }
  return field;
}

export function nonEmpty(value: string, what: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new Error(`${what} must be a non-empty string`);
  return value;
}

function assertPosition(position: number, what: string): void {
  if (!Number.isSafeInteger(position) || position < 0) {
    throw new Error(`${what} must be a non-negative integer, got ${position}`);
  }
}

export function assertFinite(value: number, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`${what} must be a finite number, got ${value}`);
  }
}

/** Checks a batch without touching storage, so a malformed batch fails before anything is written. */
export function assertValidBatch(changes: readonly Change[], checkpoint: Checkpoint | undefined): void {
  const seen = new Set<string>();
  for (const change of changes) {
    assertValidChange(change);
    // A second change to one document at one position would be dropped as a replay: refuse it.
    const key = `${change.collection}\u0000${change.id}\u0000${change.position}`;
    if (seen.has(key)) {
      throw new Error(`Two changes to ${change.collection}/${change.id} at position ${change.position}`);
    }
    seen.add(key);
  }
  if (checkpoint) {
    nonEmpty(checkpoint.projector, 'A checkpoint projector');
    assertPosition(checkpoint.position, 'A checkpoint position');
  }
}

function assertValidChange(change: Change): void {
  collectionName(change.collection);
  nonEmpty(change.id, 'A document id');
  assertPosition(change.position, `The position of ${change.collection}/${change.id}`);
  switch (change.kind) {
    case 'upsert':
    case 'create':
      if (typeof change.data !== 'object' || change.data === null || Array.isArray(change.data)) {
        throw new Error(`The data of ${change.collection}/${change.id} must be a JSON object`);
      }
      return;
    case 'delete':
      return;
    case 'increment':
      memberPath(change.field);
      assertFinite(change.by, `The increment of ${incrementTargetName(change)}`);
      return;
    default:
      throw new Error(`Unknown change kind ${JSON.stringify((change as { kind: unknown }).kind)}`);
  }
}

export function incrementTargetName(change: Extract<Change, { kind: 'increment' }>): string {
  return `${change.collection}/${change.id}.${change.field}`;
}

export function pageSize(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`A page limit must be a positive integer, got ${limit}`);
  return Math.min(limit, MAX_PAGE_SIZE);
}

export function offsetOf(skip: number | undefined): number {
  if (skip === undefined) return 0;
  if (!Number.isInteger(skip) || skip < 0)
    throw new Error(`skip must be a non-negative integer, got ${skip}`);
  return skip;
}

export interface Ordering {
  /** Null: order by id only (the default). */
  field: string | null;
  direction: 'asc' | 'desc';
}

export function orderingOf(sort: SortKey | undefined): Ordering {
  if (!sort) return { field: null, direction: 'asc' };
  if (sort.direction !== 'asc' && sort.direction !== 'desc') {
    throw new Error(`Sort direction must be asc or desc, got ${JSON.stringify(sort.direction)}`);
  }
  return { field: memberPath(sort.field), direction: sort.direction };
}

/** Names the order a cursor was issued for, so it cannot continue another one. */
export function sortLabel({ field, direction }: Ordering): string {
  return `${field ?? 'id'} ${direction}`;
}
