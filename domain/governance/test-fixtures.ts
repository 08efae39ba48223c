/** Shared inputs for tests and benchmarks (no Jest globals here: plain data and builders). */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type {
  SubmitEvidenceBody,
  TenantPolicy,
  ValidatorCertificate,
  ValidatorCertificateLegacy,
} from '../../event-schemas';
import { artifactHashOf, buildProofBundle } from './bundle';
import { certificateCounts } from './certificate';
import { canonicalHash } from './hash';
import { DEFAULT_POLICY } from './policy';
import type { VoteRequest } from './vote-checks';

export const hex = (c: string): string => c.repeat(64);

export const NOW = '2025-06-01T12:00:00.000Z';
export const TENANT = 'tnt_acme';

export function validBody(): SubmitEvidenceBody {
  return {
    subject_id: 'model-7',
    gate_results: {
      G1: {
        result: 'PASS',
        confidence_interval_lower: 0.85,
        confidence_interval_upper: 0.95,
        bootstrap_iterations: 2000,
      },
      G2: { result: 'PASS', causal_attribution: true, ablation_delta: 0.1 },
      G3: { result: 'PASS', protected_metrics: { toxicity: 0.01 } },
      G4: { result: 'PASS', evidence_class: 'HOOKED' },
      G5: { result: 'PASS', operator_id: 'op-1' },
    },
    evidence: {
      dataset_provenance_hash: hex('a'),
      evaluation_trace_hash: hex('b'),
      ablation_execution_log_hash: hex('c'),
      capability_certificate_hash: hex('d'),
    },
    replay_seed: 'deadbeef',
    state_before_hash: hex('e'),
    state_after_hash: hex('f'),
  };
}

/** Evidence whose G1 lower bound is under the default 0.80 minimum: a GATE_FAILURE. */
export function failingBody(): SubmitEvidenceBody {
  const body = validBody();
  body.gate_results.G1.confidence_interval_lower = 0.5;
  return body;
}

/** A policy differing from the default only where asked. */
export function policyWith(changes: Partial<TenantPolicy>): TenantPolicy {
  return { ...structuredClone(DEFAULT_POLICY), ...changes };
}

export function voteRequest(changes: Partial<VoteRequest> = {}): VoteRequest {
  const bundle = buildProofBundle({
    tenant_id: TENANT,
    body: validBody(),
    parent_bundle_hash: null,
    generated_at: NOW,
  });
  return {
    bundle,
    artifact_hash: artifactHashOf(bundle),
    expected_parent_hash: null,
    policy: DEFAULT_POLICY,
    now: NOW,
    ...changes,
  };
}

export function ed25519Keys(count: number): KeyObject[] {
  return Array.from({ length: count }, () => generateKeyPairSync('ed25519').privateKey);
}

/**
 * `cert` as releases before `validators` wrote it (`quorum` = the round's size, `threshold` = the votes
 * needed), hashed as they hashed it: the form stored events and exports from then still carry.
 */
export function legacyFormOf(cert: ValidatorCertificate): ValidatorCertificateLegacy {
  const { validators, quorum } = certificateCounts(cert);
  const unhashed = {
    type: cert.type,
    body_hash: cert.body_hash,
    proposer_id: cert.proposer_id,
    votes: cert.votes,
    quorum: validators,
    threshold: quorum,
  };
  return { ...unhashed, cert_hash: canonicalHash(unhashed) };
}
