import type { FieldProblem } from './validation';

/** How deep a request body may nest; the deepest schema needs 4, free-form members get the rest. */
export const MAX_BODY_DEPTH = 32;

/**
 * How deep an event's `data` may nest: a body's free-form members are stored at most one level
 * deeper (ExecutionAdmitted's `trace.execution_context`), with a few levels to spare.
 */
export const MAX_EVENT_DATA_DEPTH = MAX_BODY_DEPTH + 4;

/**
 * What no schema can say about parsed JSON (a request body, an imported event's data): it nests deeper
 * than `maxDepth` (records are canonicalized and hashed recursively, and projectors fold them, so
 * depth must stay bounded), or it has a member named `__proto__`, which naive merges downstream
 * (receivers of webhooks, other languages' auditors) turn into prototype pollution. Returns the first
 * such problem, its pointer starting at `pointer`, or null. Never recurses past the limit.
 */
export function jsonShapeProblem(
  value: unknown,
  maxDepth = MAX_BODY_DEPTH,
  pointer = '',
): FieldProblem | null {
  return shapeProblem(value, maxDepth, pointer, 0);
}

function shapeProblem(value: unknown, maxDepth: number, pointer: string, depth: number): FieldProblem | null {
  if (value === null || typeof value !== 'object') return null;
  if (depth >= maxDepth)
    return { pointer, reason: `nests deeper than ${maxDepth} levels of objects and arrays` };
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value);
  for (const [key, item] of entries) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key === '__proto__') return { pointer: at, reason: 'is a reserved member name; rename it' };
    const problem = shapeProblem(item, maxDepth, at, depth + 1);
    if (problem) return problem;
  }
  return null;
}
