import type { FieldProblem } from '../../../event-schemas';
import { unknownQueryParameters } from '../../../runtime/http/query';

/** GET /governance/chain query: `page` from 1, `limit` per page, admitted_at in [`from`, `to`). */
export interface ChainQuery {
  page: number;
  limit: number;
  from: string | null;
  to: string | null;
}

export const CHAIN_DEFAULT_LIMIT = 50;
export const CHAIN_MAX_LIMIT = 200;
export const CHAIN_MAX_PAGE = 1_000_000;
const INTEGER = /^[1-9][0-9]{0,8}$/;
/** What `from` and `to` accept: an ISO 8601 instant in UTC, to the millisecond at most. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export function parseChainQuery(
  query: Record<string, unknown>,
): { ok: true; value: ChainQuery } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const single = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      problems.push({ pointer: `query/${name}`, reason: 'must be given once' });
      return undefined;
    }
    return value;
  };
  const integer = (name: string, fallback: number, max: number): number => {
    const raw = single(name);
    if (raw === undefined) return fallback;
    if (!INTEGER.test(raw) || Number(raw) > max) {
      problems.push({ pointer: `query/${name}`, reason: `must be an integer from 1 to ${max}` });
      return fallback;
    }
    return Number(raw);
  };
  const instant = (name: string): string | null => {
    const raw = single(name);
    if (raw === undefined) return null;
    if (!ISO_UTC.test(raw) || Number.isNaN(Date.parse(raw))) {
      problems.push({
        pointer: `query/${name}`,
        reason: 'must be an ISO 8601 UTC time such as 2026-11-21T00:00:00Z',
      });
      return null;
    }
    return new Date(raw).toISOString();
  };
  problems.push(...unknownQueryParameters(Object.keys(query), ['page', 'limit', 'from', 'to']));
  const value: ChainQuery = {
    page: integer('page', 1, CHAIN_MAX_PAGE),
    limit: integer('limit', CHAIN_DEFAULT_LIMIT, CHAIN_MAX_LIMIT),
    from: instant('from'),
    to: instant('to'),
  };
  if (value.from && value.to && value.from >= value.to) {
    problems.push({ pointer: 'query/to', reason: 'must be later than from' });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
