/**
 * `POST /governance/evidence` once the caller is known and the body valid: decide on the tenant's
 * aggregate, then wait for the leaf's signed tree head. The answer is data (`HttpAnswer`): the Express
 * route and the fast path that answers before Express write the same one.
 */
import { QuorumNotReachedError, ValidatorNetworkError } from '../../../domain/governance/validators';
import { logUrlOf } from '../../../domain/log';
import type { SubmitEvidenceBody } from '../../../event-schemas';
import type { IntegratedLeaf } from '../../../ports/log';
import type { TenantView } from '../../../projectors/governance/tenants';
import { GOVERNANCE_ADMISSION_EVENT_TYPES } from '../../../projectors/log/log-sequencer';
import type { HttpAnswer } from '../../../runtime/http/answer';
import { errorAnswer } from '../../../runtime/http/errors';
import type { AggregateWriter, Committed } from '../../engine/aggregate-writer';
import type { GovernanceServices } from '../services';
import { type TenantEvent, type TenantState, tenantStream } from '../tenants/tenant-state';
import {
  type AdmissionContext,
  type CertifiedAdmission,
  certifyAdmission,
  decideSubmitEvidence,
  type EvidenceOutcome,
  type EvidenceStep,
  type Refusal,
  UnknownLogError,
} from './submit-evidence';

export async function admitEvidence(
  services: GovernanceServices,
  tenant: Pick<TenantView, 'tenant_id'>,
  body: SubmitEvidenceBody,
  correlationId: string,
): Promise<HttpAnswer> {
  const { admission, config } = services;
  let outcome: Committed<EvidenceOutcome>;
  try {
    outcome = await submitEvidence(services.tenants, tenantStream(tenant.tenant_id), body, {
      now: services.clock(),
      correlationId,
      validators: admission.validators,
      authority: admission.authority,
      ...(admission.certify ? { certify: admission.certify } : {}),
      logBinding: admission.logBinding,
      learnLogs: admission.learnLogs,
      replayUrl: (artifactHash) => `${config.publicUrl}/governance/replay/${artifactHash}`,
    });
  } catch (error) {
    return validatorFailureAnswer(error, correlationId);
  }
  if (outcome.kind === 'refused') return refusalAnswer(outcome, correlationId);
  if (outcome.kind === 'gate-failed') {
    const { event } = outcome;
    if (outcome.position !== null) await services.readYourWrite(outcome.position, ['GateFailed']);
    return {
      status: 422,
      body: {
        error: event.error,
        message: `evidence rejected by ${event.gates_failed.join(', ')}; the action is blocked`,
        gates_failed: event.gates_failed,
        details: event.details,
        action: event.action,
        correlation_id: correlationId,
      },
    };
  }
  const leaves = await awaitIntegration(services, outcome, outcome.leaf_hash, correlationId, outcome.log);
  if (!Array.isArray(leaves)) return leaves;
  return {
    status: 201,
    body: {
      leaf_index: leaves[0]!.leafIndex,
      leaf_hash: outcome.leaf_hash,
      artifact_hash: outcome.artifact_hash,
      compliance_url: `${config.publicUrl}/governance/report/${outcome.artifact_hash}`,
      replay_url: `${config.publicUrl}/governance/replay/${outcome.artifact_hash}`,
      log: outcome.log,
      sth: { log: outcome.log, ...leaves[0]!.head.sth },
    },
  };
}

/**
 * Plan → certify → decide (./submit-evidence.ts). The plan is made on the newest state the writer
 * knows and the validator round runs outside the tenant's queue, so a slow or remote validator holds
 * up no other command of the tenant; only the decision, which takes no I/O, waits in the queue.
 */
export async function submitEvidence(
  tenants: AggregateWriter<TenantState, TenantEvent>,
  stream: string,
  body: SubmitEvidenceBody,
  context: AdmissionContext,
): Promise<Committed<EvidenceOutcome>> {
  let step: EvidenceStep = (
    await knowingTheLog(context, async () =>
      decideSubmitEvidence(await tenants.state(stream), body, null, context),
    )
  ).result;
  let certified: CertifiedAdmission | null = null;
  for (;;) {
    if (step.kind === 'needs-certificate') certified = await certifyAdmission(step, context);
    const decided = certified;
    const outcome = await knowingTheLog(context, () =>
      tenants.execute(stream, (state) => decideSubmitEvidence(state, body, decided, context)),
    );
    // The chain, the policy or the tenant's log moved between the plan and the decision: certify the new plan.
    if (outcome.kind !== 'needs-certificate') return outcome as Committed<EvidenceOutcome>;
    step = outcome;
  }
}

/**
 * Runs `decide` again once, after learning the logs, when it named a log this process does not know yet
 * (a dedicated log created by another process a moment ago).
 */
async function knowingTheLog<T>(
  context: Pick<AdmissionContext, 'learnLogs'>,
  decide: () => Promise<T>,
): Promise<T> {
  try {
    return await decide();
  } catch (error) {
    if (!(error instanceof UnknownLogError) || !context.learnLogs) throw error;
    await context.learnLogs();
    return decide();
  }
}

/**
 * Waits until the decision's leaves are under a signed tree head, with read-your-write for the read
 * models (`GovernanceServices.readYourWrite`). Answers 503 instead if that takes unreasonably long.
 */
export async function awaitIntegration(
  services: GovernanceServices,
  committed: Committed<unknown>,
  leafHash: string,
  correlationId: string,
  /** The log the leaves went to. */
  log: string,
): Promise<IntegratedLeaf[] | HttpAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), services.config.integrationTimeoutMs);
  });
  let signed = false;
  const leavesSigned = Promise.all(committed.eventIds.map((id) => services.awaitLeaf(id, log))).then(
    (leaves) => {
      signed = true;
      return leaves;
    },
  );
  const done = Promise.all([
    leavesSigned,
    committed.position === null
      ? undefined
      : services.readYourWrite(committed.position, GOVERNANCE_ADMISSION_EVENT_TYPES),
  ]).then(([leaves]) => leaves);
  const leaves = await Promise.race([done, timeout]);
  clearTimeout(timer);
  if (leaves) return leaves;
  // Say which part is late: the sequencer (no signed head yet) or only the read models.
  const proof = `GET ${new URL(logUrlOf(services.config.publicUrl, log)).pathname}/proof?leaf_hash=${leafHash}`;
  return errorAnswer(
    503,
    'SERVICE_UNAVAILABLE',
    signed
      ? `the leaf ${leafHash} is stored and under a signed tree head, but the read models (chain, status, report) have not caught up yet; the proof is at ${proof}, and the report will follow shortly: do not resubmit`
      : `the leaf ${leafHash} is stored but not yet under a signed tree head; check ${proof} before retrying`,
    correlationId,
  );
}

function refusalAnswer(refusal: Refusal, correlationId: string): HttpAnswer {
  const headers =
    refusal.retryAfterSeconds === undefined
      ? undefined
      : { 'Retry-After': String(refusal.retryAfterSeconds) };
  return errorAnswer(refusal.status, refusal.error, refusal.message, correlationId, {}, headers);
}

/** The validator round failing is the spec's 500: nothing was appended, the caller may retry. */
function validatorFailureAnswer(error: unknown, correlationId: string): HttpAnswer {
  if (error instanceof ValidatorNetworkError || error instanceof QuorumNotReachedError)
    return errorAnswer(
      500,
      'INTERNAL_ERROR',
      `the validator round failed (${error.message}); nothing was admitted, retry with exponential backoff`,
      correlationId,
    );
  throw error;
}
