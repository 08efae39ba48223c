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
 * A tenant's gate thresholds and rules; every tenant starts with the defaults. Read with GET /governance/policy, replaced whole with PUT /governance/policy.
 */
export interface TenantPolicy {
/**
 * G1 fails when confidence_interval_lower is below this, from 0 to 1 (default 0.80).
 */
g1_min_confidence_lower: number
/**
 * G1 fails when bootstrap_iterations is below this, a positive integer (default 1000).
 */
g1_min_bootstrap_iterations: number
/**
 * G2 fails when causal_attribution is false (default true).
 */
g2_require_causal_attribution: boolean
/**
 * G2 fails when ablation_delta is below this (default 0.0).
 */
g2_min_ablation_delta: number
/**
 * Declared maximum per protected metric (default none). A metric with a declared maximum, here or in the submission's G3 metric_maximums (the lower one wins), must be submitted and at most that; a submitted metric with no declared maximum passes.
 */
g3_metric_maximums: {
[k: string]: number
}
/**
 * Classes the tenant accepts, a non-empty subset of the three (default all three); a valid class outside this list is a policy violation.
 * 
 * @minItems 1
 */
g4_allowed_classes: [("HOOKED" | "ATTESTED" | "INSTRUMENTED"), ...(("HOOKED" | "ATTESTED" | "INSTRUMENTED"))[]]
/**
 * When a non-empty list, operator_id must be in it (otherwise a policy violation); null allows any non-empty operator_id.
 * 
 * @minItems 1
 * @maxItems 1000
 */
g5_allowed_operators: ([string, ...(string)[]] | null)
/**
 * How old a bundle's generated_at may be when validators vote, in seconds, at most a day (default 300).
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
 * GOV_CERTIFICATE_V1: a quorum of ACCEPT votes on one bundle. cert_hash = hex SHA-256 of the canonical JSON of the certificate without `cert_hash`. A certificate names the round's size `validators` and the ACCEPT votes it needed `quorum`; certificates made before carry `quorum` (the round's size) and `threshold` (the votes needed) instead, and keep them: their cert_hash covers those fields.
 */
export type ValidatorCertificate = (ValidatorCertificateCurrent | ValidatorCertificateLegacy)

/**
 * A certificate as the service makes it: `validators` and `quorum`, never `threshold`.
 */
export interface ValidatorCertificateCurrent {
type: "GOV_CERTIFICATE_V1"
body_hash: string
proposer_id: string
votes: ValidatorVote[]
/**
 * Number of validators in the round (n = 3f + 1).
 */
validators: number
/**
 * ACCEPT votes needed to certify (2f + 1); at most `validators`.
 */
quorum: number
cert_hash: string
}
/**
 * A certificate as earlier releases made it, still found in stored events and exports: `quorum` is the round's size and `threshold` the votes needed, never `validators`.
 */
export interface ValidatorCertificateLegacy {
type: "GOV_CERTIFICATE_V1"
body_hash: string
proposer_id: string
votes: ValidatorVote[]
/**
 * Number of validators in the round (n): what `validators` says in a current certificate.
 */
quorum: number
/**
 * ACCEPT votes needed (2f + 1): what `quorum` says in a current certificate.
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
/**
 * The log the leaf is in (`shared`, `test` or `dedicated-<24 hex>`); leaf_index is its index there and sth is that log's.
 */
log: string
/**
 * That log's base URL: its tree heads, keys and proofs are under it (`<base>/gov/v1/log` for the shared log, `<base>/gov/v1/logs/<name>` for the others).
 */
log_url: string
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
 * GOV_LOG_ANCHOR_V1: a signed checkpoint of a log other than the shared one (the test log or a dedicated log), admitted as a leaf of the shared log. Commitments only: the anchored log's name, origin, size and root, and its checkpoint note with the log's own signature line (no witness cosignature); no tenant content. A fork of the anchored log then needs a fork of the shared log too.
 */
export interface LogAnchor {
record_type: "GOV_LOG_ANCHOR_V1"
/**
 * The anchored log's name: `test`, or `dedicated-` and the 24 hex digits of its tenant's id.
 */
log: string
/**
 * The anchored log's checkpoint origin line.
 */
origin: string
/**
 * The size of the anchored checkpoint.
 */
tree_size: number
/**
 * The anchored checkpoint's root hash (lowercase hex).
 */
root_hash: string
/**
 * The C2SP checkpoint note the anchored log signed at this size: its body and the log's signature line only. It verifies under the log's key (GET /gov/v1/logs/<log>/keys).
 */
checkpoint: string
/**
 * When the shared log's sequencer admitted the anchor.
 */
anchored_at: string
}

/**
 * The thresholds and rules of an agent's five action gates (G1–G5); every agent starts with the defaults. Read at GET /v1/agents/:agentId/governance-config.
 */
export interface AgentPolicy {
/**
 * G1 fails when one of these rules matches the action's content (default none). They come from the agent's signed profile (its must_not rules) and from the tenant's policy.
 * 
 * @maxItems 256
 */
g1_must_not: {
/**
 * The rule's id (a profile rule's id, or the tenant's name for it): what a G1 reason names, never the pattern.
 */
id: string
/**
 * A case-insensitive substring, or `/source/` for a regular expression (case-insensitive; no back-references and no quantified group that holds a quantifier, so matching stays linear).
 */
pattern: string
/**
 * Where the rule comes from: the agent's signed profile or the tenant's policy.
 */
source: ("profile" | "tenant")
}[]
/**
 * G2 fails when the content's prompt-injection score is above this, from 0 to 1 (default 0.5).
 */
g2_injection_threshold: number
/**
 * G3 fails when the content holds more secrets (API keys, private keys, tokens, passwords) than this (default 0).
 */
g3_max_secrets: number
/**
 * G3 fails when the content holds more personal data (emails, phone numbers, card numbers, IBANs) than this; null sets no maximum (default null: people share their own contact details with their agent).
 */
g3_max_personal_data: (number | null)
/**
 * Whether secrets and personal data in the model's output are replaced by [REDACTED:<kind>] before anyone sees it (default true). Output is redacted, never blocked.
 */
g3_redact_model_output: boolean
/**
 * How an action may have been observed, a non-empty subset of HOOKED (by the platform itself), ATTESTED (a verified third-party signature) and INSTRUMENTED (reported by an external tool server); default all three.
 * 
 * @minItems 1
 */
g4_allowed_evidence_classes: [("HOOKED" | "ATTESTED" | "INSTRUMENTED"), ...(("HOOKED" | "ATTESTED" | "INSTRUMENTED"))[]]
/**
 * Whether a tool of class `destructive` needs a human's approval (default true).
 */
g5_destructive_requires_approval: boolean
}

/**
 * GOV_AGENT_PASSPORT_V1: an agent's birth certificate in the public log, appended when the agent is created. It names no owner in clear. Its leaf hash is the agent's passport_id. Its RFC 8785 canonical JSON is the leaf data; signature is the node key's Ed25519 signature (base64) over the canonical JSON of the record without that member.
 */
export interface AgentPassport {
/**
 * The record's kind and format version.
 */
type: "GOV_AGENT_PASSPORT_V1"
/**
 * The agent: svc_ and 26 lower-case base32 characters.
 */
agent_id: string
/**
 * hex SHA-256(nonce || UTF-8 of the owning user's id), the 32-byte nonce kept in the private AgentPassportIssued event: the owner can open it, nobody can test a guessed email (the user id is a hash of it) against it.
 */
owner_commitment: string
/**
 * The owner's governance tenant, whose log the agent's leaves go to.
 */
tenant_id: string
/**
 * When the agent was created (ISO 8601 UTC).
 */
created_at: string
/**
 * Leaf hash (hex) of the agent's configuration version 1 (a GOV_AGENT_CONFIG_V1 record): the start of its configuration chain.
 */
config_hash: string
/**
 * The signing node: node_ and the first 24 hex digits of SHA-256 of its public key's DER SubjectPublicKeyInfo.
 */
node_id: string
/**
 * Ed25519 signature (standard base64, padded) of node_id's key over the canonical JSON of this record without signature.
 */
signature: string
}

/**
 * GOV_AGENT_CONFIG_V1: one version of an agent's configuration (name, model, model provider, governance mode), chained to the version before it by its leaf hash. The configuration itself is only committed to; the governance mode is shown in clear. Its RFC 8785 canonical JSON is the leaf data; signature is the node key's Ed25519 signature over the record without that member.
 */
export interface AgentConfig {
/**
 * The record's kind and format version.
 */
type: "GOV_AGENT_CONFIG_V1"
/**
 * The agent this configuration belongs to.
 */
agent_id: string
/**
 * The owner's governance tenant.
 */
tenant_id: string
/**
 * The configuration version: 1 at creation, one more for each change or rollback (a rollback is a new version equal in content to an old one).
 */
version: number
/**
 * Leaf hash (hex) of the previous version's record; null for version 1.
 */
previous_config_hash: (string | null)
/**
 * hex SHA-256(nonce ‖ canonical JSON of {name, model, model_provider, governance_mode}), the 32-byte nonce kept in the private event: its owner can open it, nobody else can read it.
 */
config_commitment: string
/**
 * How failing actions are treated under this version, in clear: enforce blocks them, monitor admits them with would_block, review escalates them.
 */
governance_mode: ("enforce" | "monitor" | "review")
/**
 * When this version was made (ISO 8601 UTC).
 */
created_at: string
/**
 * The signing node.
 */
node_id: string
/**
 * Ed25519 signature (standard base64, padded) of node_id's key over the canonical JSON of this record without signature.
 */
signature: string
}

/**
 * GOV_AGENT_ACTION_V1: one governed action's decision: its type, the verdict, each gate's pass or fail, and commitments to the content and to the accountable principal, never the content itself. A review decision on an escalated action is a second record that names the first in resolves. Its RFC 8785 canonical JSON is the leaf data; signature is the node key's Ed25519 signature over the record without that member.
 */
export interface AgentAction {
/**
 * The record's kind and format version.
 */
type: "GOV_AGENT_ACTION_V1"
/**
 * The agent that acted.
 */
agent_id: string
/**
 * The owner's governance tenant.
 */
tenant_id: string
/**
 * What kind of action was decided.
 */
action_type: ("chat_message" | "tool_call" | "memory_write" | "memory_delete" | "profile_amendment" | "heartbeat_step" | "task_step" | "subagent_spawn" | "channel_message" | "config_change")
/**
 * ADMIT, BLOCK, or ESCALATE (held for a human's review-decision, whose own record gives ADMIT or BLOCK).
 */
verdict: ("ADMIT" | "BLOCK" | "ESCALATE")
/**
 * Whether the gates failed: true for a BLOCK, an ESCALATE, and an ADMIT in monitor mode that enforce mode would have blocked.
 */
would_block: boolean
/**
 * G1 to G5 in order, each with whether it passed. The reasons stay in the private event: they name must_not rules and the kinds of data found, which could tell something about the content.
 * 
 * @minItems 5
 * @maxItems 5
 */
gates: [{
/**
 * The gate.
 */
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
/**
 * Whether it passed.
 */
passed: boolean
}, {
/**
 * The gate.
 */
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
/**
 * Whether it passed.
 */
passed: boolean
}, {
/**
 * The gate.
 */
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
/**
 * Whether it passed.
 */
passed: boolean
}, {
/**
 * The gate.
 */
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
/**
 * Whether it passed.
 */
passed: boolean
}, {
/**
 * The gate.
 */
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
/**
 * Whether it passed.
 */
passed: boolean
}]
/**
 * hex SHA-256(nonce ‖ UTF-8 content) with a random 32-byte nonce kept in the private event: the owner can open it (content and nonce) and anyone holding both can check it against this leaf.
 */
content_commitment: string
/**
 * hex SHA-256(principal nonce ‖ canonical JSON of {kind, id}) of the accountable principal (user, key, recipe, schedule or delegation), with a nonce of its own, so that neither an email nor a user id can be tested against it.
 */
principal_commitment: string
/**
 * For a review decision, the leaf hash (hex) of the escalated action's record it decides; null for a decision of the pipeline.
 */
resolves: (string | null)
/**
 * When the verdict was given (ISO 8601 UTC).
 */
decided_at: string
/**
 * The signing node.
 */
node_id: string
/**
 * Ed25519 signature (standard base64, padded) of node_id's key over the canonical JSON of this record without signature.
 */
signature: string
}

/**
 * An agent's configuration as its owner sets it (name, model, model provider, governance mode). Private: the log carries only a commitment to it.
 */
export interface AgentSettings {
name: string
model: string
model_provider: string
governance_mode: ("enforce" | "monitor" | "review")
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
/**
 * Optional: a maximum per protected metric, declared by the submitter. Each metric is held to the lower of this and the tenant policy's maximum, and a metric with a declared maximum must be in protected_metrics.
 */
metric_maximums?: {
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
 * Body of POST /webhooks: where to POST the tenant's events, which ones, and optionally the signing secret (generated and returned once when absent).
 */
export interface RegisterWebhookBody {
/**
 * An absolute http or https URL of at most 2048 characters.
 */
url: string
/**
 * The webhook events to receive: at least one, each once.
 * 
 * @minItems 1
 */
events: [("leaf_admitted" | "gate_fail" | "compliance_report_ready" | "execution_trace_admitted" | "variance_recorded" | "governance_breach" | "chain_depth_milestone" | "observables_alert"), ...(("leaf_admitted" | "gate_fail" | "compliance_report_ready" | "execution_trace_admitted" | "variance_recorded" | "governance_breach" | "chain_depth_milestone" | "observables_alert"))[]]
/**
 * The secret deliveries are signed with (HMAC-SHA256, X-GOV-Signature-256): 16 to 256 characters. Omit it to have one generated.
 */
secret?: string
}

/**
 * Body of POST /gov/v1/log/witness-signatures: a witness's cosignature (C2SP tlog-cosignature, cosignature/v1) of the tree head the log signed at tree_size.
 */
export interface SubmitWitnessSignatureBody {
/**
 * Size of the signed tree head the cosignature covers (the checkpoint's second line).
 */
tree_size: number
/**
 * The witness's signature line for that checkpoint note, as `gov witness` and other C2SP witnesses produce it: `— <witness key name> base64(4-byte key id ‖ 8-byte big-endian timestamp ‖ 64-byte Ed25519 signature)`, with or without the final newline.
 */
cosignature: string
}

/**
 * Body of PUT /governance/policy: the tenant's whole new policy (every member; unknown members are refused).
 */
export type ChangePolicyBody = TenantPolicy

/**
 * Body of POST /v1/agents: every member optional (defaults: a generated name, the built-in offline model, `enforce`).
 */
export interface CreateAgentBody {
/**
 * The agent's name (1 to 120 characters).
 */
agent_name?: string
/**
 * The model the agent runs on.
 */
model?: string
/**
 * Who serves the model: `offline` (the built-in offline model), `openai`, `anthropic`, `google` (a key in the vault), `local` (an OpenAI-compatible local endpoint).
 */
model_provider?: ("offline" | "openai" | "anthropic" | "google" | "local")
/**
 * `enforce` blocks a failing action, `monitor` records it and blocks nothing, `review` escalates it to a person.
 */
governance_mode?: ("enforce" | "monitor" | "review")
}

/**
 * Body of PATCH /v1/agents/:agentId: the members to change (at least one). Each change makes one signed config version.
 */
export interface UpdateAgentBody {
/**
 * The agent's name (1 to 120 characters).
 */
agent_name?: string
/**
 * The model the agent runs on.
 */
model?: string
/**
 * Who serves the model: `offline` (the built-in offline model), `openai`, `anthropic`, `google` (a key in the vault), `local` (an OpenAI-compatible local endpoint).
 */
model_provider?: ("offline" | "openai" | "anthropic" | "google" | "local")
/**
 * `enforce` blocks a failing action, `monitor` records it and blocks nothing, `review` escalates it to a person.
 */
governance_mode?: ("enforce" | "monitor" | "review")
}

/**
 * Body of PATCH .../mode.
 */
export interface ChangeAgentModeBody {
mode: ("chat" | "autonomous")
}

/**
 * Body of POST .../rollback: the config version to return to (a new version equal in content to it is appended).
 */
export interface RollbackAgentBody {
version: number
}

/**
 * Body of POST .../restore: the checkpoint to bring the agent back to.
 */
export interface RestoreAgentBody {
/**
 * chk_ + 24 hex.
 */
checkpoint_id: string
}

/**
 * Body of POST .../api-keys: a name to tell keys apart, and the scopes the key holds (default: every scope).
 */
export interface CreateApiKeyBody {
name?: string
/**
 * The scopes the key holds: at least one (leave `scopes` out for all of them).
 * 
 * @minItems 1
 * 
 * Items: `agent:read` (details, health, checkpoints, version health), `agent:write` (change, start, stop, mode, rollback, restore), `chat` (chat and messages), `memory:read`, `memory:write`, `tools` (tools, schedules, tasks), `actions` (send governed actions with POST .../actions; each action's own scope is then checked by its gate G5).
 */
scopes?: [("chat" | "memory:read" | "memory:write" | "tools" | "agent:read" | "agent:write" | "actions"), ...(("chat" | "memory:read" | "memory:write" | "tools" | "agent:read" | "agent:write" | "actions"))[]]
}

/**
 * Body of POST /v1/agents/:agentId/actions: one action of the agent, sent through the five gates. Who answers for it (the principal) is the caller (the owner's session, or the key), never a member of the body.
 */
export interface GovernActionBody {
/**
 * What kind of action it is; it sets the scope gate G5 asks of a key: `chat` (chat_message, channel_message), `tools` (tool_call, heartbeat_step, task_step, subagent_spawn), `memory:write` (memory_write, memory_delete), `agent:write` (profile_amendment, config_change).
 */
type: ("chat_message" | "tool_call" | "memory_write" | "memory_delete" | "profile_amendment" | "heartbeat_step" | "task_step" | "subagent_spawn" | "channel_message" | "config_change")
/**
 * What the action carries (the message, the tool's arguments, the memory text): checked by the gates, kept in the private event store, committed to (never shown) in the public log.
 */
content: string
/**
 * How the action was observed (default HOOKED: by the platform itself): HOOKED, ATTESTED (a verified third-party signature) or INSTRUMENTED (reported by an external tool server) pass gate G4 when the agent's policy allows them; any other class fails it.
 */
evidence_class?: string
/**
 * For a tool call, the tool's governance class; a destructive tool fails gate G5 without a person's approval (the approval flow comes with review decisions).
 */
tool_class?: ("read" | "write" | "external" | "destructive")
/**
 * The content came from a channel, a tool or a fetched page: gate G2 treats it as data, never as instructions (default false).
 */
content_is_data?: boolean
}

/**
 * Body of POST /v1/auth/login: the address to send a one-time sign-in link to.
 */
export interface AuthLoginBody {
/**
 * The user's email address; its case does not matter.
 */
email: string
}

/**
 * Body of POST /v1/auth/callback: the token of an emailed sign-in link, as JSON or as the sign-in page's form (application/x-www-form-urlencoded).
 */
export interface AuthCallbackBody {
/**
 * The link's token (`sit_…`, the value of its `token` query parameter). One of another shape is refused as an unknown link (401).
 */
token: string
}

/**
 * Body of POST /v1/ws-ticket: the agent whose chat socket the ticket opens (one of the caller's).
 */
export interface WsTicketBody {
agent_id: string
}

/**
 * Body of POST /v1/cost-estimate: a proposed action (or `quantity` alike), priced by the risk-tier cost model of GET /v1/cost-model.
 */
export interface CostEstimateBody {
/**
 * What the action is; it sets the risk tier unless a tool class does.
 */
action_type: ("chat_message" | "tool_call" | "memory_write" | "memory_delete" | "profile_amendment" | "heartbeat_step" | "task_step" | "subagent_spawn" | "channel_message" | "config_change")
/**
 * The governance class of the tool it runs; it sets the risk tier of tool_call, heartbeat_step and task_step.
 */
tool_class?: ("read" | "write" | "external" | "destructive")
/**
 * Size of the content in bytes (default 0): each started 16 KiB block beyond the first adds the tier's credits once more.
 */
content_bytes?: number
/**
 * How many such actions (default 1): the steps of a task, the runs of a schedule.
 */
quantity?: number
/**
 * The tier to price at (default L1).
 */
tier?: ("L1" | "L2" | "L2+" | "L4")
}

/**
 * Body of PUT .../vault: a model provider's API key for the agent, stored encrypted (AES-256-GCM). A key already stored for the provider is replaced.
 */
export interface StoreVaultKeyBody {
/**
 * The model provider the key is for.
 */
provider: ("openai" | "anthropic" | "google")
/**
 * The provider's API key as the provider issued it (printable ASCII, no spaces). Never shown again: answers show its first 8 characters.
 */
api_key: string
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
/**
 * The tenant's own allowance of API requests per minute, set by the operator (`gov tenant tier --requests-per-minute`); absent: the tier's.
 */
requests_per_minute?: number
changed_at: string
changed_by: string
reason?: string
/**
 * To L4: the tenant's dedicated log (`dedicated-` and the hex of its id), where its admissions go from this change on. Absent: the tenant admits to the shared log (or the test log, for a test-mode tenant).
 */
log?: string
}

/**
 * PUT /governance/policy replaced the tenant's policy. It applies to submissions decided after it; admitted evidence is never evaluated again.
 */
export interface TenantPolicyChanged {
tenant_id: string
policy: TenantPolicy
/**
 * The policy's version: the default is 1, each change adds 1.
 */
version: number
/**
 * policy_hash of the policy this one replaces.
 */
previous_policy_hash: string
/**
 * Hex SHA-256 of the policy's RFC 8785 canonical JSON.
 */
policy_hash: string
changed_at: string
/**
 * The API key that made the change (the tenant's current key).
 */
key_id: string
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
previous_observables?: Observables
/**
 * The tenant's authorization leaves (admitted evidence) so far, this one included: what chain_depth_milestone counts. Absent from events of older releases.
 */
chain_depth?: number
lifecycle: ("PROPOSED" | "ACTIVE" | "QUARANTINE" | "LOCKBOX" | "REJECTED")
admitted_at: string
policy?: TenantPolicy
/**
 * The log the leaf is admitted to, decided by the command from the tenant's mode and tier (absent: the shared log).
 */
log?: string
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
previous_observables?: Observables
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
/**
 * The log the leaf is admitted to, decided by the command from the tenant's mode and tier (absent: the shared log).
 */
log?: string
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
previous_observables?: Observables
lifecycle: ("PROPOSED" | "ACTIVE" | "QUARANTINE" | "LOCKBOX" | "REJECTED")
/**
 * The log the leaf is admitted to, decided by the command from the tenant's mode and tier (absent: the shared log).
 */
log?: string
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
/**
 * The log this head is of (absent: the shared log).
 */
log?: string
}

/**
 * A tenant registered a webhook (POST /webhooks): from now on the dispatcher queues a signed delivery to url for each of the tenant's events named in events.
 */
export interface WebhookRegistered {
tenant_id: string
/**
 * `wh_` followed by 24 lowercase hex digits.
 */
webhook_id: string
/**
 * Where deliveries are POSTed (an absolute URI; which targets are allowed is checked when sending).
 */
url: string
/**
 * The webhook events this webhook receives (at least one, each once).
 * 
 * @minItems 1
 */
events: [("leaf_admitted" | "gate_fail" | "compliance_report_ready" | "execution_trace_admitted" | "variance_recorded" | "governance_breach" | "chain_depth_milestone" | "observables_alert"), ...(("leaf_admitted" | "gate_fail" | "compliance_report_ready" | "execution_trace_admitted" | "variance_recorded" | "governance_breach" | "chain_depth_milestone" | "observables_alert"))[]]
/**
 * The signing secret encrypted at rest (opaque here; only the dispatcher opens it). Never the secret itself.
 */
secret_sealed: string
/**
 * True when the service generated the secret (and returned it once), false when the tenant supplied it.
 */
secret_generated: boolean
created_at: string
}

/**
 * A tenant removed a webhook (DELETE /webhooks/:id): nothing is queued for it from this event on, and what was still owed to it is not sent.
 */
export interface WebhookRemoved {
tenant_id: string
/**
 * `wh_` followed by 24 lowercase hex digits.
 */
webhook_id: string
removed_at: string
}

/**
 * A tenant asked for one delivery of one of its webhooks to be sent again: the dispatcher queues a copy with the same body and event_id under a new delivery id (`<original>:r<n>`).
 */
export interface WebhookRedeliveryRequested {
tenant_id: string
/**
 * `wh_` followed by 24 lowercase hex digits.
 */
webhook_id: string
/**
 * The delivery to send again: `dlv_<position>_<k>` (older releases: `<webhook_id>.<event_id>`), or a redelivery of it (`…:r<n>`).
 */
delivery_id: string
requested_at: string
}

/**
 * A witness the operator trusts (GOV_WITNESS_KEYS) cosigned the tree head the log signed at tree_size (C2SP tlog-cosignature, cosignature/v1) and the server verified the cosignature over that checkpoint. Appended to the witness key's own stream `witness-<name>+<key id>` with an event id derived from the witness key and the tree size, so a witness key has at most one cosignature per tree size: the first one is kept.
 */
export interface WitnessCosigned {
/**
 * The log's origin (first line of the checkpoint).
 */
origin: string
/**
 * Size of the cosigned tree head.
 */
tree_size: number
/**
 * Root hash of the cosigned tree head, lowercase hex.
 */
root_hash: string
/**
 * The witness's verifier key in note format, `<name>+<8 hex key id>+<base64 of 0x04 ‖ Ed25519 public key>`.
 */
witness_key: string
/**
 * The time the witness signed with its cosignature, in seconds since the Unix epoch.
 */
timestamp: number
/**
 * The signature line appended to the checkpoint note: `— <name> base64(key id ‖ 8-byte timestamp ‖ Ed25519 signature)` and a newline.
 */
cosignature: string
/**
 * The log whose tree head was cosigned (absent: the shared log).
 */
log?: string
}

/**
 * A log other than the shared one was created: the test-mode log (at the first start) or an L4 tenant's dedicated log (`gov tenant tier <id> L4`). The first event of stream `log-<name>`, appended with expected revision no-stream, so a log is created once. Processes learn the log, its checkpoint origin and its verifier key from it; only the process that sequences the log reads its private key (keys/logs/<name>.key).
 */
export interface LogCreated {
/**
 * The log's name: `test`, or `dedicated-` and the 24 hex digits of its tenant's id.
 */
log: string
kind: ("test" | "dedicated")
/**
 * The checkpoint origin line: the shared log's origin, `/` and the log's name.
 */
origin: string
/**
 * The log's Ed25519 verifier key in note format (`origin+keyid+base64`): the STH's `log_id`.
 */
verifier_key: string
/**
 * The tenant a dedicated log belongs to; null for the test log.
 */
tenant_id: (string | null)
}

/**
 * The shared log's anchorer admitted a log's latest signed checkpoint as a leaf of the shared log (record GOV_LOG_ANCHOR_V1). Always a leaf of the shared log, so it has no `log` member. Appended to stream `log-anchor-<anchored log>` with the expected revision of the anchor before it, so two anchorers never anchor one head twice; the stream's anchors grow in size.
 */
export interface LogAnchored {
/**
 * The anchored log's name (the record's `log`).
 */
anchored_log: string
leaf_hash: string
record: LogAnchor
}

/**
 * POST /v1/agents created an agent (stopped, in chat mode); its config version 1 and passport follow in the same append.
 */
export interface AgentCreated {
agent_id: string
owner_id: string
tenant_id: string
name: string
model: string
model_provider: string
governance_mode: ("enforce" | "monitor" | "review")
/**
 * The agent's runtime session: sbx_ + 24 hex, a new one on every start.
 */
sandbox_session_id: string
created_at: string
}

/**
 * A new signed configuration version of an agent: at creation, on each change of name, model, provider or governance mode, on rollback and on restore. A leaf of the owner's tenant's log.
 */
export interface AgentConfigVersioned {
agent_id: string
tenant_id: string
version: number
config: AgentSettings
/**
 * Hex SHA-256 of the config's RFC 8785 canonical JSON.
 */
config_hash: string
/**
 * config_hash of the version before; null for version 1.
 */
previous_config_hash: (string | null)
/**
 * What made this version.
 */
cause: ("create" | "update" | "rollback" | "restore")
/**
 * With rollback and restore: the version whose content this one repeats.
 */
from_version?: number
record: AgentConfig
leaf_hash: string
/**
 * The log the leaf goes to: the owner's tenant's log when it was decided.
 */
log: string
/**
 * The commitment's 32-byte nonce (hex): kept here, never in the log.
 */
nonce: string
versioned_at: string
}

/**
 * The agent's signed passport (agent, owner, creation time, hash of config version 1): a leaf whose hash is the agent's passport_id.
 */
export interface AgentPassportIssued {
agent_id: string
tenant_id: string
record: AgentPassport
leaf_hash: string
/**
 * The log the leaf goes to: the owner's tenant's log when it was decided.
 */
log: string
/**
 * The 32-byte nonce (hex) of the record's owner_commitment: private, like the event store.
 */
owner_nonce: string
issued_at: string
}

/**
 * POST .../start: the agent runs, in a new runtime session.
 */
export interface AgentStarted {
agent_id: string
/**
 * The agent's runtime session: sbx_ + 24 hex, a new one on every start.
 */
sandbox_session_id: string
started_at: string
}

/**
 * POST .../stop: the agent no longer runs; an automatic checkpoint follows in the same append.
 */
export interface AgentStopped {
agent_id: string
stopped_at: string
}

/**
 * A checkpoint of the agent: the config version, profile version and memory position at that moment.
 */
export interface AgentCheckpointCreated {
agent_id: string
/**
 * chk_ + 24 hex.
 */
checkpoint_id: string
config_version: number
/**
 * 0 while the agent has no profile.
 */
profile_version: number
/**
 * Position of the last memory event applied; 0 while the agent has no memory.
 */
memory_position: number
cause: "stop"
created_at: string
}

/**
 * POST .../restore: the agent's config was brought back to a checkpoint's (as the new config version appended just before).
 */
export interface AgentRestored {
agent_id: string
/**
 * chk_ + 24 hex.
 */
checkpoint_id: string
/**
 * The config version the restore made (equal in content to the checkpoint's), or the current one when it already was.
 */
config_version: number
restored_at: string
}

/**
 * PATCH .../mode: the agent's mode.
 */
export interface AgentModeChanged {
agent_id: string
mode: ("chat" | "autonomous")
changed_at: string
}

/**
 * DELETE /v1/agents/:agentId by an admin: the agent refuses everything from now on; its keys stop working.
 */
export interface AgentDeleted {
agent_id: string
deleted_by: string
deleted_at: string
}

/**
 * One governed action of an agent decided by the pipeline (G1 to G5, the verdict by the agent's governance mode): a leaf of the owner's tenant's log whose record (GOV_AGENT_ACTION_V1) holds commitments, never content. The content, the nonces that open the commitments and each gate's reason are private members: the event store is private, the public log carries only the record.
 */
export interface AgentActionDecided {
agent_id: string
tenant_id: string
record: AgentAction
leaf_hash: string
/**
 * The log the leaf goes to: the owner's tenant's log when it was decided.
 */
log: string
action_type: ("chat_message" | "tool_call" | "memory_write" | "memory_delete" | "profile_amendment" | "heartbeat_step" | "task_step" | "subagent_spawn" | "channel_message" | "config_change")
verdict: ("ADMIT" | "BLOCK" | "ESCALATE")
would_block: boolean
/**
 * G1 to G5 in order, with the reason each gave (private: reasons name must_not rules and kinds of data found).
 * 
 * @minItems 5
 * @maxItems 5
 */
gates: [{
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
passed: boolean
reason: string
}, {
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
passed: boolean
reason: string
}, {
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
passed: boolean
reason: string
}, {
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
passed: boolean
reason: string
}, {
gate: ("G1" | "G2" | "G3" | "G4" | "G5")
passed: boolean
reason: string
}]
/**
 * What the action carried (private): the record's content_commitment is SHA-256(content_nonce || content).
 */
content: string
content_nonce: string
/**
 * Who answers for the action (private): the record's principal_commitment opens with principal_nonce and its canonical JSON.
 */
principal: {
kind: ("user" | "key" | "recipe" | "schedule" | "delegation")
id: string
}
principal_nonce: string
/**
 * How the action was observed, as its sender declared: HOOKED, ATTESTED or INSTRUMENTED pass G4 when the policy allows them; any other class fails G4.
 */
evidence_class: string
tool_class?: ("read" | "write" | "external" | "destructive")
decided_at: string
}

/**
 * The agent's governance policy (the thresholds and must_not rules its actions' gates G1 to G5 apply) replaced. Until the first one, an agent's actions are gated by the default policy.
 */
export interface AgentPolicyChanged {
agent_id: string
tenant_id: string
policy: AgentPolicy
/**
 * hex SHA-256 of the policy's canonical JSON.
 */
policy_hash: string
/**
 * Who changed it: a user id, or the feature that did (a profile amendment).
 */
changed_by: string
changed_at: string
}

/**
 * POST .../api-keys: a key of the agent. Only its hash is kept; the raw key was shown once.
 */
export interface ApiKeyCreated {
agent_id: string
key_id: string
name: (string | null)
prefix: string
/**
 * Hex SHA-256 of the raw key.
 */
key_hash: string
/**
 * @minItems 1
 */
scopes: [("chat" | "memory:read" | "memory:write" | "tools" | "agent:read" | "agent:write" | "actions"), ...(("chat" | "memory:read" | "memory:write" | "tools" | "agent:read" | "agent:write" | "actions"))[]]
created_at: string
}

/**
 * DELETE .../api-keys/:keyId: the key stops working.
 */
export interface ApiKeyRevoked {
agent_id: string
key_id: string
revoked_at: string
}

/**
 * A one-time sign-in link was sent to the user's address (POST /v1/auth/login). Only the hash of the link's token is kept; the link works once, until expires_at. Appended whether or not the user has signed in before.
 */
export interface SignInRequested {
user_id: string
/**
 * Lower-cased.
 */
email: string
token_hash: string
requested_at: string
expires_at: string
}

/**
 * The first sign-in of an address: the user exists from now on, owning the governance tenant tenant_id (registered just before, on its own stream).
 */
export interface UserRegistered {
user_id: string
/**
 * Lower-cased.
 */
email: string
tenant_id: string
registered_at: string
}

/**
 * A sign-in link was followed: its token is used up (sign_in_token_hash) and a browser session starts. Only the hash of the session cookie's token is kept.
 */
export interface SessionStarted {
user_id: string
session_id: string
token_hash: string
sign_in_token_hash: string
started_at: string
expires_at: string
}

/**
 * A session ended before its expiry: signed out (POST /v1/auth/logout) or revoked by its user (DELETE /v1/auth/sessions/{sessionId}).
 */
export interface SessionEnded {
user_id: string
session_id: string
token_hash: string
ended_at: string
reason: ("logout" | "revoked")
}

/**
 * An operator granted or revoked the admin role (gov user grant-admin / revoke-admin).
 */
export interface UserRoleChanged {
user_id: string
role: ("user" | "admin")
previous_role: ("user" | "admin")
changed_at: string
changed_by: string
reason?: string
}

/**
 * A single-use WebSocket ticket for one of the user's agents (POST /v1/ws-ticket). Only its hash is kept; it opens one chat socket of agent_id until expires_at.
 */
export interface WsTicketIssued {
user_id: string
agent_id: string
session_id: string
ticket_hash: string
issued_at: string
expires_at: string
}

/**
 * A WebSocket ticket was used to open its agent's chat socket: it opens nothing more.
 */
export interface WsTicketRedeemed {
user_id: string
agent_id: string
ticket_hash: string
redeemed_at: string
}

/**
 * The user's vault data key (AES-256), made with the user's first vault key and kept only wrapped by the node's vault master key.
 */
export interface VaultDataKeyCreated {
user_id: string
/**
 * Names this data key: every key sealed with it says so.
 */
data_key_id: string
/**
 * HMAC-derived name of the master key that wrapped it (not the key).
 */
master_key_id: string
/**
 * The data key sealed with the master key: v1.<iv>.<tag>.<ciphertext>, base64url.
 */
wrapped_key: string
created_at: string
}

/**
 * PUT .../vault: a model provider's key for one agent of the user, sealed with the user's data key (replacing one stored before for the same agent and provider).
 */
export interface VaultKeyStored {
user_id: string
agent_id: string
provider: ("openai" | "anthropic" | "google")
/**
 * The key's first 8 characters and an ellipsis: all of it that is ever shown.
 */
prefix: string
data_key_id: string
/**
 * The key sealed with the data key, bound to user, agent and provider: v1.<iv>.<tag>.<ciphertext>.
 */
sealed_key: string
stored_at: string
}

/**
 * DELETE .../vault?provider=: the agent's key for the provider is gone (its ciphertext stays in the event history, openable only with the data key).
 */
export interface VaultKeyDeleted {
user_id: string
agent_id: string
provider: ("openai" | "anthropic" | "google")
deleted_at: string
}

/**
 * The `leaf_admitted` webhook body. An authorization leaf (GOV_GOVERNANCE_ENVELOPE_V1) of the tenant was integrated into the public log: the evidence passed every gate and the validator round, the envelope is signed, and it now has its leaf index under a signed tree head. When the full body would exceed 128 KB it is replaced by its trimmed summary.
 */
export type LeafAdmittedWebhook = (LeafAdmittedPayload | LeafAdmittedTrimmed)

/**
 * The full `leaf_admitted` body.
 */
export interface LeafAdmittedPayload {
/**
 * Always `leaf_admitted`.
 */
type: "leaf_admitted"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * Index of the envelope (authorization leaf) in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the envelope's canonical JSON.
 */
leaf_hash: string
/**
 * When the evidence was admitted (ISO 8601 UTC).
 */
admitted_at: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * Where the proof bundle is served, publicly: `<base>/governance/replay/<artifact_hash>`.
 */
replay_url: string
/**
 * The proof bundle's artifact_hash: hex SHA-256 of its RFC 8785 canonical JSON.
 */
artifact_hash: string
envelope: GovernanceEnvelope
}
/**
 * The `leaf_admitted` body trimmed to its identifying fields, sent instead of a full body over 128 KB.
 */
export interface LeafAdmittedTrimmed {
/**
 * Always `leaf_admitted`.
 */
type: "leaf_admitted"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * Index of the envelope (authorization leaf) in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the envelope's canonical JSON.
 */
leaf_hash: string
/**
 * When the evidence was admitted (ISO 8601 UTC).
 */
admitted_at: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * Where the proof bundle is served, publicly: `<base>/governance/replay/<artifact_hash>`.
 */
replay_url: string
/**
 * The proof bundle's artifact_hash: hex SHA-256 of its RFC 8785 canonical JSON.
 */
artifact_hash: string
/**
 * Always true: the full body would have exceeded 131072 bytes (128 KB).
 */
trimmed: true
/**
 * Size in bytes of the full body (UTF-8 JSON) that was trimmed.
 */
original_bytes: number
/**
 * Where the full record can be read: the leaf with its record: `<base>/gov/v1/log/leaf?index=<leaf_index>`.
 */
url: string
}

/**
 * The `gate_fail` webhook body. Evidence of the tenant was rejected by one or more of the gates G1 to G5: the action is blocked and nothing reaches the log. Sent when the failure is recorded. When the full body would exceed 128 KB it is replaced by its trimmed summary.
 */
export type GateFailWebhook = (GateFailPayload | GateFailTrimmed)

/**
 * The full `gate_fail` body.
 */
export interface GateFailPayload {
/**
 * Always `gate_fail`.
 */
type: "gate_fail"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * The gates that failed, in order.
 * 
 * @minItems 1
 */
gates_failed: [("G1" | "G2" | "G3" | "G4" | "G5"), ...(("G1" | "G2" | "G3" | "G4" | "G5"))[]]
/**
 * Per failed gate, why it failed (a sentence).
 */
details: {
[k: string]: string
}
/**
 * Always `ACTION_BLOCKED`: the governed action must not proceed.
 */
action: "ACTION_BLOCKED"
/**
 * When the evidence was rejected (ISO 8601 UTC).
 */
failed_at: string
}
/**
 * The `gate_fail` body trimmed to its identifying fields, sent instead of a full body over 128 KB.
 */
export interface GateFailTrimmed {
/**
 * Always `gate_fail`.
 */
type: "gate_fail"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * The gates that failed, in order.
 * 
 * @minItems 1
 */
gates_failed: [("G1" | "G2" | "G3" | "G4" | "G5"), ...(("G1" | "G2" | "G3" | "G4" | "G5"))[]]
/**
 * Always `ACTION_BLOCKED`: the governed action must not proceed.
 */
action: "ACTION_BLOCKED"
/**
 * When the evidence was rejected (ISO 8601 UTC).
 */
failed_at: string
/**
 * Always true: the full body would have exceeded 131072 bytes (128 KB).
 */
trimmed: true
/**
 * Size in bytes of the full body (UTF-8 JSON) that was trimmed.
 */
original_bytes: number
/**
 * Where the full record can be read: the subject's status: `<base>/governance/status?subject_id=<subject_id>`.
 */
url: string
}

/**
 * The `compliance_report_ready` webhook body. The compliance report (GOV_COMPLIANCE_REPORT_V1) of an admitted proof bundle can be fetched: its leaf is covered by a signed tree head, so the report's inclusion proof exists. The payload is a notice naming the report and the tree head it is proven against; `report` carries the full report when the dispatcher renders it at queueing time. When the full body would exceed 128 KB it is replaced by its trimmed summary.
 */
export type ComplianceReportReadyWebhook = (ComplianceReportReadyPayload | ComplianceReportReadyTrimmed)

/**
 * The full `compliance_report_ready` body.
 */
export interface ComplianceReportReadyPayload {
/**
 * Always `compliance_report_ready`.
 */
type: "compliance_report_ready"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * The proof bundle's artifact_hash: hex SHA-256 of its RFC 8785 canonical JSON.
 */
artifact_hash: string
/**
 * Index of the envelope (authorization leaf) in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the envelope's canonical JSON.
 */
leaf_hash: string
/**
 * Always `GOV_COMPLIANCE_REPORT_V1`.
 */
report_type: "GOV_COMPLIANCE_REPORT_V1"
/**
 * Where the report is served (authenticated): `<base>/governance/report/<artifact_hash>`.
 */
report_url: string
/**
 * Size of the signed tree head that first covers the leaf.
 */
tree_size: number
/**
 * Root hash of that signed tree head.
 */
root_hash: string
/**
 * When that tree head was signed (its timestamp).
 */
generated_at: string
report?: ComplianceReport
}
/**
 * The `compliance_report_ready` body trimmed to its identifying fields, sent instead of a full body over 128 KB.
 */
export interface ComplianceReportReadyTrimmed {
/**
 * Always `compliance_report_ready`.
 */
type: "compliance_report_ready"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * The proof bundle's artifact_hash: hex SHA-256 of its RFC 8785 canonical JSON.
 */
artifact_hash: string
/**
 * Index of the envelope (authorization leaf) in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the envelope's canonical JSON.
 */
leaf_hash: string
/**
 * Always `GOV_COMPLIANCE_REPORT_V1`.
 */
report_type: "GOV_COMPLIANCE_REPORT_V1"
/**
 * Where the report is served (authenticated): `<base>/governance/report/<artifact_hash>`.
 */
report_url: string
/**
 * Size of the signed tree head that first covers the leaf.
 */
tree_size: number
/**
 * Root hash of that signed tree head.
 */
root_hash: string
/**
 * When that tree head was signed (its timestamp).
 */
generated_at: string
/**
 * Always true: the full body would have exceeded 131072 bytes (128 KB).
 */
trimmed: true
/**
 * Size in bytes of the full body (UTF-8 JSON) that was trimmed.
 */
original_bytes: number
/**
 * Where the full record can be read: the report: the same as report_url.
 */
url: string
}

/**
 * The `execution_trace_admitted` webhook body. An execution trace (GOV_EXECUTION_TRACE_V1) of the tenant was integrated into the public log as the execution leaf of one of its authorizations (closed loop, tier L2 and above). When the full body would exceed 128 KB it is replaced by its trimmed summary.
 */
export type ExecutionTraceAdmittedWebhook = (ExecutionTraceAdmittedPayload | ExecutionTraceAdmittedTrimmed)

/**
 * The full `execution_trace_admitted` body.
 */
export interface ExecutionTraceAdmittedPayload {
/**
 * Always `execution_trace_admitted`.
 */
type: "execution_trace_admitted"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * Index of the execution trace in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the execution trace's canonical JSON.
 */
leaf_hash: string
/**
 * leaf_hash of the authorization (envelope) leaf the execution ran under.
 */
parent_auth_leaf_hash: string
/**
 * When the execution was recorded (the trace's recorded_at).
 */
admitted_at: string
trace: ExecutionTrace
}
/**
 * The `execution_trace_admitted` body trimmed to its identifying fields, sent instead of a full body over 128 KB.
 */
export interface ExecutionTraceAdmittedTrimmed {
/**
 * Always `execution_trace_admitted`.
 */
type: "execution_trace_admitted"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * Index of the execution trace in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the execution trace's canonical JSON.
 */
leaf_hash: string
/**
 * leaf_hash of the authorization (envelope) leaf the execution ran under.
 */
parent_auth_leaf_hash: string
/**
 * When the execution was recorded (the trace's recorded_at).
 */
admitted_at: string
/**
 * Always true: the full body would have exceeded 131072 bytes (128 KB).
 */
trimmed: true
/**
 * Size in bytes of the full body (UTF-8 JSON) that was trimmed.
 */
original_bytes: number
/**
 * Where the full record can be read: the leaf with its record: `<base>/gov/v1/log/leaf?index=<leaf_index>`.
 */
url: string
}

/**
 * The `variance_recorded` webhook body. The variance record (GOV_VARIANCE_RECORD_V1) between an authorization and its execution was integrated into the public log as the variance leaf (closed loop, tier L2 and above). When the full body would exceed 128 KB it is replaced by its trimmed summary.
 */
export type VarianceRecordedWebhook = (VarianceRecordedPayload | VarianceRecordedTrimmed)

/**
 * The full `variance_recorded` body.
 */
export interface VarianceRecordedPayload {
/**
 * Always `variance_recorded`.
 */
type: "variance_recorded"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * Index of the variance record in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the variance record's canonical JSON.
 */
leaf_hash: string
/**
 * leaf_hash of the authorization (envelope) leaf the variance is measured from.
 */
auth_leaf_hash: string
/**
 * When the variance was computed (the record's recorded_at).
 */
recorded_at: string
record: VarianceRecord
}
/**
 * The `variance_recorded` body trimmed to its identifying fields, sent instead of a full body over 128 KB.
 */
export interface VarianceRecordedTrimmed {
/**
 * Always `variance_recorded`.
 */
type: "variance_recorded"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * Index of the variance record in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the variance record's canonical JSON.
 */
leaf_hash: string
/**
 * leaf_hash of the authorization (envelope) leaf the variance is measured from.
 */
auth_leaf_hash: string
/**
 * When the variance was computed (the record's recorded_at).
 */
recorded_at: string
/**
 * Always true: the full body would have exceeded 131072 bytes (128 KB).
 */
trimmed: true
/**
 * Size in bytes of the full body (UTF-8 JSON) that was trimmed.
 */
original_bytes: number
/**
 * Where the full record can be read: the variance record: `<base>/governance/variance/<auth_leaf_hash>`.
 */
url: string
}

/**
 * The `governance_breach` webhook body. A variance record of the tenant is a governance breach: classified BREACH (l2_distance above 0.20) or the execution left the healthy region Ω that the authorization was in (omega_breach). The variance record plus its authorization context; sent once its leaf is integrated into the public log. When the full body would exceed 128 KB it is replaced by its trimmed summary.
 */
export type GovernanceBreachWebhook = (GovernanceBreachPayload | GovernanceBreachTrimmed)

/**
 * The full `governance_breach` body.
 */
export interface GovernanceBreachPayload {
/**
 * Always `governance_breach`.
 */
type: "governance_breach"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * leaf_hash of the authorization (envelope) leaf.
 */
auth_leaf_hash: string
/**
 * leaf_hash of the execution trace leaf.
 */
exec_leaf_hash: string
/**
 * leaf_hash of the variance record leaf.
 */
variance_leaf_hash: string
/**
 * The variance class.
 */
classification: ("NOMINAL" | "DRIFT" | "BREACH")
/**
 * Distance between the authorization and execution states in [H, C, 1 − E].
 */
l2_distance: number
/**
 * True when the authorization state was in Ω and the execution state is not.
 */
omega_breach: boolean
/**
 * Per observable, whether the execution moved it for the better, the worse, or not (within ±0.01).
 */
drift_direction: {
H: ("improved" | "degraded" | "stable")
C: ("improved" | "degraded" | "stable")
E: ("improved" | "degraded" | "stable")
}
/**
 * When the variance was computed (the record's recorded_at).
 */
recorded_at: string
record: VarianceRecord
}
/**
 * The `governance_breach` body trimmed to its identifying fields, sent instead of a full body over 128 KB.
 */
export interface GovernanceBreachTrimmed {
/**
 * Always `governance_breach`.
 */
type: "governance_breach"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * leaf_hash of the authorization (envelope) leaf.
 */
auth_leaf_hash: string
/**
 * leaf_hash of the execution trace leaf.
 */
exec_leaf_hash: string
/**
 * leaf_hash of the variance record leaf.
 */
variance_leaf_hash: string
/**
 * The variance class.
 */
classification: ("NOMINAL" | "DRIFT" | "BREACH")
/**
 * Distance between the authorization and execution states in [H, C, 1 − E].
 */
l2_distance: number
/**
 * True when the authorization state was in Ω and the execution state is not.
 */
omega_breach: boolean
/**
 * Per observable, whether the execution moved it for the better, the worse, or not (within ±0.01).
 */
drift_direction: {
H: ("improved" | "degraded" | "stable")
C: ("improved" | "degraded" | "stable")
E: ("improved" | "degraded" | "stable")
}
/**
 * When the variance was computed (the record's recorded_at).
 */
recorded_at: string
/**
 * Always true: the full body would have exceeded 131072 bytes (128 KB).
 */
trimmed: true
/**
 * Size in bytes of the full body (UTF-8 JSON) that was trimmed.
 */
original_bytes: number
/**
 * Where the full record can be read: the variance record: `<base>/governance/variance/<auth_leaf_hash>`.
 */
url: string
}

/**
 * The `chain_depth_milestone` webhook body. The tenant's chain (its authorization leaves, in admission order) reached 10, 100 or 1000 authorization leaves (`depth`, counting what `counts` says); sent once the leaf that reached it is integrated into the public log. When the full body would exceed 128 KB it is replaced by its trimmed summary.
 */
export type ChainDepthMilestoneWebhook = (ChainDepthMilestonePayload | ChainDepthMilestoneTrimmed)

/**
 * The full `chain_depth_milestone` body.
 */
export interface ChainDepthMilestonePayload {
/**
 * Always `chain_depth_milestone`.
 */
type: "chain_depth_milestone"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The milestone reached: the number of authorization leaves of the tenant (proof bundles admitted by POST /governance/evidence; execution and variance leaves are not counted), as `counts` says.
 */
depth: (10 | 100 | 1000)
/**
 * What `depth` counts: always `authorization_leaves`. Absent only from a retry or redelivery of a delivery queued by a release from before this field, which sends the bytes first sent.
 */
counts?: "authorization_leaves"
/**
 * The subject of the leaf that reached the milestone.
 */
subject_id: string
/**
 * The proof bundle's artifact_hash: hex SHA-256 of its RFC 8785 canonical JSON.
 */
artifact_hash: string
/**
 * Index of the authorization leaf that reached the milestone in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the envelope that reached the milestone's canonical JSON.
 */
leaf_hash: string
/**
 * When that leaf was admitted (ISO 8601 UTC).
 */
reached_at: string
/**
 * The tenant's chain (authenticated): `<base>/governance/chain`.
 */
chain_url: string
}
/**
 * The `chain_depth_milestone` body trimmed to its identifying fields, sent instead of a full body over 128 KB.
 */
export interface ChainDepthMilestoneTrimmed {
/**
 * Always `chain_depth_milestone`.
 */
type: "chain_depth_milestone"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The milestone reached: the number of authorization leaves of the tenant (proof bundles admitted by POST /governance/evidence; execution and variance leaves are not counted), as `counts` says.
 */
depth: (10 | 100 | 1000)
/**
 * What `depth` counts: always `authorization_leaves`. Absent only from a retry or redelivery of a delivery queued by a release from before this field, which sends the bytes first sent.
 */
counts?: "authorization_leaves"
/**
 * The subject of the leaf that reached the milestone.
 */
subject_id: string
/**
 * The proof bundle's artifact_hash: hex SHA-256 of its RFC 8785 canonical JSON.
 */
artifact_hash: string
/**
 * Index of the authorization leaf that reached the milestone in the public log (GET /gov/v1/log/leaf?index=…).
 */
leaf_index: number
/**
 * RFC 9162 leaf hash of the envelope that reached the milestone's canonical JSON.
 */
leaf_hash: string
/**
 * When that leaf was admitted (ISO 8601 UTC).
 */
reached_at: string
/**
 * The tenant's chain (authenticated): `<base>/governance/chain`.
 */
chain_url: string
/**
 * Always true: the full body would have exceeded 131072 bytes (128 KB).
 */
trimmed: true
/**
 * Size in bytes of the full body (UTF-8 JSON) that was trimmed.
 */
original_bytes: number
/**
 * Where the full record can be read: the tenant's chain: the same as chain_url.
 */
url: string
}

/**
 * The `observables_alert` webhook body. A subject's observables crossed the boundary of the healthy region Ω (H ≥ 0.40, C ≥ 0.40, E ≤ 0.60), out of it or back in. Sent when the gate failure is recorded, or once the admitted leaf (evidence or variance) that moved them is integrated into the public log. When the full body would exceed 128 KB it is replaced by its trimmed summary.
 */
export type ObservablesAlertWebhook = (ObservablesAlertPayload | ObservablesAlertTrimmed)

/**
 * The full `observables_alert` body.
 */
export interface ObservablesAlertPayload {
/**
 * Always `observables_alert`.
 */
type: "observables_alert"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * `left_omega`: the subject was in Ω and is not any more; `entered_omega`: the reverse.
 */
crossing: ("left_omega" | "entered_omega")
observables: Observables
previous: Observables
/**
 * Each bound of Ω whose side changed (at least one).
 * 
 * @minItems 1
 */
thresholds_crossed: [{
observable: ("H" | "C" | "E")
/**
 * The bound's value (0.40 for H and C, 0.60 for E).
 */
threshold: number
/**
 * `min`: the observable must be at least the threshold; `max`: at most.
 */
bound: ("min" | "max")
}, ...({
observable: ("H" | "C" | "E")
/**
 * The bound's value (0.40 for H and C, 0.60 for E).
 */
threshold: number
/**
 * `min`: the observable must be at least the threshold; `max`: at most.
 */
bound: ("min" | "max")
})[]]
/**
 * The subject's lifecycle after the change.
 */
lifecycle: ("PROPOSED" | "ACTIVE" | "QUARANTINE" | "LOCKBOX" | "REJECTED")
/**
 * The domain event that moved the observables: a gate failure, an admitted proof bundle, or a variance record.
 */
trigger: ("GateFailed" | "EvidenceAdmitted" | "VarianceRecorded")
/**
 * When the change happened (the gate failure, admission or variance time).
 */
at: string
}
/**
 * The `observables_alert` body trimmed to its identifying fields, sent instead of a full body over 128 KB.
 */
export interface ObservablesAlertTrimmed {
/**
 * Always `observables_alert`.
 */
type: "observables_alert"
/**
 * Deterministic id of this webhook event: `evt_` + the first 32 hex digits of SHA-256 of `<source domain event id>:<event name>`. Every delivery of the event (to each webhook, each retry, each redelivery) carries the same id: deduplicate on it.
 */
event_id: string
/**
 * The tenant the event belongs to; a webhook only receives its own tenant's events.
 */
tenant_id: string
/**
 * The governed subject (model, agent, …) the event is about.
 */
subject_id: string
/**
 * `left_omega`: the subject was in Ω and is not any more; `entered_omega`: the reverse.
 */
crossing: ("left_omega" | "entered_omega")
/**
 * The subject's lifecycle after the change.
 */
lifecycle: ("PROPOSED" | "ACTIVE" | "QUARANTINE" | "LOCKBOX" | "REJECTED")
/**
 * The domain event that moved the observables: a gate failure, an admitted proof bundle, or a variance record.
 */
trigger: ("GateFailed" | "EvidenceAdmitted" | "VarianceRecorded")
/**
 * When the change happened (the gate failure, admission or variance time).
 */
at: string
/**
 * Always true: the full body would have exceeded 131072 bytes (128 KB).
 */
trimmed: true
/**
 * Size in bytes of the full body (UTF-8 JSON) that was trimmed.
 */
original_bytes: number
/**
 * Where the full record can be read: the subject's status: `<base>/governance/status?subject_id=<subject_id>`.
 */
url: string
}

/** Request body type of each command. */
export interface CommandBodies {
  'register-tenant': RegisterTenantBody;
  'submit-evidence': SubmitEvidenceBody;
  'submit-execution': SubmitExecutionBody;
  'register-webhook': RegisterWebhookBody;
  'submit-witness-signature': SubmitWitnessSignatureBody;
  'change-policy': ChangePolicyBody;
  'create-agent': CreateAgentBody;
  'update-agent': UpdateAgentBody;
  'change-agent-mode': ChangeAgentModeBody;
  'rollback-agent': RollbackAgentBody;
  'restore-agent': RestoreAgentBody;
  'create-api-key': CreateApiKeyBody;
  'govern-action': GovernActionBody;
  'auth-login': AuthLoginBody;
  'auth-callback': AuthCallbackBody;
  'ws-ticket': WsTicketBody;
  'cost-estimate': CostEstimateBody;
  'store-vault-key': StoreVaultKeyBody;
}

/** Payload (`data`) type of each domain event. */
export interface EventPayloads {
  'TenantRegistered': TenantRegistered;
  'ApiKeyRotated': ApiKeyRotated;
  'TenantTierChanged': TenantTierChanged;
  'TenantPolicyChanged': TenantPolicyChanged;
  'EvidenceAdmitted': EvidenceAdmitted;
  'GateFailed': GateFailed;
  'ExecutionAdmitted': ExecutionAdmitted;
  'VarianceRecorded': VarianceRecorded;
  'TreeHeadSigned': TreeHeadSigned;
  'WebhookRegistered': WebhookRegistered;
  'WebhookRemoved': WebhookRemoved;
  'WebhookRedeliveryRequested': WebhookRedeliveryRequested;
  'WitnessCosigned': WitnessCosigned;
  'LogCreated': LogCreated;
  'LogAnchored': LogAnchored;
  'AgentCreated': AgentCreated;
  'AgentConfigVersioned': AgentConfigVersioned;
  'AgentPassportIssued': AgentPassportIssued;
  'AgentStarted': AgentStarted;
  'AgentStopped': AgentStopped;
  'AgentCheckpointCreated': AgentCheckpointCreated;
  'AgentRestored': AgentRestored;
  'AgentModeChanged': AgentModeChanged;
  'AgentDeleted': AgentDeleted;
  'AgentActionDecided': AgentActionDecided;
  'AgentPolicyChanged': AgentPolicyChanged;
  'ApiKeyCreated': ApiKeyCreated;
  'ApiKeyRevoked': ApiKeyRevoked;
  'SignInRequested': SignInRequested;
  'UserRegistered': UserRegistered;
  'SessionStarted': SessionStarted;
  'SessionEnded': SessionEnded;
  'UserRoleChanged': UserRoleChanged;
  'WsTicketIssued': WsTicketIssued;
  'WsTicketRedeemed': WsTicketRedeemed;
  'VaultDataKeyCreated': VaultDataKeyCreated;
  'VaultKeyStored': VaultKeyStored;
  'VaultKeyDeleted': VaultKeyDeleted;
}

/** Each domain event: switching on `type` narrows `data`. */
export type GovernanceEvent =
  | { type: 'TenantRegistered'; data: TenantRegistered }
  | { type: 'ApiKeyRotated'; data: ApiKeyRotated }
  | { type: 'TenantTierChanged'; data: TenantTierChanged }
  | { type: 'TenantPolicyChanged'; data: TenantPolicyChanged }
  | { type: 'EvidenceAdmitted'; data: EvidenceAdmitted }
  | { type: 'GateFailed'; data: GateFailed }
  | { type: 'ExecutionAdmitted'; data: ExecutionAdmitted }
  | { type: 'VarianceRecorded'; data: VarianceRecorded }
  | { type: 'TreeHeadSigned'; data: TreeHeadSigned }
  | { type: 'WebhookRegistered'; data: WebhookRegistered }
  | { type: 'WebhookRemoved'; data: WebhookRemoved }
  | { type: 'WebhookRedeliveryRequested'; data: WebhookRedeliveryRequested }
  | { type: 'WitnessCosigned'; data: WitnessCosigned }
  | { type: 'LogCreated'; data: LogCreated }
  | { type: 'LogAnchored'; data: LogAnchored }
  | { type: 'AgentCreated'; data: AgentCreated }
  | { type: 'AgentConfigVersioned'; data: AgentConfigVersioned }
  | { type: 'AgentPassportIssued'; data: AgentPassportIssued }
  | { type: 'AgentStarted'; data: AgentStarted }
  | { type: 'AgentStopped'; data: AgentStopped }
  | { type: 'AgentCheckpointCreated'; data: AgentCheckpointCreated }
  | { type: 'AgentRestored'; data: AgentRestored }
  | { type: 'AgentModeChanged'; data: AgentModeChanged }
  | { type: 'AgentDeleted'; data: AgentDeleted }
  | { type: 'AgentActionDecided'; data: AgentActionDecided }
  | { type: 'AgentPolicyChanged'; data: AgentPolicyChanged }
  | { type: 'ApiKeyCreated'; data: ApiKeyCreated }
  | { type: 'ApiKeyRevoked'; data: ApiKeyRevoked }
  | { type: 'SignInRequested'; data: SignInRequested }
  | { type: 'UserRegistered'; data: UserRegistered }
  | { type: 'SessionStarted'; data: SessionStarted }
  | { type: 'SessionEnded'; data: SessionEnded }
  | { type: 'UserRoleChanged'; data: UserRoleChanged }
  | { type: 'WsTicketIssued'; data: WsTicketIssued }
  | { type: 'WsTicketRedeemed'; data: WsTicketRedeemed }
  | { type: 'VaultDataKeyCreated'; data: VaultDataKeyCreated }
  | { type: 'VaultKeyStored'; data: VaultKeyStored }
  | { type: 'VaultKeyDeleted'; data: VaultKeyDeleted };

/** Body type of each webhook event (the full payload or its trimmed summary). */
export interface WebhookPayloads {
  'leaf_admitted': LeafAdmittedWebhook;
  'gate_fail': GateFailWebhook;
  'compliance_report_ready': ComplianceReportReadyWebhook;
  'execution_trace_admitted': ExecutionTraceAdmittedWebhook;
  'variance_recorded': VarianceRecordedWebhook;
  'governance_breach': GovernanceBreachWebhook;
  'chain_depth_milestone': ChainDepthMilestoneWebhook;
  'observables_alert': ObservablesAlertWebhook;
}
