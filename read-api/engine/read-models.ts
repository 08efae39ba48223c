import type { FindQuery, Page, ReadStore, StoredDocument } from '../../ports/read-store';
import type { ProjectionCatalog } from '../../projectors/engine/catalog';
import type { Projection } from '../../projectors/engine/projection';
import type { ReadGate } from './read-barrier';

/**
 * Which writes a read must see:
 *   acknowledged  every write this process acknowledged (read-your-write; waits at the read barrier
 *                 if the read model has not applied them yet);
 *   applied       whatever the read model holds now (for reads no acknowledged admission changes,
 *                 such as finding an API key on the admission path itself).
 */
export type Freshness = 'acknowledged' | 'applied';

/** Reads a projection's serving generation (see `projectors/engine/catalog.ts`). */
export class ReadModels {
  constructor(
    private readonly services: { readStore: ReadStore; catalog: ProjectionCatalog },
    /**
     * What a read waits for first: where this process acknowledges writes before its read models apply
     * them, the read barrier (read-barrier.ts); where other processes acknowledge them, the store's head
     * (runtime/wiring/remote-waits.ts).
     */
    private readonly barrier: ReadGate | null = null,
  ) {}

  async get<T>(
    projection: Pick<Projection, 'name'>,
    collection: string,
    id: string,
    freshness: Freshness = 'acknowledged',
  ): Promise<StoredDocument<T> | null> {
    if (freshness === 'acknowledged') await this.barrier?.before(projection.name);
    const physical = await this.services.catalog.servingCollection(projection.name, collection);
    return this.services.readStore.get<T>(physical, id);
  }

  async find<T>(
    projection: Pick<Projection, 'name'>,
    collection: string,
    query: FindQuery,
  ): Promise<Page<T>> {
    await this.barrier?.before(projection.name);
    const physical = await this.services.catalog.servingCollection(projection.name, collection);
    return this.services.readStore.find<T>(physical, query);
  }

  async count(
    projection: Pick<Projection, 'name'>,
    collection: string,
    where?: FindQuery['where'],
    range?: FindQuery['range'],
  ): Promise<number> {
    await this.barrier?.before(projection.name);
    const physical = await this.services.catalog.servingCollection(projection.name, collection);
    return this.services.readStore.count(physical, where, range);
  }
}
