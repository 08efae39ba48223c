import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

/** A client's own `X-Correlation-Id`, echoed when well-formed (otherwise a new UUID is given). */
const CLIENT_CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's `X-Correlation-Id` when well-formed, else a new UUID. */
export function correlationIdOf(offered: string | string[] | undefined): string {
  return typeof offered === 'string' && CLIENT_CORRELATION_ID.test(offered) ? offered : randomUUID();
}

/**
 * Gives every request a correlation id (the client's `X-Correlation-Id` when well-formed, else a new
 * UUID), echoes it, attaches a child logger, and logs one line per request when it finishes.
 */
export function correlation(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = correlationIdOf(req.headers['x-correlation-id']);
    res.locals.correlationId = id;
    res.locals.logger = logger.child({ correlation_id: id });
    res.setHeader('X-Correlation-Id', id);
    const started = performance.now();
    res.on('finish', () => {
      (res.locals.logger as Logger).info(
        {
          method: req.method,
          route: req.route?.path ?? req.path,
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 100) / 100,
        },
        'request',
      );
    });
    next();
  };
}
