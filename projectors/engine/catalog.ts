import type { ReadStore } from '../../ports/read-store';
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
  private readonly cached = new Map<string, { generation: number; until: number }>();

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

  /** The serving generation as request paths see it: looked up at most once per `cacheMs`. */
  async servedGeneration(projectionName: string): Promise<number> {
    const now = Date.now();
    const hit = this.cached.get(projectionName);
    if (hit && hit.until > now) return hit.generation;
    const generation = await this.servingGeneration(projectionName);
    if (this.cacheMs > 0) this.cached.set(projectionName, { generation, until: now + this.cacheMs });
    return generation;
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
