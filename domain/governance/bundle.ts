/**
 * The proof bundle GOV_PROOF_BUNDLE_V1: the evidence of one admitted decision. It is stored
 * content-addressed by `artifact_hash` and served at `replay_url`, so anyone can recompute the hash and
 * replay the gate evaluation.
 */
import type { ProofBundle, SubmitEvidenceBody } from '../../event-schemas';
import { canonicalHash, sha256Hex } from './hash';

export { sha256Hex };

export interface ProofBundleInput {
  tenant_id: string;
  body: SubmitEvidenceBody;
  /** artifact_hash of the subject's previous bundle, or null for its first. */
  parent_bundle_hash: string | null;
  generated_at: string;
}

export function buildProofBundle(input: ProofBundleInput): ProofBundle {
  const { body } = input;
  // Copies, so a later change to the request object cannot change a bundle whose hash is already taken.
  return {
    type: 'GOV_PROOF_BUNDLE_V1',
    version: 1,
    tenant_id: input.tenant_id,
    subject_id: body.subject_id,
    parent_bundle_hash: input.parent_bundle_hash,
    replay_seed: body.replay_seed,
    gate_results: structuredClone(body.gate_results),
    evidence: { ...body.evidence },
    state_before_hash: body.state_before_hash,
    state_after_hash: body.state_after_hash,
    generated_at: input.generated_at,
  };
}

/** hex SHA-256 of the bundle's RFC 8785 canonical JSON: the bundle's identity everywhere. */
export function artifactHashOf(bundle: ProofBundle): string {
  return canonicalHash(bundle);
}
