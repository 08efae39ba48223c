/* Generated from event-schemas/schemas by `npm run schemas`. Do not edit by hand. */
/* eslint-disable */

/**
 * H (hypothesis support), C (causal-attribution confidence) and E (entropy/uncertainty), each in [0, 1].
 */
export interface Observables {
H: number
C: number
E: number
}

/**
 * A tenant's gate thresholds and rules; every tenant starts with the defaults.
 */
export interface TenantPolicy {
/**
 * G1 fails when confidence_interval_lower is below this (default 0.80).
 */
g1_min_confidence_lower: number
/**
 * Default 1000.
 */
g1_min_bootstrap_iterations: number
/**
 * Default true.
 */
g2_require_causal_attribution: boolean
/**
 * Default 0.0.
 */
g2_min_ablation_delta: number
/**
 * Declared maximum per protected metric (default none); a submitted metric with no declared maximum passes.
 */
g3_metric_maximums: {
[k: string]: number
}
/**
 * Classes the tenant accepts (default all three); a valid class outside this list is a policy violation.
 * 
 * @minItems 1
 */
g4_allowed_classes: [("HOOKED" | "ATTESTED" | "INSTRUMENTED"), ...(("HOOKED" | "ATTESTED" | "INSTRUMENTED"))[]]
/**
 * When a list, operator_id must be in it (otherwise a policy violation); null allows any non-empty operator_id.
 * 
 * @maxItems 1000
 */
g5_allowed_operators: (string[] | null)
/**
 * How old a bundle's generated_at may be when validators vote (default 300).
 */
replay_window_seconds: number
}

/**
 * GOV_PROOF_BUNDLE_V1: the evidence of one admitted decision. artifact_hash = hex SHA-256 of its RFC 8785 canonical JSON.
 */
export interface ProofBundle {
type: "GOV_PROOF_BUNDLE_V1"
version: 1
tenant_id: string
subject_id: string
/**
 * artifact_hash of the subject's previous bundle, or null for its first.
 */
parent_bundle_hash: (string | null)
replay_seed: string
/**
 * The submitted gate results, G1 to G5, as received.
 */
gate_results: {
[k: string]: unknown
}
evidence: {
[k: string]: string
}
state_before_hash: string
state_after_hash: string
generated_at: string
}

/**
 * GOV_VOTE_V1: one validator's signed decision on a proof bundle. signature = base64 Ed25519 over the canonical JSON of the vote without `signature`.
 */
export interface ValidatorVote {
type: "GOV_VOTE_V1"
/**
 * hex SHA-256 of the validator key's DER SubjectPublicKeyInfo.
 */
validator_id: string
decision: ("ACCEPT" | "REJECT")
/**
 * artifact_hash of the bundle voted on.
 */
body_hash: string
/**
 * Why a validator rejected (absent on ACCEPT).
 */
reasons?: string[]
voted_at: string
signature: string
}

/**
 * GOV_CERTIFICATE_V1: a quorum of ACCEPT votes on one bundle. cert_hash = hex SHA-256 of the canonical JSON of the certificate without `cert_hash`.
 */
export interface ValidatorCertificate {
type: "GOV_CERTIFICATE_V1"
body_hash: string
proposer_id: string
votes: ValidatorVote[]
/**
 * Number of validators in the round (n).
 */
quorum: number
/**
 * ACCEPT votes needed (2f + 1).
 */
threshold: number
cert_hash: string
}

/**
 * GOV_GOVERNANCE_ENVELOPE_V1: the authorization leaf. Its RFC 8785 canonical JSON is the leaf data; authority_signature is the node key's Ed25519 signature (base64) over the canonical JSON of the envelope without that field.
 */
export interface GovernanceEnvelope {
type: "GOV_GOVERNANCE_ENVELOPE_V1"
version: 1
artifact_type: "GOV_PROOF_BUNDLE_V1"
artifact_hash: string
/**
 * Where the proof bundle is served (the replay_url).
 */
payload_uri: string
tenant_id: string
subject_id: string
validator_signatures: {
validator_id: string
signature: string
}[]
certificate_hash: string
authority_node_id: string
authority_signature: string
log_binding: {
log_id: string
log_url: string
}
generated_at: string
}

/**
 * GOV_EXECUTION_TRACE_V1: the execution leaf of a governed action, linked to its authorization leaf.
 */
export interface ExecutionTrace {
type: "GOV_EXECUTION_TRACE_V1"
version: 1
tenant_id: string
parent_auth_leaf_hash: string
subject_id: string
outcome: ("EXECUTED" | "FAILED" | "DEVIATED")
executed_payload_hash?: string
execution_context?: {
[k: string]: unknown
}
exec_state: Observables
recorded_at: string
}

/**
 * GOV_VARIANCE_RECORD_V1: the difference between the observables at authorization and at execution.
 */
export interface VarianceRecord {
type: "GOV_VARIANCE_RECORD_V1"
version: 1
tenant_id: string
parent_auth_leaf_hash: string
parent_exec_leaf_hash: string
subject_id: string
auth_state: Observables
exec_state: Observables
/**
 * exec_state minus auth_state, per observable.
 */
delta: {
H: number
C: number
E: number
}
l2_distance: number
classification: ("NOMINAL" | "DRIFT" | "BREACH")
drift_direction: {
H: ("improved" | "degraded" | "stable")
C: ("improved" | "degraded" | "stable")
E: ("improved" | "degraded" | "stable")
}
auth_in_omega: boolean
exec_in_omega: boolean
omega_breach: boolean
recorded_at: string
}

/**
 * GOV_COMPLIANCE_REPORT_V1: everything a third party needs to check one admitted proof bundle without trusting the service: the gate results with reasons, the evidence hashes, the log leaf, the signed tree head covering it with the inclusion proof, the validator certificate, the envelope, and plain verification steps.
 */
export interface ComplianceReport {
type: "GOV_COMPLIANCE_REPORT_V1"
version: 1
tenant_id: string
subject_id: string
/**
 * hex SHA-256 of the proof bundle's RFC 8785 canonical JSON.
 */
artifact_hash: string
/**
 * The submitted gate results, G1 to G5, as in the proof bundle.
 */
gate_results: {
[k: string]: unknown
}
/**
 * Per gate, what the service checked (a sentence).
 */
gate_details: {
[k: string]: string
}
evidence: {
dataset_provenance_hash: string
evaluation_trace_hash: string
ablation_execution_log_hash: string
capability_certificate_hash: string
}
leaf: {
leaf_index: number
/**
 * RFC 9162 leaf hash of the envelope's canonical JSON: SHA-256(0x00 ‖ data).
 */
leaf_hash: string
}
/**
 * The signed tree head the inclusion proof is computed against.
 */
sth: {
/**
 * The log's verifier key.
 */
log_id: string
tree_size: number
root_hash: string
timestamp: string
log_signature: string
witness_signatures: {
name: string
signature: string
}[]
}
/**
 * RFC 9162 inclusion proof of the leaf in the tree of the sth.
 */
inclusion_proof: {
leaf_index: number
tree_size: number
audit_path: string[]
}
certificate: ValidatorCertificate
envelope: GovernanceEnvelope
/**
 * The subject's lifecycle right after this bundle was admitted.
 */
lifecycle: ("PROPOSED" | "ACTIVE" | "QUARANTINE" | "LOCKBOX" | "REJECTED")
observables: Observables
admitted_at: string
/**
 * Where the proof bundle is served (the envelope's payload_uri).
 */
replay_url: string
/**
 * Plain steps for a third party to verify this report.
 * 
 * @minItems 1
 */
verification_steps: [string, ...(string)[]]
}

/**
 * Body of POST /auto-register: provisions a Trial (L1) tenant.
 */
export interface RegisterTenantBody {
/**
 * Contact address of the tenant's owner.
 */
email: string
/**
 * live keys are prefixed gov_live_, test keys gov_test_. Default live.
 */
mode?: ("live" | "test")
/**
 * Display name of the organization.
 */
organization?: string
}

export type Identifier = string
/**
 * The submitter's claim for the gate; the service re-evaluates every rule it can.
 */
export type GateResult = ("PASS" | "FAIL" | "INCONCLUSIVE")
/**
 * A SHA-256 digest as 64 lowercase hex characters.
 */
export type Sha256Hex = string

/**
 * Body of POST /governance/evidence: gate evidence for one decision about a subject.
 */
export interface SubmitEvidenceBody {
subject_id: Identifier
gate_results: {
G1: {
result: GateResult
confidence_interval_lower: number
confidence_interval_upper: number
bootstrap_iterations: number
}
G2: {
result: GateResult
causal_attribution: boolean
ablation_delta: number
}
G3: {
result: GateResult
protected_metrics: {
[k: string]: number
}
}
G4: {
result: GateResult
/**
 * HOOKED, ATTESTED or INSTRUMENTED; any other string is a 422 EVIDENCE_CLASS_INVALID, not a 400.
 */
evidence_class: string
}
G5: {
result: GateResult
operator_id: string
}
}
evidence: {
dataset_provenance_hash: Sha256Hex
evaluation_trace_hash: Sha256Hex
ablation_execution_log_hash: Sha256Hex
capability_certificate_hash: Sha256Hex
}
/**
 * A hex string or a URI from which the evaluation can be replayed.
 */
replay_seed: string
state_before_hash: Sha256Hex
state_after_hash: Sha256Hex
}

/**
 * Body of POST /governance/execution: what happened when an authorized action ran (tier L2 and above).
 */
export interface SubmitExecutionBody {
/**
 * leaf_hash of the authorization leaf (from POST /governance/evidence).
 */
parent_auth_leaf_hash: string
/**
 * Must equal the authorization's subject when given.
 */
subject_id?: string
outcome: ("EXECUTED" | "FAILED" | "DEVIATED")
/**
 * SHA-256 digest (64 lowercase hex characters) of what was executed.
 */
executed_payload_hash?: string
/**
 * Free-form context (at most 32 members), kept in the trace.
 */
execution_context?: {
[k: string]: unknown
}
exec_state?: Observables
}

/**
 * A Trial tenant was provisioned by POST /auto-register. The API key is stored only as its hash.
 */
export interface TenantRegistered {
tenant_id: string
node_id: string
email: string
organization?: string
mode: ("live" | "test")
tier: ("L1" | "L2" | "L2+" | "L4")
/**
 * Public, non-secret identifier of the key (its lookup id).
 */
key_id: string
/**
 * Hex SHA-256 of the full API key.
 */
key_hash: string
registered_at: string
}

/**
 * POST /api-key/rotate issued a new key; the previous one keeps working until previous_key_expires_at (24 h later).
 */
export interface ApiKeyRotated {
tenant_id: string
key_id: string
key_hash: string
mode: ("live" | "test")
previous_key_id: string
previous_key_expires_at: string
rotated_at: string
}

/**
 * An operator changed a tenant's tier (`gov tenant tier`); upgrades are not part of the public API.
 */
export interface TenantTierChanged {
tenant_id: string
tier: ("L1" | "L2" | "L2+" | "L4")
previous_tier: ("L1" | "L2" | "L2+" | "L4")
/**
 * Leaves per UTC day for L2 (its credit balance); null = the tier's default.
 */
daily_leaf_limit: (number | null)
changed_at: string
changed_by: string
reason?: string
}

/**
 * Evidence passed every gate and the validator round: the envelope is the next authorization leaf of the log.
 */
export interface EvidenceAdmitted {
tenant_id: string
subject_id: string
artifact_hash: string
/**
 * RFC 9162 leaf hash of the envelope's canonical JSON.
 */
leaf_hash: string
bundle: ProofBundle
certificate: ValidatorCertificate
envelope: GovernanceEnvelope
/**
 * Per gate, what the service checked (a sentence).
 */
gate_details: {
[k: string]: string
}
observables: Observables
lifecycle: ("PROPOSED" | "ACTIVE" | "QUARANTINE" | "LOCKBOX" | "REJECTED")
admitted_at: string
}

/**
 * Evidence was rejected by one or more gates; the action is blocked and nothing reaches the log.
 */
export interface GateFailed {
tenant_id: string
subject_id: string
error: ("GATE_FAILURE" | "EVIDENCE_CLASS_INVALID")
/**
 * @minItems 1
 */
gates_failed: [("G1" | "G2" | "G3" | "G4" | "G5"), ...(("G1" | "G2" | "G3" | "G4" | "G5"))[]]
details: {
[k: string]: string
}
action: "ACTION_BLOCKED"
/**
 * True when the evidence broke tenant policy (operator or evidence class not allowed): the subject is REJECTED.
 */
policy_violation: boolean
/**
 * hex SHA-256 of the canonical JSON of the rejected request body.
 */
submission_hash: string
observables: Observables
lifecycle: ("PROPOSED" | "ACTIVE" | "QUARANTINE" | "LOCKBOX" | "REJECTED")
failed_at: string
}

/**
 * An execution trace was admitted against an authorization leaf: the trace is the next execution leaf.
 */
export interface ExecutionAdmitted {
tenant_id: string
subject_id: string
leaf_hash: string
trace: ExecutionTrace
}

/**
 * The variance between authorization and execution was computed: the record is the next variance leaf.
 */
export interface VarianceRecorded {
tenant_id: string
subject_id: string
leaf_hash: string
record: VarianceRecord
observables: Observables
lifecycle: ("PROPOSED" | "ACTIVE" | "QUARANTINE" | "LOCKBOX" | "REJECTED")
}

/**
 * The sequencer integrated a batch of admitted leaves and signed the new tree head. Appended to the log's own stream with an expected revision, which fences out a second sequencer.
 */
export interface TreeHeadSigned {
origin: string
tree_size: number
root_hash: string
timestamp: string
/**
 * The C2SP signed checkpoint note.
 */
checkpoint: string
first_leaf_index: number
/**
 * Event-store positions of the admission events integrated, in leaf order: leaf first_leaf_index + i came from leaf_positions[i].
 */
leaf_positions: number[]
}

/** Request body type of each command. */
export interface CommandBodies {
  'register-tenant': RegisterTenantBody;
  'submit-evidence': SubmitEvidenceBody;
  'submit-execution': SubmitExecutionBody;
}

/** Payload (`data`) type of each domain event. */
export interface EventPayloads {
  'TenantRegistered': TenantRegistered;
  'ApiKeyRotated': ApiKeyRotated;
  'TenantTierChanged': TenantTierChanged;
  'EvidenceAdmitted': EvidenceAdmitted;
  'GateFailed': GateFailed;
  'ExecutionAdmitted': ExecutionAdmitted;
  'VarianceRecorded': VarianceRecorded;
  'TreeHeadSigned': TreeHeadSigned;
}
