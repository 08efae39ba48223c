/**
 * The checks behind both services' `GET /health`: each upstream (a store, the bus, the log's
 * sequencer, another service) is asked for something real, all at once, and each answer is bounded in
 * time so that one hung upstream cannot hang the health check.
 */
import type { CoreServices } from './services';

/** `timeout`: the upstream did not answer within the bound (only with a bound). */
export type UpstreamStatus = 'healthy' | 'unhealthy' | 'timeout';

/** Resolves when the upstream answered as it should; rejects (with why) when not. */
export type UpstreamCheck = () => Promise<unknown>;

/** The stores every process has: the event store reads its head, the read store a checkpoint. */
export function storeChecks(
  services: Pick<CoreServices, 'eventStore' | 'readStore'>,
): Record<'event_store' | 'read_store', UpstreamCheck> {
  return {
    event_store: () => services.eventStore.headPosition(),
    read_store: () => services.readStore.getCheckpoint('_health'),
  };
}

/** Runs every check at once; `timeoutMs`: the longest any one may take before it is `timeout`. */
export async function probeAll<K extends string>(
  checks: Readonly<Record<K, UpstreamCheck>>,
  timeoutMs?: number,
): Promise<Record<K, UpstreamStatus>> {
  const names = Object.keys(checks) as K[];
  const statuses = await Promise.all(names.map((name) => probe(checks[name], timeoutMs)));
  return Object.fromEntries(names.map((name, i) => [name, statuses[i]])) as Record<K, UpstreamStatus>;
}

async function probe(check: UpstreamCheck, timeoutMs?: number): Promise<UpstreamStatus> {
  let timer: NodeJS.Timeout | undefined;
  const answered = check().then(
    (): UpstreamStatus => 'healthy',
    (): UpstreamStatus => 'unhealthy',
  );
  if (timeoutMs === undefined) return answered;
  const late = new Promise<UpstreamStatus>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}
