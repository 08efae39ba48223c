import type { FindQuery, Page, StoredDocument } from '../ports/read-store';
import type { Projection } from '../projectors/projection';
import type { Services } from '../runtime/services';

/** Reads a projection's serving generation (see `projectors/catalog.ts`). */
export class ReadModels {
  constructor(private readonly services: Pick<Services, 'readStore' | 'catalog'>) {}

  async get<T>(
    projection: Pick<Projection, 'name'>,
    collection: string,
    id: string,
  ): Promise<StoredDocument<T> | null> {
    const physical = await this.services.catalog.servingCollection(projection.name, collection);
    return this.services.readStore.get<T>(physical, id);
  }

  async find<T>(
    projection: Pick<Projection, 'name'>,
    collection: string,
    query: FindQuery,
  ): Promise<Page<T>> {
    const physical = await this.services.catalog.servingCollection(projection.name, collection);
    return this.services.readStore.find<T>(physical, query);
  }

  async count(
    projection: Pick<Projection, 'name'>,
    collection: string,
    where?: FindQuery['where'],
  ): Promise<number> {
    const physical = await this.services.catalog.servingCollection(projection.name, collection);
    return this.services.readStore.count(physical, where);
  }
}
