import type { GovernanceServices } from '../../../command-api/governance/services';
import { logUrlOf, SHARED_LOG_NAME } from '../../../domain/log';
import type { LogName, PublishedLog } from '../../../ports/log';

/** The log a leaf is in, as the chain and reports name it: its name, base URL, and what it publishes. */
export interface LeafLog {
  name: LogName;
  url: string;
  log: PublishedLog;
}

/**
 * The published log named by a read-model document's `log` (absent in documents written before there
 * were many logs: the shared log). A leaf's log exists once its admission does, so a miss is a fault.
 */
export async function leafLogOf(
  services: Pick<GovernanceServices, 'logs' | 'config'>,
  name: LogName | null | undefined,
): Promise<LeafLog> {
  const logName = name ?? SHARED_LOG_NAME;
  const log = services.logs.get(logName) ?? (await services.logs.find(logName));
  if (!log) throw new Error(`a leaf names the log ${logName}, which this process does not know`);
  return { name: logName, url: logUrlOf(services.config.publicUrl, logName), log };
}
