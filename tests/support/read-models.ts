import path from 'node:path';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type { Page, StoredDocument } from '../../ports/read-store';
import { projections } from '../../projectors';
import { ProjectionCatalog } from '../../projectors/engine/catalog';

/**
 * Every document of every collection of the serving generation of every projection, by
 * `<projection>/<collection>`, from the embedded read store of `dataDir` (a stopped server's).
 */
export async function readModels(dataDir: string): Promise<Record<string, StoredDocument<unknown>[]>> {
  const readStore = new SqliteReadStore(path.join(dataDir, 'read-models.db'));
  try {
    const catalog = new ProjectionCatalog(readStore);
    const models: Record<string, StoredDocument<unknown>[]> = {};
    for (const projection of projections)
      for (const collection of projection.collections) {
        const physical = await catalog.servingCollection(projection.name, collection);
        const documents: StoredDocument<unknown>[] = [];
        let cursor: string | null = null;
        do {
          const page: Page<unknown> = await readStore.find<unknown>(physical, {
            limit: 1000,
            ...(cursor ? { cursor } : {}),
          });
          documents.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor);
        models[`${projection.name}/${collection}`] = documents;
      }
    return models;
  } finally {
    await readStore.close();
  }
}
