import type { Logger } from 'pino';
import type { EventStore } from '../ports/event-store';
import type { ReadStore } from '../ports/read-store';
import type { ProjectionCatalog } from '../projectors/catalog';
import type { Config } from './config';
import type { Metrics } from './metrics';

/** What the HTTP routes need, whichever deployment composed it. */
export interface Services {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Validates every event against its schema before appending. */
  eventStore: EventStore;
  readStore: ReadStore;
  catalog: ProjectionCatalog;
  /** Resolves once the read models have applied everything up to `position` (read-your-write). */
  awaitProjections(position: number): Promise<void>;
  /** Names of the ports' adapters, for /health. */
  bindings: Record<string, string>;
}

export const SERVICE_NAME = 'gov-clearinghouse';
// Read at run time from the package root, which sits two levels above both runtime/ and dist/runtime/.
export const SERVICE_VERSION: string = (() => {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === SERVICE_NAME && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
})();
