/**
 * The checks of one EvidenceAdmitted, from its own data and the trusted keys: the bundle hash, the
 * gates under the policy it was admitted under, the validator certificate, the authority's envelope
 * and the stored leaf hash. Pure. (That the policy was the tenant's policy in force then is a link
 * check: link-index.ts.)
 */
import { artifactHashOf } from '../domain/governance/bundle';
import { certificateCounts, verifyCertificate } from '../domain/governance/certificate';
import { verifyEnvelope } from '../domain/governance/envelope';
import { evaluateGateResults } from '../domain/governance/gates';
import { DEFAULT_POLICY, policyHash } from '../domain/governance/policy';
import { quorumThreshold } from '../domain/governance/validators';
import { leafHashOfRecord, SHARED_LOG_NAME } from '../domain/log';
import type { EvidenceAdmitted } from '../event-schemas';
import { fromHex, toHex } from '../merkle-core';
import type { Finding } from './report';
import type { PreparedTrust } from './trust';

export interface EvidenceVerdict {
  findings: Finding[];
  /** The recomputed leaf hash of the envelope. */
  leafHash: Uint8Array;
  /** Hash of the policy the admission names (null: the default). */
  policyHash: Uint8Array | null;
}

export function checkEvidenceAdmitted(
  eventTenant: string,
  data: EvidenceAdmitted,
  trust: PreparedTrust,
): EvidenceVerdict {
  const findings: Finding[] = [];
  const { bundle, envelope } = data;

  const tenants = [eventTenant, data.tenant_id, bundle.tenant_id, envelope.tenant_id];
  if (new Set(tenants).size !== 1)
    findings.push({
      check: 'tenant-mismatch',
      message: `the event, its data, bundle and envelope name different tenants (${tenants.join(', ')})`,
    });
  const subjects = [data.subject_id, bundle.subject_id, envelope.subject_id];
  if (new Set(subjects).size !== 1)
    findings.push({
      check: 'subject-mismatch',
      message: `the data, bundle and envelope name different subjects (${subjects.join(', ')})`,
    });

  const artifactHash = artifactHashOf(bundle);
  if (data.artifact_hash !== artifactHash)
    findings.push({
      check: 'artifact-hash-mismatch',
      message: `artifact_hash ${data.artifact_hash} is not the SHA-256 of the bundle's canonical JSON (${artifactHash}): the bundle or its hash was altered`,
    });
  if (envelope.artifact_hash !== artifactHash)
    findings.push({
      check: 'envelope-mismatch',
      message: `the envelope binds artifact ${envelope.artifact_hash}, but the admitted bundle hashes to ${artifactHash}`,
    });

  // The gates again, under the policy in force when the evidence was admitted (never the current one).
  const gates = evaluateGateResults(bundle.gate_results, data.policy ?? DEFAULT_POLICY);
  if (!gates.passed)
    findings.push({
      check: 'gates-failed',
      message: `the admitted bundle does not pass ${gates.gates_failed.join(', ')} under ${data.policy ? 'the tenant policy it names' : 'the default policy'}: ${Object.values(gates.details).join('; ')}`,
    });

  findings.push(...checkCertificate(data, artifactHash, trust));

  const authorityKey = trust.authorities.get(envelope.authority_node_id);
  if (!authorityKey)
    findings.push({
      check: 'envelope-authority-unknown',
      message: `the envelope is signed by authority ${envelope.authority_node_id}, which is not among the trusted authority keys (add its key, current or retired, to the trust)`,
    });
  else if (!verifyEnvelope(envelope, authorityKey))
    findings.push({
      check: 'envelope-signature',
      message: `the authority signature of ${envelope.authority_node_id} does not verify over the envelope: the envelope or its signature was altered`,
    });
  // Bound to the shared log: a trusted log key. Another log's key is known from its LogCreated event,
  // in event order: the sequential part compares those (log-directory.ts).
  if (
    (data.log ?? SHARED_LOG_NAME) === SHARED_LOG_NAME &&
    !trust.logKeyTexts.has(envelope.log_binding.log_id.trim())
  )
    findings.push({
      check: 'envelope-log-binding',
      message: `the envelope is bound to log key '${envelope.log_binding.log_id}', which is not a trusted log key of the shared log, the log the leaf is in`,
    });

  const leafHash = leafHashOfRecord(envelope);
  const recomputed = toHex(leafHash);
  if (data.leaf_hash !== recomputed)
    findings.push({
      check: 'leaf-hash-mismatch',
      message: `leaf_hash ${data.leaf_hash} is not the leaf hash of the envelope (${recomputed}): the envelope or the stored hash was altered`,
    });
  return { findings, leafHash, policyHash: data.policy ? fromHex(policyHash(data.policy)) : null };
}

/** The certificate: its votes and quorum, and that it is the one the bundle and the envelope name. */
function checkCertificate(data: EvidenceAdmitted, artifactHash: string, trust: PreparedTrust): Finding[] {
  const { certificate, envelope } = data;
  const findings: Finding[] = [];
  if (certificate.body_hash !== artifactHash)
    findings.push({
      check: 'certificate-mismatch',
      message: `the certificate is for bundle ${certificate.body_hash}, not for the admitted bundle ${artifactHash}`,
    });
  const { validators, quorum } = certificateCounts(certificate);
  const bft = quorumThreshold(validators);
  if (quorum < bft)
    findings.push({
      check: 'certificate-threshold',
      message: `the certificate declares a quorum of ${quorum} of ${validators} validators; Byzantine fault tolerance needs ${bft}`,
    });
  const verdict = verifyCertificate(certificate, trust.validators, bft);
  if (!verdict.ok)
    findings.push({
      check: 'certificate-invalid',
      message: `the validator certificate fails: ${verdict.reason}`,
    });
  if (envelope.certificate_hash !== certificate.cert_hash)
    findings.push({
      check: 'certificate-mismatch',
      message: `the envelope names certificate ${envelope.certificate_hash}, but the admitted certificate is ${certificate.cert_hash}`,
    });
  const signed = envelope.validator_signatures;
  const voted = certificate.votes;
  if (
    signed.length !== voted.length ||
    signed.some((s, i) => s.validator_id !== voted[i]!.validator_id || s.signature !== voted[i]!.signature)
  )
    findings.push({
      check: 'certificate-mismatch',
      message: "the envelope's validator signatures are not the certificate's votes, in order",
    });
  return findings;
}
