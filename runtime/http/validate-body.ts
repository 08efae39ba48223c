import type { NextFunction, Request, Response } from 'express';
import { type CommandName, validateCommand } from '../../event-schemas';
import { jsonShapeProblem } from '../../event-schemas/json-shape';
import { sendInvalid } from './errors';

/** Validates `req.body` against a command's JSON Schema; 400 INVALID_REQUEST naming each field otherwise. */
export function validateBody(command: CommandName) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.body === undefined) {
      sendInvalid(res, [
        { pointer: '', reason: 'must be a JSON object sent with Content-Type: application/json' },
      ]);
      return;
    }
    const shape = jsonShapeProblem(req.body);
    if (shape) {
      sendInvalid(res, [shape]);
      return;
    }
    const result = validateCommand(command, req.body);
    if (!result.ok) {
      sendInvalid(res, result.problems);
      return;
    }
    next();
  };
}
