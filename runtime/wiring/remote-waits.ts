/**
 * Read-your-write across processes. In the production topology the projectors and the dispatcher run
 * in other processes, so a command handler cannot wait on their in-memory positions: it polls what
 * they store instead (a projection's checkpoint, the dispatcher's progress per tenant), which is the
 * same guarantee — the answer goes out only once the read model holds the command's effect.
 */
import type { ReadStore } from '../../ports/read-store';
import { projections } from '../../projectors';
import { ProjectionCatalog } from '../../projectors/engine/catalog';
import { checkpointName, type Projection, physicalCollection } from '../../projectors/engine/projection';
import { DELIVERY_QUEUE_PROGRESS } from '../../projectors/webhooks/delivery-queue-consumer';
import { DELIVERY_QUEUE_GENERATION } from '../../projectors/webhooks/delivery-queue-projection';
import { sleep } from '../support/sleep';

export interface RemoteWaitsOptions {
  readStore: ReadStore;
  catalog: ProjectionCatalog;
  projections: readonly Projection[];
  /** The generation the delivery queue's collections live in. */
  deliveryQueueGeneration: number;
  /** Give up after this long (the other process is down or far behind): the request fails with 500. */
  timeoutMs?: number;
}

/** The first polls come quickly (the other process is usually milliseconds behind), then back off. */
const POLL_DELAYS_MS = [1, 2, 4, 8, 16, 25];

export class RemoteWaits {
  constructor(private readonly options: RemoteWaitsOptions) {}

  /** Resolves once every projection reading one of `eventTypes` has checkpointed `position`. */
  async awaitProjections(position: number, eventTypes: readonly string[]): Promise<void> {
    const { projections, catalog, readStore } = this.options;
    await Promise.all(
      projections
        .filter((projection) => projection.eventTypes.some((type) => eventTypes.includes(type)))
        .map(async (projection) => {
          const checkpoint = checkpointName(projection, await catalog.servingGeneration(projection.name));
          await this.until(
            async () => ((await readStore.getCheckpoint(checkpoint)) ?? 0) >= position,
            `read model '${projection.name}' (checkpoint ${checkpoint}) has not reached position ${position}: is a projectors process running?`,
          );
        }),
    );
  }

  /** Resolves once the dispatcher has handled the events of `tenantId` up to `position`. */
  async awaitDeliveryQueue(position: number, tenantId: string): Promise<void> {
    const progress = physicalCollection(DELIVERY_QUEUE_PROGRESS, this.options.deliveryQueueGeneration);
    await this.until(
      async () => ((await this.options.readStore.get(progress, tenantId))?.position ?? 0) >= position,
      `the dispatcher has not handled position ${position} of tenant ${tenantId}: is a dispatcher process running?`,
    );
  }

  private async until(reached: () => Promise<boolean>, failure: string): Promise<void> {
    const deadline = Date.now() + (this.options.timeoutMs ?? 30_000);
    for (let poll = 0; !(await reached()); poll++) {
      if (Date.now() > deadline)
        throw new Error(`${failure} (waited ${this.options.timeoutMs ?? 30_000} ms)`);
      await sleep(POLL_DELAYS_MS[Math.min(poll, POLL_DELAYS_MS.length - 1)]!);
    }
  }
}

/** The waits of a process whose projectors and dispatcher may run elsewhere, over `readStore`. */
export function remoteWaitsOn(readStore: ReadStore): RemoteWaits {
  return new RemoteWaits({
    readStore,
    catalog: new ProjectionCatalog(readStore),
    projections,
    deliveryQueueGeneration: DELIVERY_QUEUE_GENERATION,
  });
}
