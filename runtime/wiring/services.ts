import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import type { AggregateWriter } from '../../command-api/engine/aggregate-writer';
import type { TenantState } from '../../command-api/governance/tenants/tenant-state';
import type { AdmissionCertifier } from '../../domain/governance/admission-round';
import type { Validator } from '../../domain/governance/validators';
import type { EventStore } from '../../ports/event-store';
import type { IntegratedLeaf, PublishedLog } from '../../ports/log';
import type { ReadStore } from '../../ports/read-store';
import type { ProjectionCatalog } from '../../projectors/engine/catalog';
import type { SecretBoxKey } from '../../projectors/webhooks/secret-box';
import type { TargetGuard } from '../../projectors/webhooks/target-guard';
import type { ReadModels } from '../../read-api/engine/read-models';
import type { Config } from '../config/config';
import type { RequestRateLimiter } from '../http/request-rate-limiter';
import type { PublishedKeys } from '../keys/key-history';
import type { Metrics } from '../support/metrics';

/** What the HTTP routes need, whichever deployment composed it. */
export interface Services {
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
  /** Runs commands on tenant aggregates (stream `tenant-<id>`), group-committed per tenant. */
  tenants: AggregateWriter<TenantState>;
  /** The public Merkle log (signed sizes only). */
  log: PublishedLog;
  /** The node's public keys, current and retired, as loaded at start (GET /gov/v1/log/keys). */
  publishedKeys: PublishedKeys;
  /** Resolves when the admission event `eventId` is a leaf covered by a signed tree head. */
  awaitLeaf(eventId: string): Promise<IntegratedLeaf>;
  /** What admissions are signed with and bound to. */
  admission: {
    validators: readonly Validator[];
    validatorKeys: readonly KeyObject[];
    authority: { privateKey: KeyObject; publicKey: KeyObject; nodeId: string };
    /** The round and the envelope's seal on the validator thread, when it runs. */
    certify?: AdmissionCertifier;
    logBinding: { log_id: string; log_url: string };
  };
  requestLimiter: RequestRateLimiter;
  webhooks: {
    guard: TargetGuard;
    secretKey: SecretBoxKey;
    /** Physical names of the delivery-queue projection's collections. */
    collections: { webhooks: string; deliveries: string };
    /**
     * Resolves once the dispatcher has applied every event of tenant `tenantId` up to `position`
     * (read-your-write for webhook commands).
     */
    awaitDispatcher(position: number, tenantId: string): Promise<void>;
  };
  /** Names of the ports' adapters, for /health. */
  bindings: Record<string, string>;
}

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
