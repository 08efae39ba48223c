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
  return shapeProblem(value, maxDepth, pointer, 0, false);
}

/**
 * `jsonShapeProblem` of a request body, which must also be well-formed Unicode: a string or member name
 * with a lone UTF-16 surrogate (`"\ud800"`, which JSON's escapes can write) has no UTF-8 form, and RFC
 * 8785, whose canonical JSON the service hashes and signs, requires refusing it. (An import keeps what
 * was stored before this rule, so it checks the shape only.)
 */
export function requestBodyShapeProblem(value: unknown): FieldProblem | null {
  return shapeProblem(value, MAX_BODY_DEPTH, '', 0, true);
}

/** A UTF-16 surrogate not part of a pair (with the `u` flag a pair reads as one code point). */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATE_REASON =
  'holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape not part of a pair), which is not Unicode text; RFC 8785 canonical JSON refuses it';

function shapeProblem(
  value: unknown,
  maxDepth: number,
  pointer: string,
  depth: number,
  wellFormed: boolean,
): FieldProblem | null {
  if (typeof value === 'string')
    return wellFormed && LONE_SURROGATE.test(value) ? { pointer, reason: LONE_SURROGATE_REASON } : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth >= maxDepth)
    return { pointer, reason: `nests deeper than ${maxDepth} levels of objects and arrays` };
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value);
  for (const [key, item] of entries) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key === '__proto__') return { pointer: at, reason: 'is a reserved member name; rename it' };
    if (wellFormed && LONE_SURROGATE.test(key))
      return { pointer: at, reason: `is a member name that ${LONE_SURROGATE_REASON}` };
    const problem = shapeProblem(item, maxDepth, at, depth + 1, wellFormed);
    if (problem) return problem;
  }
  return null;
}
