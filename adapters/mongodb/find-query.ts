import type { Document, Filter, Sort } from 'mongodb';
import type { FindQuery, Scalar } from '../../ports/read-store';
import type { CursorState, CursorValue } from '../shared/read-cursor';
import { assertFinite, memberPath, type Ordering } from '../shared/read-store-validation';

/**
 * Read-store queries as MongoDB filters over the stored shape `{ _id, position, deleted, data }`.
 * MongoDB's own comparison semantics are the port's: equality and ranges only match values of the
 * bound's type (1 never equals true or '1'), `null` matches null and missing members, and null or
 * missing members sort first ascending.
 */

const RANGE_OPERATORS = { gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte' } as const;
/**
 * How MongoDB orders the JSON types after null (BSON comparison order); a cursor in one type block
 * continues into the blocks after it (ascending) or before it (descending), so a walk over a member
 * holding mixed types still returns every document once.
 */
const TYPE_ORDER = ['number', 'string', 'object', 'array', 'bool'] as const;

/** The MongoDB path of a member of the document data. */
export function dataPath(field: string): string {
  return `data.${memberPath(field)}`;
}

/** All conditions hold; deleted documents (tombstones) never match. */
export function liveDocuments<Stored extends Document>(conditions: readonly Document[]): Filter<Stored> {
  const filter = conditions.length === 0 ? { deleted: false } : { $and: [{ deleted: false }, ...conditions] };
  return filter as Filter<Stored>;
}

export function equalityConditions(where: Record<string, Scalar> | undefined): Document[] {
  return Object.entries(where ?? {}).map(([field, value]) => {
    if (typeof value === 'number') assertFinite(value, `The value for ${field}`);
    return { [dataPath(field)]: value };
  });
}

export function rangeConditions(range: FindQuery['range']): Document[] {
  const conditions: Document[] = [];
  for (const [field, bounds] of Object.entries(range ?? {})) {
    const condition: Document = {};
    for (const [operator, bound] of Object.entries(bounds)) {
      if (bound === undefined) continue;
      if (!(operator in RANGE_OPERATORS)) throw new Error(`Unknown range operator ${operator} on ${field}`);
      if (bound === null) throw new Error(`The ${operator} bound on ${field} must not be null`);
      if (typeof bound === 'number') assertFinite(bound, `The ${operator} bound on ${field}`);
      condition[RANGE_OPERATORS[operator as keyof typeof RANGE_OPERATORS]] = bound;
    }
    if (Object.keys(condition).length > 0) conditions.push({ [dataPath(field)]: condition });
  }
  return conditions;
}

/** Ties broken by id in the same direction, so the order is total and a cursor resumes exactly. */
export function sortOf({ field, direction }: Ordering): Sort {
  const order = direction === 'asc' ? 1 : -1;
  return field === null ? { _id: order } : { [dataPath(field)]: order, _id: order };
}

/** The documents strictly after the cursor in the order, as one condition (none without a cursor). */
export function afterCursor(ordering: Ordering, after: CursorState | null): Document[] {
  if (!after) return [];
  const asc = ordering.direction === 'asc';
  const past = asc ? '$gt' : '$lt';
  if (ordering.field === null) return [{ _id: { [past]: after.id } }];
  const path = dataPath(ordering.field);
  const inNullBlock = { [path]: null, _id: { [past]: after.id } };
  if (after.value === null) return [asc ? { $or: [inNullBlock, { [path]: { $ne: null } }] } : inNullBlock];
  const arms: Document[] = [
    { [path]: { [past]: after.value } },
    { [path]: after.value, _id: { [past]: after.id } },
  ];
  const otherTypes = typesBeyond(after.value, asc);
  if (otherTypes.length > 0) arms.push({ [path]: { $type: otherTypes } });
  if (!asc) arms.push({ [path]: null });
  return [{ $or: arms }];
}

function typesBeyond(value: Exclude<CursorValue, null>, ascending: boolean): string[] {
  const type = typeof value === 'number' ? 'number' : typeof value === 'string' ? 'string' : 'bool';
  const index = TYPE_ORDER.indexOf(type);
  return ascending ? TYPE_ORDER.slice(index + 1) : TYPE_ORDER.slice(0, index);
}

/** The sort value a cursor records for a document (null for a null or missing member). */
export function cursorValueOf(data: unknown, field: string | null, id: string): CursorValue {
  if (field === null) return null;
  let value: unknown = data;
  for (const segment of field.split('.')) {
    value = isObject(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
  }
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw new Error(
    `Cannot page past document ${id}: its sort member ${field} holds an ${Array.isArray(value) ? 'array' : 'object'}; sort by members holding strings, numbers or booleans`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
