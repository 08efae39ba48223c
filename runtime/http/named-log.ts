import type { Response } from 'express';
import { isLogName } from '../../domain/log';
import { LogNotSignedError, type PublishedLog, type PublishedLogs } from '../../ports/log';
import { sendError } from './errors';

/**
 * The log a `:log` path segment names, as this process serves it, or null once a 404 is sent: for a
 * name no log can have (not looked up), a name no log has (after learning the logs the store holds:
 * another process may have just created it), or a log created a moment ago with no signed head yet.
 * A log already served is a lookup in memory, so the hot routes read no store.
 */
export async function namedLog(
  logs: PublishedLogs,
  name: string,
  res: Response,
): Promise<PublishedLog | null> {
  const served = logs.get(name);
  if (served) return served;
  try {
    const found = isLogName(name) ? await logs.find(name) : null;
    if (found) return found;
  } catch (error) {
    if (!(error instanceof LogNotSignedError)) throw error;
    sendError(res, 404, 'NOT_FOUND', error.message);
    return null;
  }
  sendError(
    res,
    404,
    'NOT_FOUND',
    `there is no log named ${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)}: GET /gov/v1/logs lists the logs (shared, test, and each L4 tenant's dedicated-<24 hex>)`,
  );
  return null;
}
