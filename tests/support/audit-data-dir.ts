import path from 'node:path';
import {
  type AuditOptions,
  type AuditReport,
  runAudit,
  sqliteAuditSource,
  trustFromPublishedKeys,
} from '../../audit';
import { readPublishedKeys } from '../../runtime/keys/key-history';

/**
 * `gov audit` of a stopped embedded server's data folder, inline (no workers), trusting the keys its
 * folder publishes: what an operator runs on the store a server wrote.
 */
export function auditDataDir(
  dataDir: string,
  options: Omit<AuditOptions, 'trust' | 'workers'> = {},
): Promise<AuditReport> {
  return runAudit(sqliteAuditSource(path.join(dataDir, 'events.db')), {
    trust: trustFromPublishedKeys(readPublishedKeys(path.join(dataDir, 'keys'))),
    workers: 0,
    ...options,
  });
}
