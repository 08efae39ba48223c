import type { KeyObject } from 'node:crypto';
import type { AdmissionCertifier } from '../../domain/governance/admission-round';
import type { Validator } from '../../domain/governance/validators';
import type { SecretBoxKey } from '../../projectors/webhooks/secret-box';
import type { TargetGuard } from '../../projectors/webhooks/target-guard';
import type { CoreServices } from '../../runtime/core/services';
import type { RequestRateLimiter } from '../../runtime/http/rate-limit';
import type { RecentKeys } from '../../runtime/http/recent-keys';
import type { AggregateWriter } from '../engine/aggregate-writer';
import type { LogBinding } from './evidence/submit-evidence';
import type { TenantEvent, TenantState } from './tenants/tenant-state';
import type { WitnessEvent } from './witness/witness-cosignature';

/** What the governance context's routes and handlers use: the shared core and its own parts. */
export interface GovernanceServices extends CoreServices {
  /** Runs commands on tenant aggregates (stream `tenant-<id>`), group-committed per tenant. */
  tenants: AggregateWriter<TenantState, TenantEvent>;
  /** Runs commands on witness keys' streams (`witness-<key>`): cosignatures, idempotent by event id. */
  witnesses: AggregateWriter<null, WitnessEvent>;
  /** What admissions are signed with and bound to. */
  admission: {
    validators: readonly Validator[];
    validatorKeys: readonly KeyObject[];
    authority: { privateKey: KeyObject; publicKey: KeyObject; nodeId: string };
    /** The round and the envelope's seal on the validator thread, when it runs. */
    certify?: AdmissionCertifier;
    /** What an envelope admitted to `log` is bound to; throws `UnknownLogError` for a log not known yet. */
    logBinding(log: string): LogBinding;
    /** Resolves once this process knows every log the event store holds (after an `UnknownLogError`). */
    learnLogs(): Promise<void>;
  };
  requestLimiter: RequestRateLimiter;
  /** The admission path's key lookups, forgotten as the key-change feed tells (tenants/key-changes.ts). */
  recentKeys: RecentKeys;
  webhooks: {
    guard: TargetGuard;
    secretKey: SecretBoxKey;
    /** Physical names of the delivery-queue projection's collections. */
    collections: { webhooks: string; deliveries: string };
    /**
     * Resolves once the delivery queue (in the dispatcher) has applied every event of tenant `tenantId` up to `position`
     * (read-your-write for webhook commands).
     */
    awaitDeliveryQueue(position: number, tenantId: string): Promise<void>;
  };
}
