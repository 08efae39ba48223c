/**
 * Webhook bodies from domain events, as pure functions: each builder returns the full payload of one
 * webhook event (schemas: event-schemas/schemas/webhooks), and `serializeWebhookBody` turns it into the
 * exact string that is signed and sent, trimmed to a summary when it would exceed 128 KB.
 */
import { isGovernanceBreach } from '../../domain/governance/closed-loop';
import type {
  ChainDepthMilestonePayload,
  ComplianceReport,
  ComplianceReportReadyPayload,
  EvidenceAdmitted,
  ExecutionAdmitted,
  ExecutionTraceAdmittedPayload,
  GateFailed,
  GateFailPayload,
  GovernanceBreachPayload,
  LeafAdmittedPayload,
  Observables,
  ObservablesAlertPayload,
  VarianceRecorded,
  VarianceRecordedPayload,
  WebhookEventName,
  WebhookPayloads,
} from '../../event-schemas';
import {
  type CHAIN_DEPTH_COUNTS,
  type ChainDepthMilestone,
  MAX_WEBHOOK_BODY_BYTES,
  omegaAlert,
  type WebhookLinks,
} from './webhook-events';

/** The full payload of a webhook event (never the trimmed summary). */
export type FullWebhookPayload<N extends WebhookEventName> = Exclude<WebhookPayloads[N], { trimmed: true }>;
/** The trimmed summary of a webhook event. */
export type TrimmedWebhookPayload<N extends WebhookEventName> = Extract<
  WebhookPayloads[N],
  { trimmed: true }
>;

/** What the payloads of an admitted proof bundle need from its EvidenceAdmitted event. */
export type EvidenceSource = Pick<
  EvidenceAdmitted,
  'tenant_id' | 'subject_id' | 'artifact_hash' | 'leaf_hash' | 'envelope' | 'admitted_at'
>;
/** What the payloads of a variance record need from its VarianceRecorded event. */
export type VarianceSource = Pick<VarianceRecorded, 'tenant_id' | 'subject_id' | 'leaf_hash' | 'record'>;

/** The signed tree head that integrated a leaf (from its TreeHeadSigned event). */
export interface CoveringHead {
  tree_size: number;
  root_hash: string;
  /** When the head was signed. */
  timestamp: string;
}

/** A change of a subject's observables, as one domain event made it. */
export interface ObservablesChange {
  tenant_id: string;
  subject_id: string;
  previous: Observables;
  observables: Observables;
  lifecycle: ObservablesAlertPayload['lifecycle'];
  trigger: ObservablesAlertPayload['trigger'];
  at: string;
}

export function evidenceSource(data: EvidenceAdmitted): EvidenceSource {
  return {
    tenant_id: data.tenant_id,
    subject_id: data.subject_id,
    artifact_hash: data.artifact_hash,
    leaf_hash: data.leaf_hash,
    envelope: data.envelope,
    admitted_at: data.admitted_at,
  };
}

export function varianceSource(data: VarianceRecorded): VarianceSource {
  return {
    tenant_id: data.tenant_id,
    subject_id: data.subject_id,
    leaf_hash: data.leaf_hash,
    record: data.record,
  };
}

export function leafAdmittedPayload(
  eventId: string,
  source: EvidenceSource,
  leafIndex: number,
  links: WebhookLinks,
): LeafAdmittedPayload {
  return {
    type: 'leaf_admitted',
    event_id: eventId,
    tenant_id: source.tenant_id,
    leaf_index: leafIndex,
    leaf_hash: source.leaf_hash,
    admitted_at: source.admitted_at,
    subject_id: source.subject_id,
    replay_url: links.replay(source.artifact_hash),
    artifact_hash: source.artifact_hash,
    envelope: source.envelope,
  };
}

/** The report notice; `report` is added only by `renderComplianceReportReady`. */
export function complianceReportReadyPayload(
  eventId: string,
  source: Pick<EvidenceSource, 'tenant_id' | 'subject_id' | 'artifact_hash' | 'leaf_hash'>,
  leafIndex: number,
  head: CoveringHead,
  links: WebhookLinks,
): ComplianceReportReadyPayload {
  return {
    type: 'compliance_report_ready',
    event_id: eventId,
    tenant_id: source.tenant_id,
    subject_id: source.subject_id,
    artifact_hash: source.artifact_hash,
    leaf_index: leafIndex,
    leaf_hash: source.leaf_hash,
    report_type: 'GOV_COMPLIANCE_REPORT_V1',
    report_url: links.report(source.artifact_hash),
    tree_size: head.tree_size,
    root_hash: head.root_hash,
    generated_at: head.timestamp,
  };
}

/**
 * `counts` (CHAIN_DEPTH_COUNTS) is left out only to render again the bytes of a delivery queued
 * before bodies carried it, whose recipe has none: see BodyRecipe.
 */
export function chainDepthMilestonePayload(
  eventId: string,
  source: Pick<EvidenceSource, 'tenant_id' | 'subject_id' | 'artifact_hash' | 'leaf_hash' | 'admitted_at'>,
  depth: ChainDepthMilestone,
  leafIndex: number,
  links: WebhookLinks,
  counts: typeof CHAIN_DEPTH_COUNTS | undefined,
): ChainDepthMilestonePayload {
  return {
    type: 'chain_depth_milestone',
    event_id: eventId,
    tenant_id: source.tenant_id,
    depth,
    ...(counts && { counts }),
    subject_id: source.subject_id,
    artifact_hash: source.artifact_hash,
    leaf_index: leafIndex,
    leaf_hash: source.leaf_hash,
    reached_at: source.admitted_at,
    chain_url: links.chain(),
  };
}

export function executionTraceAdmittedPayload(
  eventId: string,
  source: ExecutionAdmitted,
  leafIndex: number,
): ExecutionTraceAdmittedPayload {
  return {
    type: 'execution_trace_admitted',
    event_id: eventId,
    tenant_id: source.tenant_id,
    subject_id: source.subject_id,
    leaf_index: leafIndex,
    leaf_hash: source.leaf_hash,
    parent_auth_leaf_hash: source.trace.parent_auth_leaf_hash,
    admitted_at: source.trace.recorded_at,
    trace: source.trace,
  };
}

export function varianceRecordedPayload(
  eventId: string,
  source: VarianceSource,
  leafIndex: number,
): VarianceRecordedPayload {
  return {
    type: 'variance_recorded',
    event_id: eventId,
    tenant_id: source.tenant_id,
    subject_id: source.subject_id,
    leaf_index: leafIndex,
    leaf_hash: source.leaf_hash,
    auth_leaf_hash: source.record.parent_auth_leaf_hash,
    recorded_at: source.record.recorded_at,
    record: source.record,
  };
}

/** The breach notice of a variance record, or null when the record is no governance breach. */
export function governanceBreachPayload(
  eventId: string,
  source: VarianceSource,
): GovernanceBreachPayload | null {
  const { record } = source;
  if (!isGovernanceBreach(record)) return null;
  return {
    type: 'governance_breach',
    event_id: eventId,
    tenant_id: source.tenant_id,
    subject_id: source.subject_id,
    auth_leaf_hash: record.parent_auth_leaf_hash,
    exec_leaf_hash: record.parent_exec_leaf_hash,
    variance_leaf_hash: source.leaf_hash,
    classification: record.classification,
    l2_distance: record.l2_distance,
    omega_breach: record.omega_breach,
    drift_direction: { ...record.drift_direction },
    recorded_at: record.recorded_at,
    record,
  };
}

export function gateFailPayload(eventId: string, source: GateFailed): GateFailPayload {
  return {
    type: 'gate_fail',
    event_id: eventId,
    tenant_id: source.tenant_id,
    subject_id: source.subject_id,
    gates_failed: source.gates_failed,
    details: source.details,
    action: 'ACTION_BLOCKED',
    failed_at: source.failed_at,
  };
}

/** The alert of an observables change, or null when it did not cross the boundary of Ω. */
export function observablesAlertPayload(
  eventId: string,
  change: ObservablesChange,
): ObservablesAlertPayload | null {
  const alert = omegaAlert(change.previous, change.observables);
  if (!alert) return null;
  return {
    type: 'observables_alert',
    event_id: eventId,
    tenant_id: change.tenant_id,
    subject_id: change.subject_id,
    crossing: alert.crossing,
    observables: { H: change.observables.H, C: change.observables.C, E: change.observables.E },
    previous: { H: change.previous.H, C: change.previous.C, E: change.previous.E },
    thresholds_crossed: alert.thresholds_crossed as ObservablesAlertPayload['thresholds_crossed'],
    lifecycle: change.lifecycle,
    trigger: change.trigger,
    at: change.at,
  };
}

/** The members a trimmed summary keeps besides type, event_id and tenant_id: the small identifying ones. */
export const TRIMMED_FIELDS: { readonly [N in WebhookEventName]: readonly (keyof FullWebhookPayload<N>)[] } =
  {
    leaf_admitted: ['leaf_index', 'leaf_hash', 'admitted_at', 'subject_id', 'replay_url', 'artifact_hash'],
    gate_fail: ['subject_id', 'gates_failed', 'action', 'failed_at'],
    compliance_report_ready: [
      'subject_id',
      'artifact_hash',
      'leaf_index',
      'leaf_hash',
      'report_type',
      'report_url',
      'tree_size',
      'root_hash',
      'generated_at',
    ],
    execution_trace_admitted: [
      'subject_id',
      'leaf_index',
      'leaf_hash',
      'parent_auth_leaf_hash',
      'admitted_at',
    ],
    variance_recorded: ['subject_id', 'leaf_index', 'leaf_hash', 'auth_leaf_hash', 'recorded_at'],
    governance_breach: [
      'subject_id',
      'auth_leaf_hash',
      'exec_leaf_hash',
      'variance_leaf_hash',
      'classification',
      'l2_distance',
      'omega_breach',
      'drift_direction',
      'recorded_at',
    ],
    chain_depth_milestone: [
      'depth',
      'counts',
      'subject_id',
      'artifact_hash',
      'leaf_index',
      'leaf_hash',
      'reached_at',
      'chain_url',
    ],
    observables_alert: ['subject_id', 'crossing', 'lifecycle', 'trigger', 'at'],
  };

/** Where the full record of a trimmed body can be read. */
function fullRecordUrl<N extends WebhookEventName>(
  name: N,
  payload: FullWebhookPayload<N>,
  links: WebhookLinks,
): string {
  const full = payload as FullWebhookPayload<WebhookEventName>;
  switch (full.type) {
    case 'leaf_admitted':
    case 'execution_trace_admitted':
      return links.leaf(full.leaf_index);
    case 'compliance_report_ready':
      return full.report_url;
    case 'variance_recorded':
    case 'governance_breach':
      return links.variance(full.auth_leaf_hash);
    case 'chain_depth_milestone':
      return full.chain_url;
    case 'gate_fail':
    case 'observables_alert':
      return links.status(full.subject_id);
    default:
      throw new Error(`unknown webhook event ${String(name)}`);
  }
}

/** The summary sent instead of a body of `originalBytes` bytes over the limit. */
export function trimWebhookPayload<N extends WebhookEventName>(
  name: N,
  payload: FullWebhookPayload<N>,
  originalBytes: number,
  links: WebhookLinks,
): TrimmedWebhookPayload<N> {
  const source = payload as unknown as Record<string, unknown>;
  const trimmed: Record<string, unknown> = {
    type: source.type,
    event_id: source.event_id,
    tenant_id: source.tenant_id,
  };
  for (const field of TRIMMED_FIELDS[name] as readonly string[]) trimmed[field] = source[field];
  trimmed.trimmed = true;
  trimmed.original_bytes = originalBytes;
  trimmed.url = fullRecordUrl(name, payload, links);
  return trimmed as unknown as TrimmedWebhookPayload<N>;
}

export interface SerializedBody {
  /** The exact JSON text that is signed and sent. */
  body: string;
  /** UTF-8 size of `body`. */
  bytes: number;
  trimmed: boolean;
}

/**
 * Serializes a payload once; when the text exceeds 128 KB (131072 bytes) the body is the trimmed
 * summary instead, pointing at where the full record can be read.
 */
export function serializeWebhookBody<N extends WebhookEventName>(
  name: N,
  payload: FullWebhookPayload<N>,
  links: WebhookLinks,
): SerializedBody {
  const full = JSON.stringify(payload);
  const bytes = Buffer.byteLength(full, 'utf8');
  if (bytes <= MAX_WEBHOOK_BODY_BYTES) return { body: full, bytes, trimmed: false };
  const body = JSON.stringify(trimWebhookPayload(name, payload, bytes, links));
  return { body, bytes: Buffer.byteLength(body, 'utf8'), trimmed: true };
}

/**
 * The body of a `compliance_report_ready` delivery, which the projection queues unrendered: the notice,
 * with the full report when the caller rendered one (it needs the log's inclusion proof).
 */
export function renderComplianceReportReady(
  notice: ComplianceReportReadyPayload,
  report: ComplianceReport | null,
  links: WebhookLinks,
): string {
  const payload: ComplianceReportReadyPayload = report ? { ...notice, report } : notice;
  return serializeWebhookBody('compliance_report_ready', payload, links).body;
}
