/**
 * What a rebuilt projection holds of each log, for `gov rebuild`'s report. Every log's read models are
 * documents of the same two projections (governance: its leaves, its size, its anchors in the shared
 * log; tree-heads: its signed heads and their cosignatures), so rebuilding them rebuilds every log.
 */
import { SHARED_LOG_NAME } from '../domain/log';
import type { LogCreated } from '../event-schemas';
import type { EventStore } from '../ports/event-store';
import type { LogName } from '../ports/log';
import type { ReadStore } from '../ports/read-store';
import { ProjectionCatalog } from '../projectors/engine/catalog';
import type { Projection } from '../projectors/engine/projection';
import {
  governanceProjection,
  LOG_ANCHORS,
  LOG_META,
  logSizeId,
} from '../projectors/governance/governance-projection';
import { TREE_HEADS, treeHeadsProjection } from '../projectors/log/tree-heads';

/** One log's figures in a rebuilt projection (governance: leaves and anchors; tree-heads: heads). */
export interface RebuiltLog {
  log: LogName;
  leaves?: number;
  /** Anchors of the log in the shared log (not for the shared log itself). */
  anchors?: number;
  tree_heads?: number;
}

/** The projections holding read models per log. */
export function holdsLogs(projection: Projection): boolean {
  return projection === governanceProjection || projection === treeHeadsProjection;
}

/** Every log the event store has: the shared one, then those of its `LogCreated` events. */
export async function storedLogs(eventStore: EventStore): Promise<LogName[]> {
  const logs = [SHARED_LOG_NAME];
  for await (const event of eventStore.readAll({ filter: { eventTypes: ['LogCreated'] } }))
    logs.push((event.data as LogCreated).log);
  return logs;
}

/** Each log's figures in the serving generation of `projection` (one that holds logs). */
export async function rebuiltLogs(
  projection: Projection,
  readStore: ReadStore,
  logs: readonly LogName[],
): Promise<RebuiltLog[]> {
  const catalog = new ProjectionCatalog(readStore);
  const collection = (name: string) => catalog.servingCollection(projection.name, name);
  if (projection === treeHeadsProjection) {
    const heads = await collection(TREE_HEADS);
    return Promise.all(logs.map(async (log) => ({ log, tree_heads: await readStore.count(heads, { log }) })));
  }
  const [meta, anchors] = await Promise.all([collection(LOG_META), collection(LOG_ANCHORS)]);
  return Promise.all(
    logs.map(async (log) => ({
      log,
      leaves: (await readStore.get<{ size: number }>(meta, logSizeId(log)))?.data.size ?? 0,
      ...(log === SHARED_LOG_NAME ? {} : { anchors: await readStore.count(anchors, { log }) }),
    })),
  );
}

/** `shared: 12 leaves` / `test: 3 leaves, 1 anchor` / `shared: 9 tree heads`. */
export function describeRebuiltLog(figures: RebuiltLog): string {
  const count = (n: number | undefined, one: string, many = `${one}s`) =>
    n === undefined ? null : `${n} ${n === 1 ? one : many}`;
  const parts = [
    count(figures.leaves, 'leaf', 'leaves'),
    count(figures.anchors, 'anchor'),
    count(figures.tree_heads, 'tree head'),
  ].filter((part) => part !== null);
  return `${figures.log}: ${parts.join(', ')}`;
}
