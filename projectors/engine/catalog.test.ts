import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import { ProjectionCatalog } from './catalog';
import type { Projection } from './projection';

const projection = (name: string) => ({ name, version: 1 }) as Projection;

describe('ProjectionCatalog', () => {
  it('given generations switched, when request paths ask for several projections, then the catalog is read once per cache period, and a later switch is seen after it', async () => {
    const store = new SqliteReadStore(':memory:');
    let finds = 0;
    const find = store.find.bind(store);
    store.find = (collection, query) => {
      finds += 1;
      return find(collection, query);
    };
    try {
      const writer = new ProjectionCatalog(store);
      await writer.switchTo(projection('governance'), 2);
      await writer.switchTo(projection('tenants'), 3);
      const served = new ProjectionCatalog(store, 100);
      expect(
        await Promise.all(
          ['governance', 'tenants', 'never-built'].map((name) => served.servedGeneration(name)),
        ),
      ).toEqual([2, 3, 1]);
      expect(await served.servedGeneration('governance')).toBe(2);
      expect(finds).toBe(1);

      await writer.switchTo(projection('governance'), 4);
      expect(await served.servedGeneration('governance')).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(await served.servedGeneration('governance')).toBe(4);
      expect(finds).toBe(2);
    } finally {
      await store.close();
    }
  });
});
