import { MongoBulkWriteError } from 'mongodb';

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;

/** E11000: an insert (or an upsert that matched nothing) met an existing `_id`. */
export function isDuplicateKey(error: unknown): boolean {
  return codeOf(error) === DUPLICATE_KEY;
}

/** Dropping a collection that does not exist (older servers report it; newer ones succeed). */
export function isNamespaceNotFound(error: unknown): boolean {
  return codeOf(error) === NAMESPACE_NOT_FOUND;
}

/**
 * The positions (in the operations sent) of the writes of a failed unordered bulk write that met an
 * existing `_id`; rethrows when any write failed for another reason.
 */
export function duplicateKeyWrites(error: unknown): number[] {
  if (!(error instanceof MongoBulkWriteError)) throw error;
  const failures = [error.writeErrors].flat();
  if (failures.length === 0 || failures.some((failure) => failure.code !== DUPLICATE_KEY)) throw error;
  return failures.map((failure) => failure.index);
}

function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}
