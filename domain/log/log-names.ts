/**
 * Which log a leaf is in (issue 32's contract, types in ports/log.ts): `shared` (every deployment's
 * log; an event without a `log` member is in it), `test` (test-mode tenants) and `dedicated-<24 hex>`
 * (an L4 tenant's own log, the hex being the tenant id's).
 */

export const SHARED_LOG_NAME = 'shared';
export const TEST_LOG_NAME = 'test';

/** Every name a log can have (the `:log` path segment's pattern). */
export const LOG_NAME = /^(?:shared|test|dedicated-[0-9a-f]{24})$/;

export function isLogName(name: string): boolean {
  return LOG_NAME.test(name);
}

/** The dedicated log of tenant `ten_<24 hex>`. */
export function dedicatedLogOf(tenantId: string): string {
  const match = /^ten_([0-9a-f]{24})$/.exec(tenantId);
  if (!match) throw new RangeError(`'${tenantId}' is not a tenant id (ten_ and 24 hex digits)`);
  return `dedicated-${match[1]}`;
}

/** The log an event is in: its `log` member, or the shared log when it has none (events before logs). */
export function logOfEvent(data: unknown): string {
  const log = (data as { log?: unknown } | null)?.log;
  return typeof log === 'string' ? log : SHARED_LOG_NAME;
}

/** A log's checkpoint origin: the shared log's own, the others' the shared origin and `/<name>`. */
export function logOriginOf(sharedOrigin: string, name: string): string {
  return name === SHARED_LOG_NAME ? sharedOrigin : `${sharedOrigin}/${name}`;
}

/** Where a log's public endpoints are: `/gov/v1/log` for the shared log, `/gov/v1/logs/<name>` for others. */
export function logUrlOf(publicUrl: string, name: string): string {
  return name === SHARED_LOG_NAME ? `${publicUrl}/gov/v1/log` : `${publicUrl}/gov/v1/logs/${name}`;
}

/** The stream of a log's signed tree heads (the shared log keeps the one it always had). */
export function treeHeadStreamOf(name: string): string {
  return name === SHARED_LOG_NAME ? 'merkle-log' : `merkle-log-${name}`;
}

/** The stream whose first event, `LogCreated`, creates a log other than the shared one. */
export function logStreamOf(name: string): string {
  return `log-${name}`;
}

/**
 * The stream of a log's anchors in the shared log (`LogAnchored`, each appended with the expected
 * revision of the one before, so two anchorers never admit one anchor twice).
 */
export function anchorStreamOf(name: string): string {
  return `log-anchor-${name}`;
}
