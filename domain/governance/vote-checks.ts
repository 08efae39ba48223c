/**
 * What a validator checks before it signs ACCEPT (DOMAIN.md "Validator round"). Each failed check is a
 * sentence, carried in the REJECT vote's `reasons`.
 */
import type { ProofBundle, TenantPolicy } from '../../event-schemas';
import { artifactHashOf } from './bundle';
import { evaluateGateResults, GATE_NAMES } from './gates';
import { isSha256Hex } from './hash';

export interface VoteRequest {
  bundle: ProofBundle;
  /** The hash the proposer claims for the bundle; validators recompute it. */
  artifact_hash: string;
  /** artifact_hash of the subject's previous admitted bundle, or null for its first. */
  expected_parent_hash: string | null;
  policy: TenantPolicy;
  /** The round's clock (ISO 8601): votes carry it as voted_at and the replay window is measured from it. */
  now: string;
}

export const EVIDENCE_HASH_FIELDS = [
  'dataset_provenance_hash',
  'evaluation_trace_hash',
  'ablation_execution_log_hash',
  'capability_certificate_hash',
] as const;

/** How far in the future a bundle's generated_at may be: clocks of different nodes disagree a little. */
const MAX_CLOCK_SKEW_SECONDS = 5;

/** What a validator makes of a bundle: the hash of the bundle it examined, and its reasons to reject. */
export interface Examination {
  /** hex SHA-256 of the examined bundle's canonical JSON, whatever the proposer claimed. */
  bodyHash: string;
  /** Reasons to reject the bundle; empty means ACCEPT. */
  reasons: string[];
}

/** Examines the bundle, hashing it once for both the vote's body_hash and the chain check. */
export function examineBundle(request: VoteRequest): Examination {
  const { bundle } = request;
  const bodyHash = artifactHashOf(bundle);
  const reasons = [
    ...shapeReasons(bundle),
    ...evidenceReasons(bundle),
    ...gateReasons(bundle, request.policy),
    ...chainReasons(bundle, request, bodyHash),
    ...timeReasons(bundle, request),
  ];
  return { bodyHash, reasons };
}

function shapeReasons(bundle: ProofBundle): string[] {
  return bundle.type === 'GOV_PROOF_BUNDLE_V1' && bundle.version === 1
    ? []
    : ['the bundle is not a GOV_PROOF_BUNDLE_V1 version 1'];
}

function evidenceReasons(bundle: ProofBundle): string[] {
  const evidence: Record<string, unknown> = bundle.evidence ?? {};
  const reasons: string[] = [];
  for (const field of EVIDENCE_HASH_FIELDS) {
    if (!(field in evidence)) reasons.push(`evidence.${field} is missing`);
    else if (!isSha256Hex(evidence[field]))
      reasons.push(`evidence.${field} is not a SHA-256 digest (64 lowercase hex characters)`);
  }
  return reasons;
}

function gateReasons(bundle: ProofBundle, policy: TenantPolicy): string[] {
  const evaluation = evaluateGateResults(bundle.gate_results, policy);
  if (evaluation.passed) return [];
  return GATE_NAMES.filter((gate) => evaluation.details[gate] !== undefined).map(
    (gate) => `${gate} does not pass: ${evaluation.details[gate]}`,
  );
}

function chainReasons(bundle: ProofBundle, request: VoteRequest, actual: string): string[] {
  const reasons: string[] = [];
  if (bundle.parent_bundle_hash !== request.expected_parent_hash)
    reasons.push(
      `parent_bundle_hash ${bundle.parent_bundle_hash ?? 'null'} is not the subject's previous bundle ` +
        `(${request.expected_parent_hash ?? 'null: this is its first bundle'})`,
    );
  if (request.artifact_hash !== actual)
    reasons.push(
      `artifact_hash ${request.artifact_hash} is not the SHA-256 of the bundle's canonical JSON (${actual})`,
    );
  return reasons;
}

function timeReasons(bundle: ProofBundle, request: VoteRequest): string[] {
  const generated = Date.parse(bundle.generated_at);
  const now = Date.parse(request.now);
  if (Number.isNaN(now)) return [`the round's clock ${JSON.stringify(request.now)} is not a timestamp`];
  if (Number.isNaN(generated))
    return [`generated_at ${JSON.stringify(bundle.generated_at)} is not a timestamp`];
  const ageSeconds = (now - generated) / 1000;
  if (-ageSeconds > MAX_CLOCK_SKEW_SECONDS)
    return [
      `generated_at ${bundle.generated_at} is ${-ageSeconds} s in the future (at most ${MAX_CLOCK_SKEW_SECONDS} s of clock skew is tolerated)`,
    ];
  if (ageSeconds > request.policy.replay_window_seconds)
    return [
      `generated_at ${bundle.generated_at} is ${ageSeconds} s old, outside the replay window of ${request.policy.replay_window_seconds} s`,
    ];
  return [];
}
