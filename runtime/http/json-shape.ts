import type { FieldProblem } from '../../event-schemas';

/** How deep a request body may nest; the deepest schema needs 4, free-form members get the rest. */
export const MAX_BODY_DEPTH = 32;

/**
 * What no schema can say about a parsed body: it nests deeper than MAX_BODY_DEPTH (records are
 * canonicalized and hashed recursively, so depth must stay bounded), or it has a member named
 * `__proto__`, which naive merges downstream (receivers of webhooks, other languages' auditors) turn
 * into prototype pollution. Returns the first such problem, or null. Never recurses past the limit.
 */
export function jsonShapeProblem(value: unknown, pointer = '', depth = 0): FieldProblem | null {
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_BODY_DEPTH)
    return { pointer, reason: `nests deeper than ${MAX_BODY_DEPTH} levels of objects and arrays` };
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value);
  for (const [key, item] of entries) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key === '__proto__') return { pointer: at, reason: 'is a reserved member name; rename it' };
    const problem = jsonShapeProblem(item, at, depth + 1);
    if (problem) return problem;
  }
  return null;
}
