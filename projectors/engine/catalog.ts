import type { Page, ReadStore } from '../../ports/read-store';
import { type Projection, physicalCollection } from './projection';

const CATALOG = '_projection_catalog';

export interface CatalogEntry {
  /** The generation readers are served from. */
  generation: number;
  /** `Projection.version` of the code that built it. */
  code_version: number;
  switched_at: string;
}

/**
 * Which generation of each projection is served. Switching is one position-guarded upsert keyed by
 * the generation number, so a stale switch to an older generation can never win.
 */
export class ProjectionCatalog {
  /** Every serving generation, as request paths last looked them up. */
  private served: { generations: Map<string, number>; until: number } | null = null;
  private loading: Promise<Map<string, number>> | null = null;

  /**
   * `cacheMs`: how long request paths may reuse a serving generation they looked up (a switch is seen
   * that much later; the old generation is dropped only after the runners moved, which takes longer).
   */
  constructor(
    private readonly readStore: ReadStore,
    private readonly cacheMs = 0,
  ) {}

  async entry(projectionName: string): Promise<CatalogEntry | null> {
    return (await this.readStore.get<CatalogEntry>(CATALOG, projectionName))?.data ?? null;
  }

  /** The serving generation, or 1 for a projection that was never built. */
  async servingGeneration(projectionName: string): Promise<number> {
    return (await this.entry(projectionName))?.generation ?? 1;
  }

  /**
   * The serving generation as request paths see it: the whole catalog (one small collection) is read
   * at most once per `cacheMs`, not each projection's entry apart (a process reads a dozen).
   */
  async servedGeneration(projectionName: string): Promise<number> {
    if (this.cacheMs <= 0) return this.servingGeneration(projectionName);
    const now = Date.now();
    if (!this.served || this.served.until <= now) {
      this.loading ??= this.generations().finally(() => {
        this.loading = null;
      });
      this.served = { generations: await this.loading, until: now + this.cacheMs };
    }
    return this.served.generations.get(projectionName) ?? 1;
  }

  /** Every projection's serving generation (absent: never built, so 1), read at once. */
  async generations(): Promise<Map<string, number>> {
    const generations = new Map<string, number>();
    let cursor: string | null = null;
    do {
      const page: Page<CatalogEntry> = await this.readStore.find<CatalogEntry>(CATALOG, {
        limit: 1000,
        cursor,
      });
      for (const entry of page.items) generations.set(entry.id, entry.data.generation);
      cursor = page.nextCursor;
    } while (cursor);
    return generations;
  }

  /** The physical collection readers should query for a logical one. */
  async servingCollection(projectionName: string, collection: string): Promise<string> {
    return physicalCollection(collection, await this.servedGeneration(projectionName));
  }

  async switchTo(projection: Projection, generation: number, now = new Date()): Promise<void> {
    const entry: CatalogEntry = {
      generation,
      code_version: projection.version,
      switched_at: now.toISOString(),
    };
    await this.readStore.apply([
      { kind: 'upsert', collection: CATALOG, id: projection.name, position: generation, data: entry },
    ]);
  }
}
