import { type Request, type Response, Router } from 'express';
import { QuorumNotReachedError, ValidatorNetworkError } from '../domain/validators';
import type { SubmitEvidenceBody, SubmitExecutionBody } from '../event-schemas';
import { BUNDLES, type BundleView, governanceProjection, LEAVES } from '../projectors/governance';
import { ADMISSION_EVENT_TYPES, type IntegratedLeaf } from '../projectors/log-sequencer';
import type { LeafView } from '../read-api/published-log';
import { authenticate, callerOf, requireClosedLoopTier } from '../runtime/http/auth';
import { sendError } from '../runtime/http/errors';
import { requireNoBody } from '../runtime/http/no-body';
import { limitRequestRate } from '../runtime/http/rate-limit';
import { validateBody } from '../runtime/http/validate-body';
import type { Services } from '../runtime/services';
import { decideRotateKey } from './account-commands';
import type { Committed } from './aggregate-writer';
import { decideSubmitEvidence, type Refusal } from './submit-evidence';
import { decideSubmitExecution, type ExecutionOutcome, type ParentAuthorization } from './submit-execution';
import { tenantStream } from './tenant-state';

/** The authenticated write side: key rotation, evidence, executions. */
export function governanceCommandRoutes(services: Services): Router {
  const router = Router();
  const auth = [authenticate(services), limitRequestRate(services)];

  router.post('/api-key/rotate', ...auth, requireNoBody, async (_req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const context = { now: services.clock(), correlationId: res.locals.correlationId as string };
    const rotated = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
      decideRotateKey(state, context),
    );
    if (rotated.position !== null) await services.awaitProjections(rotated.position, ['ApiKeyRotated']);
    res.status(200).json({
      api_key: rotated.api_key,
      key_id: rotated.key_id,
      previous_key_id: rotated.previous_key_id,
      previous_key_expires_at: rotated.previous_key_expires_at,
    });
  });

  router.post(
    '/governance/evidence',
    ...auth,
    validateBody('submit-evidence'),
    async (req: Request, res: Response) => {
      const { tenant } = callerOf(res);
      const { admission, config } = services;
      const outcome = await services.tenants
        .execute(tenantStream(tenant.tenant_id), (state) =>
          decideSubmitEvidence(state, req.body as SubmitEvidenceBody, {
            now: services.clock(),
            correlationId: res.locals.correlationId as string,
            validators: admission.validators,
            authority: admission.authority,
            ...(admission.certify ? { certify: admission.certify } : {}),
            logBinding: admission.logBinding,
            replayUrl: (artifactHash) => `${config.publicUrl}/governance/replay/${artifactHash}`,
          }),
        )
        .catch(validatorFailure(res));
      if (!outcome) return;
      if (outcome.kind === 'refused') return refuse(res, outcome);
      if (outcome.kind === 'gate-failed') {
        const { event } = outcome;
        if (outcome.position !== null) await services.awaitProjections(outcome.position, ['GateFailed']);
        res.status(422).json({
          error: event.error,
          message: `evidence rejected by ${event.gates_failed.join(', ')}; the action is blocked`,
          gates_failed: event.gates_failed,
          details: event.details,
          action: event.action,
          correlation_id: res.locals.correlationId,
        });
        return;
      }
      const leaf = await integrated(services, res, outcome, outcome.leaf_hash);
      if (!leaf) return;
      res.status(201).json({
        leaf_index: leaf[0]!.leafIndex,
        leaf_hash: outcome.leaf_hash,
        artifact_hash: outcome.artifact_hash,
        compliance_url: `${config.publicUrl}/governance/report/${outcome.artifact_hash}`,
        replay_url: `${config.publicUrl}/governance/replay/${outcome.artifact_hash}`,
        sth: leaf[0]!.head.sth,
      });
    },
  );

  router.post(
    '/governance/execution',
    ...auth,
    requireClosedLoopTier,
    validateBody('submit-execution'),
    async (req: Request, res: Response) => {
      const { tenant } = callerOf(res);
      const body = req.body as SubmitExecutionBody;
      const parent = await findParent(services, body.parent_auth_leaf_hash);
      const context = { now: services.clock(), correlationId: res.locals.correlationId as string };
      const outcome = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
        decideSubmitExecution(state, body, parent, context),
      );
      if (outcome.kind === 'refused') return refuseExecution(res, outcome);
      const leaves = await integrated(services, res, outcome, outcome.exec_leaf_hash);
      if (!leaves) return;
      const [exec, variance] = leaves as [IntegratedLeaf, IntegratedLeaf];
      res.status(201).json({
        exec_leaf_hash: outcome.exec_leaf_hash,
        exec_leaf_index: exec.leafIndex,
        variance_leaf_hash: outcome.variance_leaf_hash,
        variance_leaf_index: variance.leafIndex,
        variance: outcome.variance,
        variance_url: `${services.config.publicUrl}/governance/variance/${body.parent_auth_leaf_hash}`,
        triple_leaf_url: `${services.config.publicUrl}/governance/triple-leaf/${body.parent_auth_leaf_hash}`,
        sth: variance.head.sth,
      });
    },
  );

  return router;
}

/**
 * Read-your-write: waits until the decision's leaves are under a signed tree head and the read models
 * have applied them. Answers 503 (and returns null) if that takes unreasonably long.
 */
async function integrated(
  services: Services,
  res: Response,
  committed: Committed<unknown>,
  leafHash: string,
): Promise<IntegratedLeaf[] | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), services.config.integrationTimeoutMs);
  });
  let signed = false;
  const leavesSigned = Promise.all(committed.eventIds.map((id) => services.awaitLeaf(id))).then((leaves) => {
    signed = true;
    return leaves;
  });
  const done = Promise.all([
    leavesSigned,
    committed.position === null
      ? undefined
      : services.awaitProjections(committed.position, ADMISSION_EVENT_TYPES),
  ]).then(([leaves]) => leaves);
  const leaves = await Promise.race([done, timeout]);
  clearTimeout(timer);
  if (!leaves) {
    // Say which part is late: the sequencer (no signed head yet) or only the read models.
    sendError(
      res,
      503,
      'SERVICE_UNAVAILABLE',
      signed
        ? `the leaf ${leafHash} is stored and under a signed tree head, but the read models (chain, status, report) have not caught up yet; the proof is at GET /gov/v1/log/proof?leaf_hash=${leafHash}, and the report will follow shortly: do not resubmit`
        : `the leaf ${leafHash} is stored but not yet under a signed tree head; check GET /gov/v1/log/proof?leaf_hash=${leafHash} before retrying`,
    );
  }
  return leaves;
}

function refuse(res: Response, refusal: Refusal): void {
  if (refusal.retryAfterSeconds !== undefined)
    res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
  sendError(res, refusal.status, refusal.error, refusal.message);
}

function refuseExecution(res: Response, refusal: Extract<ExecutionOutcome, { kind: 'refused' }>): void {
  const fields = refusal.pointer ? { fields: [{ pointer: refusal.pointer, reason: refusal.message }] } : {};
  sendError(res, refusal.status, refusal.error, refusal.message, fields);
}

/** The validator round failing is the spec's 500: nothing was appended, the caller may retry. */
function validatorFailure(res: Response) {
  return (error: unknown): null => {
    if (error instanceof ValidatorNetworkError || error instanceof QuorumNotReachedError) {
      sendError(
        res,
        500,
        'INTERNAL_ERROR',
        `the validator round failed (${error.message}); nothing was admitted, retry with exponential backoff`,
      );
      return null;
    }
    throw error;
  };
}

/** The authorization leaf an execution names, with the observables it was admitted under. */
async function findParent(services: Services, leafHash: string): Promise<ParentAuthorization | null> {
  const leaf = await services.readModels.get<LeafView>(governanceProjection, LEAVES, leafHash);
  if (leaf?.data.leaf_type !== 'GOV_GOVERNANCE_ENVELOPE_V1' || !leaf.data.artifact_hash) return null;
  const bundle = await services.readModels.get<BundleView>(
    governanceProjection,
    BUNDLES,
    leaf.data.artifact_hash,
  );
  if (!bundle) return null;
  return {
    tenant_id: bundle.data.tenant_id,
    subject_id: bundle.data.subject_id,
    leaf_hash: leafHash,
    auth_state: bundle.data.observables,
  };
}
