import type { NextFunction, Request, Response } from 'express';
import { escapePointer, type FieldProblem } from '../../event-schemas';
import { sendInvalid } from './errors';

/**
 * The query rule every route keeps: a parameter it does not take answers 400 INVALID_REQUEST (pointer
 * `query/<name>`) instead of being ignored, so a misspelt or misplaced one (`limt=`, `tree_size=` on a
 * route without it) never silently changes nothing. Routes read and check the values of those they take.
 */
export function unknownQueryParameters(names: Iterable<string>, known: readonly string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const name of names)
    if (!known.includes(name))
      problems.push({ pointer: `query/${escapePointer(name)}`, reason: unknownParameterReason(known) });
  return problems;
}

/** Why a parameter a route does not take is refused, naming those it takes. */
export function unknownParameterReason(known: readonly string[]): string {
  return known.length === 0
    ? 'is not a parameter of this endpoint, which takes none'
    : `is not a parameter of this endpoint; it takes ${known.join(', ')}`;
}

/** Middleware of a route that takes the query parameters `known` (none when empty): 400 for any other. */
export function takesQuery(...known: string[]) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const problems = unknownQueryParameters(Object.keys(req.query), known);
    if (problems.length > 0) sendInvalid(res, problems);
    else next();
  };
}

/** Middleware of a route that takes no query parameter. */
export const takesNoQuery = takesQuery();
