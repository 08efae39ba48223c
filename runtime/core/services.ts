import type { Logger } from 'pino';
import type { EventStore } from '../../ports/event-store';
import type { IntegratedLeaf, LogName, PublishedLog, PublishedLogs } from '../../ports/log';
import type { ReadStore } from '../../ports/read-store';
import type { ProjectionCatalog } from '../../projectors/engine/catalog';
import type { ReadModels } from '../../read-api/engine/read-models';
import type { Config } from '../config/config';
import type { PublishedKeys } from '../keys/key-history';
import type { Metrics } from '../support/metrics';

/**
 * The engine every context runs on, whichever deployment composed it: the stores, the read models,
 * the public log, and what the process is configured and measured with. Each context's own services
 * extend it with what only that context uses (`GovernanceServices`, command-api/governance/services.ts);
 * runtime/wiring/compose-services.ts builds them. A type here, below the composition, so that the
 * contexts' routes can name it without importing what composes them.
 */
export interface CoreServices {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Validates every event against its schema before appending. */
  eventStore: EventStore;
  readStore: ReadStore;
  catalog: ProjectionCatalog;
  /**
   * Resolves once the read models reading any of `eventTypes` have applied everything up to
   * `position` (read-your-write for the events just appended).
   */
  awaitProjections(position: number, eventTypes: readonly string[]): Promise<void>;
  /**
   * Read-your-write for an admission about to be acknowledged: where this process serves the reads,
   * notes the position so that reads wait for the read models to apply it (waiting here only when
   * they lag far behind; see read-api/engine/read-barrier.ts); elsewhere, the same wait as `awaitProjections`.
   */
  readYourWrite(position: number, eventTypes: readonly string[]): Promise<void>;
  /** Reads the serving generation of each read model. */
  readModels: ReadModels;
  /** The clock every decision and expiry uses (tests move it). */
  clock(): Date;
  /** The shared public Merkle log (signed sizes only). */
  log: PublishedLog;
  /** Every public log by name, the shared one included (`GET /gov/v1/logs/:log/…`). */
  logs: PublishedLogs;
  /** The node's public keys, current and retired, as loaded at start (GET /gov/v1/log/keys). */
  publishedKeys: PublishedKeys;
  /** Resolves when the admission event `eventId`, admitted to `log`, is a leaf covered by a signed tree head of that log. */
  awaitLeaf(eventId: string, log: LogName): Promise<IntegratedLeaf>;
  /** Names of the ports' adapters, for /health. */
  bindings: Record<string, string>;
  /** Which process of the deployment this is, for /health. */
  role: ProcessRole;
  /** The single-writer leases this process contends for, by lease name, for /health; none: `{}`. */
  leaseStates(): Record<string, LeaseState>;
}

/** The embedded server (`all`) or one process of the production topology (runtime/roles/). */
export type ProcessRole = 'all' | 'command-api' | 'read-api' | 'projectors' | 'dispatcher' | 'platform';

/** Of a single-writer lease: this process holds it and writes, or waits to take it over. */
export type LeaseState = 'writer' | 'standby';

export const SERVICE_NAME = 'gov-clearinghouse';
// Read at run time from the package root: two levels above runtime/wiring/, three above dist/runtime/wiring/.
export const SERVICE_VERSION: string = (() => {
  for (const candidate of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === SERVICE_NAME && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
})();
