/* Generated from event-schemas/schemas by `npm run schemas`. Do not edit by hand. */
/* eslint-disable */

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

/** Request body type of each command. */
export interface CommandBodies {
  'register-tenant': RegisterTenantBody;
  'submit-evidence': SubmitEvidenceBody;
}

/** Payload (`data`) type of each domain event. */
export interface EventPayloads {
  'TenantRegistered': TenantRegistered;
}
