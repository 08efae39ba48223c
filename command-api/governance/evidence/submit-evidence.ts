/**
 * Deciding `POST /governance/evidence` for a tenant: limits first, then the subject's lifecycle, the
 * five gates, the validator round and the signed envelope. Pure apart from the validator round, which
 * is a port (validators may be remote).
 */
import type { KeyObject } from 'node:crypto';
import { type AdmissionCertifier, certifyAndSeal } from '../../../domain/governance/admission-round';
import { artifactHashOf, buildProofBundle, sha256Hex } from '../../../domain/governance/bundle';
import { leavesCountedToday, secondsUntilAllowanceResets } from '../../../domain/governance/daily-allowance';
import { evaluateGates } from '../../../domain/governance/gates';
import { evolveSubject, refusesEvidence } from '../../../domain/governance/lifecycle';
import { DEFAULT_POLICY_IN_FORCE } from '../../../domain/governance/policy';
import { HOUR_MS, TIER_LIMITS } from '../../../domain/governance/tier-limits';
import type { Validator } from '../../../domain/governance/validators';
import type { EvidenceAdmitted, GateFailed, SubmitEvidenceBody } from '../../../event-schemas';
import { canonicalJson } from '../../../merkle-core';
import type { Decision } from '../../engine/aggregate-writer';
import { subjectOf, type TenantState } from '../tenants/tenant-state';

export interface AdmissionContext {
  now: Date;
  correlationId: string;
  validators: readonly Validator[];
  /** The node key, which signs the envelope. */
  authority: { privateKey: KeyObject; nodeId: string };
  /** When given, runs the validator round and seals the envelope elsewhere (the same bytes). */
  certify?: AdmissionCertifier;
  logBinding: { log_id: string; log_url: string };
  replayUrl(artifactHash: string): string;
}

/** A refusal that appends nothing. */
export interface Refusal {
  kind: 'refused';
  status: 403 | 409 | 429;
  error: 'TRIAL_EXHAUSTED' | 'RATE_LIMITED' | 'SUBJECT_LOCKED' | 'TIER_INSUFFICIENT';
  message: string;
  retryAfterSeconds?: number;
}

export type EvidenceOutcome =
  | { kind: 'admitted'; artifact_hash: string; leaf_hash: string }
  | { kind: 'gate-failed'; event: GateFailed }
  | Refusal;

export async function decideSubmitEvidence(
  state: Readonly<TenantState>,
  body: SubmitEvidenceBody,
  context: AdmissionContext,
): Promise<Decision<EvidenceOutcome>> {
  const refusal = checkAllowance(state, context.now) ?? checkSubject(state, body.subject_id);
  if (refusal) return { events: [], result: refusal };

  const subject = subjectOf(state, body.subject_id);
  const at = context.now.toISOString();
  const { policy } = state.policy_in_force;
  const gates = evaluateGates(body, policy);
  if (!gates.passed) {
    const after = evolveSubject(subject, { kind: 'fail', policy_violation: gates.policy_violation, at });
    const event: GateFailed = {
      tenant_id: state.tenant_id,
      subject_id: body.subject_id,
      error: gates.error,
      gates_failed: gates.gates_failed as GateFailed['gates_failed'],
      details: gates.details as Record<string, string>,
      action: 'ACTION_BLOCKED',
      policy_violation: gates.policy_violation,
      submission_hash: sha256Hex(canonicalJson(body)),
      observables: after.observables,
      lifecycle: after.lifecycle,
      failed_at: at,
    };
    return {
      events: [newEvent(state, context, 'GateFailed', event)],
      result: { kind: 'gate-failed', event },
    };
  }

  const bundle = buildProofBundle({
    tenant_id: state.tenant_id,
    body,
    parent_bundle_hash: subject.last_bundle_hash,
    generated_at: at,
  });
  const artifactHash = artifactHashOf(bundle);
  const request = {
    bundle,
    artifact_hash: artifactHash,
    expected_parent_hash: subject.last_bundle_hash,
    policy,
    now: at,
  };
  const fields = {
    bundle_hash: artifactHash,
    payload_uri: context.replayUrl(artifactHash),
    tenant_id: state.tenant_id,
    subject_id: body.subject_id,
    log_binding: context.logBinding,
    generated_at: at,
  };
  const { certificate, envelope, leafHash } = context.certify
    ? await context.certify(request, fields)
    : await certifyAndSeal(context.validators, request, fields, context.authority);
  const after = evolveSubject(subject, { kind: 'pass', artifact_hash: artifactHash, at });
  const event: EvidenceAdmitted = {
    tenant_id: state.tenant_id,
    subject_id: body.subject_id,
    artifact_hash: artifactHash,
    leaf_hash: leafHash,
    bundle,
    certificate,
    envelope,
    gate_details: gates.details,
    observables: after.observables,
    lifecycle: after.lifecycle,
    admitted_at: at,
    // Which policy the gates passed under, so an audit can re-check them; the default goes unsaid.
    ...(state.policy_in_force.policy_hash !== DEFAULT_POLICY_IN_FORCE.policy_hash && { policy }),
  };
  return {
    events: [newEvent(state, context, 'EvidenceAdmitted', event)],
    result: { kind: 'admitted', artifact_hash: artifactHash, leaf_hash: leafHash },
  };
}

/** Trial cap and window (409), then the daily leaf allowance (429). */
function checkAllowance(state: Readonly<TenantState>, now: Date): Refusal | null {
  const limits = TIER_LIMITS[state.tier];
  if (limits.trial) {
    const { leafCap, windowHours } = limits.trial;
    if (state.evidence_leaves >= leafCap) {
      return trialExhausted(`the trial's ${leafCap} leaves are used up; upgrade to Pay-as-you-govern (L2)`);
    }
    if (now.getTime() >= Date.parse(state.registered_at) + windowHours * HOUR_MS) {
      return trialExhausted(
        `the trial's ${windowHours}-hour window has closed; upgrade to Pay-as-you-govern (L2)`,
      );
    }
  }
  const perDay = state.daily_leaf_limit ?? limits.leavesPerDay;
  // Counted per the tenant's day, which a clock stepped back does not turn back.
  if (perDay !== null && leavesCountedToday(state, now) >= perDay) {
    const retryAfterSeconds = secondsUntilAllowanceResets(state, now);
    return {
      kind: 'refused',
      status: 429,
      error: 'RATE_LIMITED',
      message: `the daily allowance of ${perDay} leaves is used up; it resets at 00:00 UTC (in ${retryAfterSeconds} s)`,
      retryAfterSeconds,
    };
  }
  return null;
}

function trialExhausted(message: string): Refusal {
  return { kind: 'refused', status: 409, error: 'TRIAL_EXHAUSTED', message };
}

function checkSubject(state: Readonly<TenantState>, subjectId: string): Refusal | null {
  const reason = refusesEvidence(subjectOf(state, subjectId));
  return reason ? { kind: 'refused', status: 409, error: 'SUBJECT_LOCKED', message: reason } : null;
}

export function newEvent<T>(
  state: Readonly<TenantState>,
  context: Pick<AdmissionContext, 'correlationId'>,
  type: string,
  data: T,
) {
  return {
    type,
    data,
    tenant_id: state.tenant_id,
    correlation_id: context.correlationId,
    causation_id: null,
  };
}
