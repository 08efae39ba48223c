/** Every schema the service knows, by the name code refers to it with. Adding a schema starts here. */

import registerTenant from './commands/register-tenant.json';
import submitEvidence from './commands/submit-evidence.json';
import submitExecution from './commands/submit-execution.json';
import apiKeyRotated from './events/ApiKeyRotated.json';
import evidenceAdmitted from './events/EvidenceAdmitted.json';
import executionAdmitted from './events/ExecutionAdmitted.json';
import gateFailed from './events/GateFailed.json';
import tenantRegistered from './events/TenantRegistered.json';
import tenantTierChanged from './events/TenantTierChanged.json';
import treeHeadSigned from './events/TreeHeadSigned.json';
import varianceRecorded from './events/VarianceRecorded.json';
import recordedEvent from './recorded-event.json';
import complianceReport from './records/compliance-report.json';
import executionTrace from './records/execution-trace.json';
import governanceEnvelope from './records/governance-envelope.json';
import observables from './records/observables.json';
import proofBundle from './records/proof-bundle.json';
import tenantPolicy from './records/tenant-policy.json';
import validatorCertificate from './records/validator-certificate.json';
import validatorVote from './records/validator-vote.json';
import varianceRecord from './records/variance-record.json';

/** Request bodies, by command name. */
export const commandSchemas = {
  'register-tenant': registerTenant,
  'submit-evidence': submitEvidence,
  'submit-execution': submitExecution,
} as const;

/** Domain event payloads (`data`), by event type. */
export const eventSchemas = {
  TenantRegistered: tenantRegistered,
  ApiKeyRotated: apiKeyRotated,
  TenantTierChanged: tenantTierChanged,
  EvidenceAdmitted: evidenceAdmitted,
  GateFailed: gateFailed,
  ExecutionAdmitted: executionAdmitted,
  VarianceRecorded: varianceRecorded,
  TreeHeadSigned: treeHeadSigned,
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
} as const satisfies Record<string, { $id: string; title: string }>;

export const envelopeSchema = recordedEvent;
