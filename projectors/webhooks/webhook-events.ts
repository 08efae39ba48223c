/**
 * The webhook events (names, ids, links) and the facts that decide when one fires, as pure functions:
 * no I/O and no clock, so replaying the event store queues exactly the same deliveries.
 *
 *   GateFailed        → gate_fail, observables_alert                (when the failure is projected)
 *   EvidenceAdmitted  → leaf_admitted, compliance_report_ready,
 *                       chain_depth_milestone, observables_alert    (when its leaf is integrated)
 *   ExecutionAdmitted → execution_trace_admitted                    (when its leaf is integrated)
 *   VarianceRecorded  → variance_recorded, governance_breach,
 *                       observables_alert                           (when its leaf is integrated)
 */
import { sha256Hex } from '../../domain/governance/hash';
import { OMEGA, omegaCrossing } from '../../domain/governance/observables';
import type { Observables, WebhookEventName } from '../../event-schemas';
import { webhookSchemas } from '../../event-schemas/governance';

export type { WebhookEventName } from '../../event-schemas';

/** Every webhook event name, in the order of the spec. */
export const WEBHOOK_EVENT_NAMES = Object.freeze(Object.keys(webhookSchemas) as WebhookEventName[]);

/** A serialized body larger than this (UTF-8 bytes) is replaced by its trimmed summary. */
export const MAX_WEBHOOK_BODY_BYTES = 131_072;

/** Chain depths (authorization leaves of a tenant) that fire `chain_depth_milestone`. */
export const CHAIN_DEPTH_MILESTONES = Object.freeze([10, 100, 1000] as const);
export type ChainDepthMilestone = (typeof CHAIN_DEPTH_MILESTONES)[number];
/** What a chain depth counts, as `chain_depth_milestone` bodies say (`counts`). */
export const CHAIN_DEPTH_COUNTS = 'authorization_leaves';

/** The domain events the delivery-queue projection turns into webhook events, and which ones each may fire, in order. */
export const WEBHOOK_EVENTS_BY_SOURCE = {
  GateFailed: ['gate_fail', 'observables_alert'],
  EvidenceAdmitted: [
    'leaf_admitted',
    'compliance_report_ready',
    'chain_depth_milestone',
    'observables_alert',
  ],
  ExecutionAdmitted: ['execution_trace_admitted'],
  VarianceRecorded: ['variance_recorded', 'governance_breach', 'observables_alert'],
} as const satisfies Record<string, readonly WebhookEventName[]>;

export type WebhookSourceType = keyof typeof WEBHOOK_EVENTS_BY_SOURCE;

/** What `webhookEventId` makes. */
export const WEBHOOK_EVENT_ID = /^evt_[0-9a-f]{32}$/;

/**
 * The id of the webhook event `name` caused by the domain event `sourceEventId`: `evt_` + the first 32
 * hex digits of SHA-256 of `<source event id>:<name>`. The same for every webhook, retry and redelivery.
 */
export function webhookEventId(sourceEventId: string, name: WebhookEventName): string {
  return `evt_${sha256Hex(`${sourceEventId}:${name}`).slice(0, 32)}`;
}

/** The milestone a tenant's chain reaches at `depth` authorization leaves, or null (11 is none). */
export function chainDepthMilestone(depth: number): ChainDepthMilestone | null {
  return (CHAIN_DEPTH_MILESTONES as readonly number[]).includes(depth)
    ? (depth as ChainDepthMilestone)
    : null;
}

interface ThresholdCrossing {
  observable: 'H' | 'C' | 'E';
  threshold: number;
  bound: 'min' | 'max';
}

/** The bounds of Ω (domain/governance/observables.ts). Tenant policies carry no Ω thresholds of their own. */
const OMEGA_THRESHOLDS: readonly ThresholdCrossing[] = Object.freeze([
  Object.freeze({ observable: 'H', threshold: OMEGA.min_H, bound: 'min' } as const),
  Object.freeze({ observable: 'C', threshold: OMEGA.min_C, bound: 'min' } as const),
  Object.freeze({ observable: 'E', threshold: OMEGA.max_E, bound: 'max' } as const),
]);

export interface OmegaAlert {
  crossing: 'left_omega' | 'entered_omega';
  /** Each bound whose side changed (at least one). */
  thresholds_crossed: ThresholdCrossing[];
}

/** Whether going from `previous` to `observables` crossed the boundary of Ω, which way, and over which bounds. */
export function omegaAlert(previous: Observables, observables: Observables): OmegaAlert | null {
  const crossing = omegaCrossing(previous, observables);
  if (crossing === null) return null;
  const inside = (bound: ThresholdCrossing, values: Observables) =>
    bound.bound === 'min'
      ? values[bound.observable] >= bound.threshold
      : values[bound.observable] <= bound.threshold;
  return {
    crossing: crossing === 'left' ? 'left_omega' : 'entered_omega',
    thresholds_crossed: OMEGA_THRESHOLDS.filter(
      (bound) => inside(bound, previous) !== inside(bound, observables),
    ).map((bound) => ({ ...bound })),
  };
}

/** The links webhook bodies carry, under the service's public base URL. */
export interface WebhookLinks {
  /** The public proof bundle: `<base>/governance/replay/<artifact_hash>`. */
  replay(artifactHash: string): string;
  /** The compliance report: `<base>/governance/report/<artifact_hash>`. */
  report(artifactHash: string): string;
  /** The variance record: `<base>/governance/variance/<auth_leaf_hash>`. */
  variance(authLeafHash: string): string;
  /** The tenant's chain: `<base>/governance/chain`. */
  chain(): string;
  /** A log leaf with its record: `<base>/gov/v1/log/leaf?index=<leaf_index>`. */
  leaf(leafIndex: number): string;
  /** A subject's status: `<base>/governance/status?subject_id=<subject_id>`. */
  status(subjectId: string): string;
}

export function webhookLinks(publicUrl: string): WebhookLinks {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    replay: (artifactHash) => `${base}/governance/replay/${artifactHash}`,
    report: (artifactHash) => `${base}/governance/report/${artifactHash}`,
    variance: (authLeafHash) => `${base}/governance/variance/${authLeafHash}`,
    chain: () => `${base}/governance/chain`,
    leaf: (leafIndex) => `${base}/gov/v1/log/leaf?index=${leafIndex}`,
    status: (subjectId) => `${base}/governance/status?subject_id=${encodeURIComponent(subjectId)}`,
  };
}
