/** Every schema the service knows, by the name code refers to it with. Adding a schema starts here. */

import changePolicy from './commands/change-policy.json';
import registerTenant from './commands/register-tenant.json';
import registerWebhook from './commands/register-webhook.json';
import submitEvidence from './commands/submit-evidence.json';
import submitExecution from './commands/submit-execution.json';
import submitWitnessSignature from './commands/submit-witness-signature.json';
import apiKeyRotated from './events/ApiKeyRotated.json';
import evidenceAdmitted from './events/EvidenceAdmitted.json';
import executionAdmitted from './events/ExecutionAdmitted.json';
import gateFailed from './events/GateFailed.json';
import logAnchored from './events/LogAnchored.json';
import logCreated from './events/LogCreated.json';
import tenantPolicyChanged from './events/TenantPolicyChanged.json';
import tenantRegistered from './events/TenantRegistered.json';
import tenantTierChanged from './events/TenantTierChanged.json';
import treeHeadSigned from './events/TreeHeadSigned.json';
import varianceRecorded from './events/VarianceRecorded.json';
import webhookRedeliveryRequested from './events/WebhookRedeliveryRequested.json';
import webhookRegistered from './events/WebhookRegistered.json';
import webhookRemoved from './events/WebhookRemoved.json';
import witnessCosigned from './events/WitnessCosigned.json';
import recordedEvent from './recorded-event.json';
import complianceReport from './records/compliance-report.json';
import executionTrace from './records/execution-trace.json';
import governanceEnvelope from './records/governance-envelope.json';
import logAnchor from './records/log-anchor.json';
import observables from './records/observables.json';
import proofBundle from './records/proof-bundle.json';
import tenantPolicy from './records/tenant-policy.json';
import validatorCertificate from './records/validator-certificate.json';
import validatorVote from './records/validator-vote.json';
import varianceRecord from './records/variance-record.json';
import account from './responses/account.json';
import chainPage from './responses/chain-page.json';
import deliveryLog from './responses/delivery-log.json';
import error from './responses/error.json';
import evidenceAdmittedResponse from './responses/evidence-admitted.json';
import executionAdmittedResponse from './responses/execution-admitted.json';
import gateFailure from './responses/gate-failure.json';
import health from './responses/health.json';
import keyRotation from './responses/key-rotation.json';
import logAnchorResponse from './responses/log-anchor.json';
import logConsistency from './responses/log-consistency.json';
import logKeys from './responses/log-keys.json';
import logLeaf from './responses/log-leaf.json';
import logList from './responses/log-list.json';
import logProof from './responses/log-proof.json';
import redelivery from './responses/redelivery.json';
import registration from './responses/registration.json';
import status from './responses/status.json';
import sth from './responses/sth.json';
import tenantPolicyResponse from './responses/tenant-policy.json';
import tripleLeaf from './responses/triple-leaf.json';
import version from './responses/version.json';
import webhook from './responses/webhook.json';
import webhookCreated from './responses/webhook-created.json';
import webhookDeleted from './responses/webhook-deleted.json';
import webhookList from './responses/webhook-list.json';
import witnessSignature from './responses/witness-signature.json';
import chainDepthMilestone from './webhooks/chain_depth_milestone.json';
import complianceReportReady from './webhooks/compliance_report_ready.json';
import executionTraceAdmitted from './webhooks/execution_trace_admitted.json';
import gateFail from './webhooks/gate_fail.json';
import governanceBreach from './webhooks/governance_breach.json';
import leafAdmitted from './webhooks/leaf_admitted.json';
import observablesAlert from './webhooks/observables_alert.json';
import varianceRecordedWebhook from './webhooks/variance_recorded.json';

/** Request bodies, by command name. */
export const commandSchemas = {
  'register-tenant': registerTenant,
  'submit-evidence': submitEvidence,
  'submit-execution': submitExecution,
  'register-webhook': registerWebhook,
  'submit-witness-signature': submitWitnessSignature,
  'change-policy': changePolicy,
} as const;

/** Domain event payloads (`data`), by event type. */
export const eventSchemas = {
  TenantRegistered: tenantRegistered,
  ApiKeyRotated: apiKeyRotated,
  TenantTierChanged: tenantTierChanged,
  TenantPolicyChanged: tenantPolicyChanged,
  EvidenceAdmitted: evidenceAdmitted,
  GateFailed: gateFailed,
  ExecutionAdmitted: executionAdmitted,
  VarianceRecorded: varianceRecorded,
  TreeHeadSigned: treeHeadSigned,
  WebhookRegistered: webhookRegistered,
  WebhookRemoved: webhookRemoved,
  WebhookRedeliveryRequested: webhookRedeliveryRequested,
  WitnessCosigned: witnessCosigned,
  LogCreated: logCreated,
  LogAnchored: logAnchored,
} as const;

/**
 * Records: the documents admitted to the log and the parts they are made of. Commands and events refer
 * to them with `{"$ref": "urn:gov:record:<name>"}`; their TypeScript types are generated alongside.
 */
export const recordSchemas = {
  observables,
  'tenant-policy': tenantPolicy,
  'proof-bundle': proofBundle,
  'validator-vote': validatorVote,
  'validator-certificate': validatorCertificate,
  'governance-envelope': governanceEnvelope,
  'execution-trace': executionTrace,
  'variance-record': varianceRecord,
  'compliance-report': complianceReport,
  'log-anchor': logAnchor,
} as const satisfies Record<string, { $id: string; title: string }>;

/**
 * Response bodies of the HTTP API, by name. They refer to records with `{"$ref": "urn:gov:record:<name>"}`
 * and to each other with `urn:gov:response:<name>`; the OpenAPI document (GET /openapi.json) is built
 * from them. Not part of the generated TypeScript types.
 */
export const responseSchemas = {
  registration,
  account,
  'key-rotation': keyRotation,
  'evidence-admitted': evidenceAdmittedResponse,
  'gate-failure': gateFailure,
  error,
  'chain-page': chainPage,
  status,
  'execution-admitted': executionAdmittedResponse,
  'triple-leaf': tripleLeaf,
  sth,
  'log-leaf': logLeaf,
  'log-proof': logProof,
  'log-list': logList,
  'log-consistency': logConsistency,
  'log-anchor': logAnchorResponse,
  'log-keys': logKeys,
  health,
  version,
  webhook,
  'webhook-created': webhookCreated,
  'webhook-list': webhookList,
  'webhook-deleted': webhookDeleted,
  'delivery-log': deliveryLog,
  redelivery,
  'witness-signature': witnessSignature,
  'tenant-policy': tenantPolicyResponse,
} as const satisfies Record<string, { $id: string; title: string }>;

/**
 * Webhook bodies, by webhook event name (`urn:gov:webhook:<name>`): what the dispatcher POSTs to a
 * tenant's webhooks. Each is the full payload or, when that would exceed 128 KB, its trimmed summary
 * (`trimmed: true`). They refer to records by `$id`; their types are generated (`WebhookPayloads`).
 */
export const webhookSchemas = {
  leaf_admitted: leafAdmitted,
  gate_fail: gateFail,
  compliance_report_ready: complianceReportReady,
  execution_trace_admitted: executionTraceAdmitted,
  variance_recorded: varianceRecordedWebhook,
  governance_breach: governanceBreach,
  chain_depth_milestone: chainDepthMilestone,
  observables_alert: observablesAlert,
} as const satisfies Record<string, { $id: string; title: string }>;

export const envelopeSchema = recordedEvent;
