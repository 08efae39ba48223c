import type { Logger } from 'pino';
import type { EventStore } from '../../ports/event-store';
import type { ReadStore } from '../../ports/read-store';
import type { Metrics } from '../../runtime/support/metrics';
import type { Progress } from '../../runtime/support/progress-bar';
import { ProjectionCatalog } from './catalog';
import { checkpointName, type Projection, physicalCollection } from './projection';
import { ProjectorRunner } from './runner';

export interface RebuildOptions {
  projection: Projection;
  eventStore: EventStore;
  readStore: ReadStore;
  metrics: Metrics;
  logger: Logger;
  /**
   * `in-place`: drop the serving generation and replay it (stop the projectors first).
   * `beside`: build the next generation while the current one keeps serving, then switch to it; a
   * running server follows the switch.
   */
  mode: 'in-place' | 'beside';
  onProgress?: (progress: Progress) => void;
}

export interface RebuildResult {
  projection: string;
  generation: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

/** Replays a projection from the first event into a clean generation and makes it the serving one. */
export async function rebuildProjection(options: RebuildOptions): Promise<RebuildResult> {
  const { projection, eventStore, readStore } = options;
  const catalog = new ProjectionCatalog(readStore);
  const serving = await catalog.servingGeneration(projection.name);
  const generation = options.mode === 'beside' ? serving + 1 : serving;
  await clearGeneration(readStore, projection, generation);

  const runner = new ProjectorRunner({ ...options, generation });
  const filter = { eventTypes: projection.eventTypes };
  const started = performance.now();
  let target = await eventStore.headPosition(filter);
  const progress = (): Progress => {
    const seconds = (performance.now() - started) / 1000;
    const position = runner.appliedPosition ?? 0;
    const rate = runner.appliedEvents / Math.max(seconds, 1e-3);
    const remaining = target - position;
    const positionRate = position / Math.max(seconds, 1e-3);
    return {
      events: runner.appliedEvents,
      position,
      target,
      rate,
      etaSeconds: positionRate > 0 ? remaining / positionRate : null,
    };
  };
  const ticker = options.onProgress ? setInterval(() => options.onProgress!(progress()), 200) : null;
  try {
    await runner.start();
    await runner.waitForPosition(target);
    // Events kept arriving while we replayed: catch up with them before switching.
    target = await eventStore.headPosition(filter);
    await runner.waitForPosition(target);
  } finally {
    if (ticker) clearInterval(ticker);
    await runner.stop();
  }
  await catalog.switchTo(projection, generation);
  if (generation !== serving) await clearGeneration(readStore, projection, serving);

  const seconds = (performance.now() - started) / 1000;
  options.onProgress?.(progress());
  return {
    projection: projection.name,
    generation,
    events: runner.appliedEvents,
    seconds,
    eventsPerSecond: runner.appliedEvents / Math.max(seconds, 1e-6),
  };
}

/** Drops a generation's collections and checkpoint. */
export async function clearGeneration(
  readStore: ReadStore,
  projection: Projection,
  generation: number,
): Promise<void> {
  await readStore.dropCollections(projection.collections.map((c) => physicalCollection(c, generation)));
  await readStore.deleteCheckpoint(checkpointName(projection, generation));
}
