/**
 * Deciding `POST /governance/evidence` for a tenant: limits first, then the subject's lifecycle, the
 * five gates, the validator round and the signed envelope. The round is I/O (validators may be remote,
 * it may run on another thread), so it is not part of the decision; a submission takes three steps:
 *
 * 1. plan: `decideSubmitEvidence` without a certificate refuses, fails the gates (a `GateFailed`
 *    event), or names the bundle the validators are to certify (`needs-certificate`);
 * 2. certify: `certifyAdmission` runs the round and seals the envelope, outside the tenant's queue;
 * 3. decide: `decideSubmitEvidence` with the certificate admits, if what the plan was based on (the
 *    subject's chain head, the policy in force) still holds, and plans anew otherwise.
 *
 * A version conflict (another process appended first) decides step 3 again with the same certificate:
 * the round runs again only when the subject's chain or the policy actually moved.
 */
import type { KeyObject } from 'node:crypto';
import {
  type AdmissionCertifier,
  type CertifiedEnvelope,
  certifyAndSeal,
  type EnvelopeFields,
} from '../../../domain/governance/admission-round';
import { artifactHashOf, buildProofBundle, sha256Hex } from '../../../domain/governance/bundle';
import { leavesCountedToday, secondsUntilAllowanceResets } from '../../../domain/governance/daily-allowance';
import { evaluateGates } from '../../../domain/governance/gates';
import { evolveSubject, refusesEvidence, type SubjectState } from '../../../domain/governance/lifecycle';
import { DEFAULT_POLICY_IN_FORCE } from '../../../domain/governance/policy';
import { HOUR_MS, TIER_LIMITS } from '../../../domain/governance/tier-limits';
import type { Validator } from '../../../domain/governance/validators';
import type { VoteRequest } from '../../../domain/governance/vote-checks';
import type { EvidenceAdmitted, GateFailed, SubmitEvidenceBody } from '../../../event-schemas';
import { canonicalJson } from '../../../merkle-core';
import {
  logMember,
  subjectOf,
  type TenantDecision,
  type TenantState,
  tenantEvent,
} from '../tenants/tenant-state';

/** What an envelope is bound to: its log's verifier key (the STH's `log_id`) and its log's URL. */
export interface LogBinding {
  log_id: string;
  log_url: string;
}

/** Of a log this process does not know (yet): its `LogCreated` event has not reached it. */
export class UnknownLogError extends Error {
  override readonly name = 'UnknownLogError';
  constructor(readonly log: string) {
    super(`log '${log}' is not known to this process yet (its LogCreated event has not been read)`);
  }
}

/** What the decision needs besides the state and the body. */
export interface EvidenceContext {
  now: Date;
  correlationId: string;
  /** The binding of an envelope admitted to `log`; throws `UnknownLogError` for a log not known yet. */
  logBinding(log: string): LogBinding;
  replayUrl(artifactHash: string): string;
}

/** Who certifies: the validators and the node key, or a certifier that runs both elsewhere. */
export interface Certifiers {
  validators: readonly Validator[];
  /** The node key, which signs the envelope. */
  authority: { privateKey: KeyObject; nodeId: string };
  /** When given, runs the validator round and seals the envelope elsewhere (the same bytes). */
  certify?: AdmissionCertifier;
}

export type AdmissionContext = EvidenceContext &
  Certifiers & {
    /** Resolves once this process knows every log the store holds (after an `UnknownLogError`). */
    learnLogs?(): Promise<void>;
  };

/** A refusal that appends nothing. */
export interface Refusal {
  kind: 'refused';
  status: 403 | 409 | 429;
  error: 'TRIAL_EXHAUSTED' | 'RATE_LIMITED' | 'SUBJECT_LOCKED' | 'TIER_INSUFFICIENT';
  message: string;
  retryAfterSeconds?: number;
}

export type EvidenceOutcome =
  | { kind: 'admitted'; artifact_hash: string; leaf_hash: string; log: string }
  | { kind: 'gate-failed'; event: GateFailed }
  | Refusal;

/** What the validator round is to certify, and what of the tenant's state that rests on. */
export interface AdmissionPlan {
  kind: 'needs-certificate';
  request: VoteRequest;
  fields: EnvelopeFields;
  /** The policy in force the gates passed under. */
  policy_hash: string;
  /** The log the envelope is bound to (the tenant's when planned: a tier change since means a new plan). */
  log: string;
  gate_details: EvidenceAdmitted['gate_details'];
}

export interface CertifiedAdmission {
  plan: AdmissionPlan;
  sealed: CertifiedEnvelope;
}

export type EvidenceStep = EvidenceOutcome | AdmissionPlan;

/** Steps 1 and 3 (see the top of this file): synchronous, no I/O. */
export function decideSubmitEvidence(
  state: TenantState,
  body: SubmitEvidenceBody,
  certified: CertifiedAdmission | null,
  context: EvidenceContext,
): TenantDecision<EvidenceStep> {
  const refusal = checkAllowance(state, context.now) ?? checkSubject(state, body.subject_id);
  if (refusal) return { events: [], result: refusal };
  const subject = subjectOf(state, body.subject_id);
  if (certified && stillHolds(certified.plan, state, subject))
    return admit(state, body, subject, certified, context);

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
      previous_observables: subject.observables,
      lifecycle: after.lifecycle,
      failed_at: at,
    };
    return {
      events: [tenantEvent(state, context, 'GateFailed', event)],
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
  return {
    events: [],
    result: {
      kind: 'needs-certificate',
      request: {
        bundle,
        artifact_hash: artifactHash,
        expected_parent_hash: subject.last_bundle_hash,
        policy,
        now: at,
      },
      fields: {
        bundle_hash: artifactHash,
        payload_uri: context.replayUrl(artifactHash),
        tenant_id: state.tenant_id,
        subject_id: body.subject_id,
        log_binding: context.logBinding(state.log),
        generated_at: at,
      },
      policy_hash: state.policy_in_force.policy_hash,
      log: state.log,
      gate_details: gates.details,
    },
  };
}

/** Step 2: the validator round and the sealed envelope (I/O: the validators may be remote). */
export async function certifyAdmission(
  plan: AdmissionPlan,
  certifiers: Certifiers,
): Promise<CertifiedAdmission> {
  const sealed = certifiers.certify
    ? await certifiers.certify(plan.request, plan.fields)
    : await certifyAndSeal(certifiers.validators, plan.request, plan.fields, certifiers.authority);
  return { plan, sealed };
}

/** The three steps against one state held in memory, as a store-less caller (tests, fixtures) needs them. */
export async function decideWithCertificate(
  state: TenantState,
  body: SubmitEvidenceBody,
  context: AdmissionContext,
): Promise<TenantDecision<EvidenceOutcome>> {
  let certified: CertifiedAdmission | null = null;
  for (;;) {
    const decision = decideSubmitEvidence(state, body, certified, context);
    if (decision.result.kind !== 'needs-certificate') return decision as TenantDecision<EvidenceOutcome>;
    certified = await certifyAdmission(decision.result, context);
  }
}

/** The certificate's bundle still extends the subject's chain, and the gates passed under the policy in force. */
function stillHolds(plan: AdmissionPlan, state: TenantState, subject: SubjectState): boolean {
  return (
    plan.request.expected_parent_hash === subject.last_bundle_hash &&
    plan.policy_hash === state.policy_in_force.policy_hash &&
    plan.fields.tenant_id === state.tenant_id &&
    plan.log === state.log
  );
}

function admit(
  state: TenantState,
  body: SubmitEvidenceBody,
  subject: SubjectState,
  { plan, sealed }: CertifiedAdmission,
  context: EvidenceContext,
): TenantDecision<EvidenceOutcome> {
  const at = plan.fields.generated_at;
  const artifactHash = plan.request.artifact_hash;
  const after = evolveSubject(subject, { kind: 'pass', artifact_hash: artifactHash, at });
  const event: EvidenceAdmitted = {
    tenant_id: state.tenant_id,
    subject_id: body.subject_id,
    artifact_hash: artifactHash,
    leaf_hash: sealed.leafHash,
    bundle: plan.request.bundle,
    certificate: sealed.certificate,
    envelope: sealed.envelope,
    gate_details: plan.gate_details,
    observables: after.observables,
    // What the webhook dispatcher would otherwise keep a copy of per subject and per tenant.
    previous_observables: subject.observables,
    chain_depth: state.evidence_leaves + 1,
    lifecycle: after.lifecycle,
    admitted_at: at,
    ...logMember(state),
    // Which policy the gates passed under, so an audit can re-check them; the default goes unsaid.
    ...(state.policy_in_force.policy_hash !== DEFAULT_POLICY_IN_FORCE.policy_hash && {
      policy: state.policy_in_force.policy,
    }),
  };
  return {
    events: [tenantEvent(state, context, 'EvidenceAdmitted', event)],
    result: { kind: 'admitted', artifact_hash: artifactHash, leaf_hash: sealed.leafHash, log: plan.log },
  };
}

/** Trial cap and window (409), then the daily leaf allowance (429). */
function checkAllowance(state: TenantState, now: Date): Refusal | null {
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

function checkSubject(state: TenantState, subjectId: string): Refusal | null {
  const reason = refusesEvidence(subjectOf(state, subjectId));
  return reason ? { kind: 'refused', status: 409, error: 'SUBJECT_LOCKED', message: reason } : null;
}
