/**
 * The compliance report GOV_COMPLIANCE_REPORT_V1: one admitted proof bundle with everything a third party
 * needs to check it without trusting the service, and the steps to do so.
 */
import type {
  ComplianceReport,
  GovernanceEnvelope,
  Observables,
  ProofBundle,
  ValidatorCertificate,
} from '../../event-schemas';
import { toHex } from '../../merkle-core';
import type { LogName } from '../../ports/log';
import { type JsonSth, leafHashOfRecord, SHARED_LOG_NAME } from '../log';
import { artifactHashOf } from './bundle';
import { certificateCounts, earlierFormNote } from './certificate';
import type { Lifecycle } from './lifecycle';
import type { EVIDENCE_HASH_FIELDS } from './vote-checks';

export { renderReportMarkdown } from './report-markdown';

export interface ComplianceReportInput {
  bundle: ProofBundle;
  /** Per gate, what was checked (EvidenceAdmitted.gate_details). */
  gate_details: Record<string, string>;
  certificate: ValidatorCertificate;
  envelope: GovernanceEnvelope;
  leaf_index: number;
  /** The log the leaf is in: its name and base URL (where its tree heads, keys and proofs are). */
  log: { name: LogName; url: string };
  /** The signed tree head the inclusion proof leads to. */
  sth: JsonSth;
  inclusion_proof: { leaf_index: number; tree_size: number; audit_path: readonly string[] };
  lifecycle: Lifecycle;
  observables: Observables;
  admitted_at: string;
  replay_url: string;
}

/** Thrown when the parts given do not describe one and the same admitted bundle. */
export class ReportInconsistencyError extends Error {
  override readonly name = 'ReportInconsistencyError';
}

export function buildComplianceReport(input: ComplianceReportInput): ComplianceReport {
  const { bundle, certificate, envelope, sth, inclusion_proof: proof } = input;
  const artifactHash = artifactHashOf(bundle);
  // A report that contradicts itself would send a verifier chasing a fault that is ours.
  if (envelope.artifact_hash !== artifactHash || certificate.body_hash !== artifactHash)
    throw new ReportInconsistencyError('bundle, envelope and certificate are not about the same artifact');
  if (envelope.certificate_hash !== certificate.cert_hash)
    throw new ReportInconsistencyError("the envelope's certificate_hash is not the certificate's cert_hash");
  if (
    proof.tree_size !== sth.tree_size ||
    proof.leaf_index !== input.leaf_index ||
    input.leaf_index >= sth.tree_size
  )
    throw new ReportInconsistencyError(
      'the inclusion proof is not for this leaf in the tree of the signed tree head',
    );

  const report: Omit<ComplianceReport, 'verification_steps'> = {
    type: 'GOV_COMPLIANCE_REPORT_V1',
    version: 1,
    tenant_id: bundle.tenant_id,
    subject_id: bundle.subject_id,
    artifact_hash: artifactHash,
    gate_results: structuredClone(bundle.gate_results),
    gate_details: { ...input.gate_details },
    evidence: evidenceOf(bundle),
    leaf: {
      log: input.log.name,
      log_url: input.log.url,
      leaf_index: input.leaf_index,
      leaf_hash: toHex(leafHashOfRecord(envelope)),
    },
    sth: {
      log_id: sth.log_id,
      tree_size: sth.tree_size,
      root_hash: sth.root_hash,
      timestamp: sth.timestamp,
      log_signature: sth.log_signature,
      witness_signatures: sth.witness_signatures.map((w) => ({ name: w.name, signature: w.signature })),
    },
    inclusion_proof: {
      leaf_index: proof.leaf_index,
      tree_size: proof.tree_size,
      audit_path: [...proof.audit_path],
    },
    certificate,
    envelope,
    lifecycle: input.lifecycle,
    observables: { H: input.observables.H, C: input.observables.C, E: input.observables.E },
    admitted_at: input.admitted_at,
    replay_url: input.replay_url,
  };
  return { ...report, verification_steps: verificationSteps(report) };
}

function evidenceOf(bundle: ProofBundle): ComplianceReport['evidence'] {
  const pick = (field: (typeof EVIDENCE_HASH_FIELDS)[number]): string => {
    const value = bundle.evidence[field];
    if (value === undefined) throw new ReportInconsistencyError(`the bundle has no evidence.${field}`);
    return value;
  };
  return {
    dataset_provenance_hash: pick('dataset_provenance_hash'),
    evaluation_trace_hash: pick('evaluation_trace_hash'),
    ablation_execution_log_hash: pick('ablation_execution_log_hash'),
    capability_certificate_hash: pick('capability_certificate_hash'),
  };
}

/** Plain steps, with this report's values filled in, that need nothing from the service but public data. */
function verificationSteps(
  report: Omit<ComplianceReport, 'verification_steps'>,
): ComplianceReport['verification_steps'] {
  const { envelope, certificate, sth, leaf, inclusion_proof: proof } = report;
  // The shared log's words are those of reports before there were many logs: its reports read the same.
  const headAt =
    leaf.log === SHARED_LOG_NAME
      ? `GET /gov/v1/log/sth at ${envelope.log_binding.log_url}`
      : `GET ${leaf.log_url}/sth (the ${leaf.log} log, which the leaf is in)`;
  const { validators, quorum } = certificateCounts(certificate);
  const earlier = earlierFormNote(certificate);
  const counts = `the quorum of its ${validators} validators${earlier ? `; ${earlier}` : ''}`;
  return [
    `Fetch the proof bundle from ${report.replay_url} and compute the SHA-256 of its RFC 8785 canonical JSON: ` +
      `it must equal artifact_hash ${report.artifact_hash}, which is also the envelope's artifact_hash and the certificate's body_hash.`,
    "Replay the gate evaluation: the bundle's gate_results must pass G1 to G5 under the tenant policy, as gate_details describes.",
    `Compute the leaf hash SHA-256(0x00 ‖ data), where data is the UTF-8 RFC 8785 canonical JSON of the envelope: ` +
      `it must equal leaf_hash ${leaf.leaf_hash}.`,
    `Verify the inclusion proof (RFC 9162 §2.1.3.2): combine the leaf hash with the ${proof.audit_path.length} hashes of audit_path ` +
      `for leaf_index ${proof.leaf_index} in a tree of tree_size ${proof.tree_size}; the result must equal the root_hash ${sth.root_hash} of the signed tree head.`,
    `Verify the signed tree head's log_signature with the log key named by log_id, as published by ${headAt}; ` +
      'check any witness_signatures with the keys of the witnesses you trust.',
    `Verify each validator vote in the certificate with the validator keys from GET /gov/v1/log/keys: validator_id is the SHA-256 of the key's DER SubjectPublicKeyInfo, ` +
      `the signature is Ed25519 (base64) over the RFC 8785 JSON of the vote without signature, and at least ${quorum} distinct ACCEPT votes (${counts}) carry body_hash ${report.artifact_hash}; ` +
      `cert_hash ${certificate.cert_hash} must be the SHA-256 of the certificate's canonical JSON without cert_hash and equal the envelope's certificate_hash.`,
    `Verify the envelope's authority_signature with the key of node ${envelope.authority_node_id} from GET /gov/v1/log/keys: ` +
      'Ed25519 (base64) over the RFC 8785 JSON of the envelope without authority_signature.',
  ];
}
