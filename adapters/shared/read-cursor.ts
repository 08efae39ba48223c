import { createHash } from 'node:crypto';
import type { FindQuery } from '../../ports/read-store';

/**
 * The opaque page cursor of the read store adapters: the query it belongs to (a hash of collection
 * and filters, plus the sort) and the sort value and id of the last document of its page.
 */

/** The sort value of a page's last document (null for a null or missing member). */
export type CursorValue = string | number | boolean | null;

export interface CursorState {
  shape: string;
  sort: string;
  value: CursorValue;
  id: string;
}

/** Identifies collection and filters, so a cursor cannot silently continue a different query. */
export function queryShape(collection: string, query: FindQuery): string {
  const filters = stableJson({ collection, where: query.where ?? {}, range: query.range ?? {} });
  return createHash('sha256').update(filters).digest('base64url').slice(0, 16);
}

function stableJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${stableJson(member)}`).join(',')}}`;
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify([state.shape, state.sort, state.value, state.id])).toString('base64url');
}

/** The cursor's state, after checking that it was issued for this query shape and sort. */
export function decodeCursor(cursor: string, shape: string, sort: string): CursorState {
  const state = parseCursor(cursor);
  if (state.sort !== sort) {
    throw new Error(`This cursor was issued for sort "${state.sort}" and cannot continue sort "${sort}"`);
  }
  if (state.shape !== shape) throw new Error('This cursor was issued for a different collection or filter');
  return state;
}

function parseCursor(cursor: string): CursorState {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new Error('Malformed cursor');
  }
  if (!Array.isArray(decoded) || decoded.length !== 4) throw new Error('Malformed cursor');
  const [shape, sort, value, id] = decoded as unknown[];
  const valueOk =
    value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  if (typeof shape !== 'string' || typeof sort !== 'string' || typeof id !== 'string' || !valueOk) {
    throw new Error('Malformed cursor');
  }
  return { shape, sort, value, id };
}
