import type { NextFunction, Request, Response } from 'express';
import { sendInvalid } from './errors';
import type { PathParameter } from './route-table';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A path parameter holding a SHA-256 digest in hex; a malformed one answers 400 before the handler. */
export function sha256Param(name: string, description: string): PathParameter {
  return {
    name,
    description: `${description} A malformed value answers 400 INVALID_REQUEST (pointer \`path/${name}\`).`,
    schema: { type: 'string', pattern: SHA256_HEX.source },
    check: (req: Request, res: Response, next: NextFunction): void => {
      if (SHA256_HEX.test(String(req.params[name]))) {
        next();
        return;
      }
      sendInvalid(res, [
        { pointer: `path/${name}`, reason: 'must be a SHA-256 digest: 64 lowercase hex characters' },
      ]);
    },
  };
}
