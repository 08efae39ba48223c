import type { NextFunction, Request, Response } from 'express';
import { type CommandName, type FieldProblem, validateCommand } from '../../event-schemas';
import { requestBodyShapeProblem } from '../../event-schemas/json-shape';
import { sendInvalid } from './errors';

/** Validates `req.body` against a command's JSON Schema; 400 INVALID_REQUEST naming each field otherwise. */
export function validateBody(command: CommandName) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const problems = bodyProblems(command, req.body);
    if (problems) sendInvalid(res, problems);
    else next();
  };
}

/** What is wrong with a parsed body (`undefined`: none was sent) for `command`; null if nothing. */
export function bodyProblems(command: CommandName, body: unknown): FieldProblem[] | null {
  if (body === undefined)
    return [{ pointer: '', reason: 'must be a JSON object sent with Content-Type: application/json' }];
  const shape = requestBodyShapeProblem(body);
  if (shape) return [shape];
  const result = validateCommand(command, body);
  return result.ok ? null : result.problems;
}
