/**
 * The audit engine: proves, from the event stream alone, that every leaf, every root and every signed
 * tree head the service published is right. See README.md in this folder for what is checked.
 */
export type { AuditScope } from './event-checks';
export { exportAuditSource } from './export-source';
export { type AuditReport, CHECKS, type Discrepancy } from './report';
export { type AuditOptions, runAudit } from './run-audit';
export {
  type AuditSource,
  eventsAuditSource,
  sqliteAuditSource,
} from './sources';
export { AuditSourceError } from './store-file';
export {
  type AuditTrust,
  parsePublishedKeys,
  TrustError,
  trustFromPublishedKeys,
} from './trust';
