import { type Request, type Response, Router } from 'express';
import { policyView } from '../../domain/governance/policy';
import type { ChangePolicyBody, SubmitEvidenceBody, SubmitExecutionBody } from '../../event-schemas';
import type { IntegratedLeaf } from '../../ports/log';
import {
  BUNDLES,
  type BundleView,
  governanceProjection,
  LEAVES,
  type StoredLeaf,
} from '../../projectors/governance/governance-projection';
import { sendAnswer } from '../../runtime/http/answer';
import { authenticate, callerOf, requireClosedLoopTier, requireCurrentKey } from '../../runtime/http/auth';
import { sendError } from '../../runtime/http/errors';
import { requireNoBody } from '../../runtime/http/no-body';
import { takesNoQuery } from '../../runtime/http/query';
import { limitRequestRate } from '../../runtime/http/rate-limit';
import { validateBody } from '../../runtime/http/validate-body';
import type { Services } from '../../runtime/wiring/services';
import { admitEvidence, awaitIntegration } from './evidence/admit-evidence';
import {
  decideSubmitExecution,
  type ExecutionOutcome,
  type ParentAuthorization,
} from './execution/submit-execution';
import { decideChangePolicy } from './policy/policy-commands';
import { decideRotateKey } from './tenants/account-commands';
import { tenantStream } from './tenants/tenant-state';

/** The authenticated write side: key rotation, the tenant policy, evidence, executions. */
export function governanceCommandRoutes(services: Services): Router {
  const router = Router();
  // Every route here takes no query parameter.
  const auth = [authenticate(services), limitRequestRate(services), takesNoQuery];
  const manage = [...auth, requireCurrentKey];

  router.post('/api-key/rotate', ...manage, requireNoBody, async (_req: Request, res: Response) => {
    const { tenant, keyId } = callerOf(res);
    const context = { now: services.clock(), correlationId: res.locals.correlationId as string, keyId };
    const rotated = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
      decideRotateKey(state, context),
    );
    if (rotated.kind === 'refused') return sendError(res, rotated.status, rotated.error, rotated.message);
    if (rotated.position !== null) await services.awaitProjections(rotated.position, ['ApiKeyRotated']);
    res.status(200).json({
      api_key: rotated.api_key,
      key_id: rotated.key_id,
      previous_key_id: rotated.previous_key_id,
      previous_key_expires_at: rotated.previous_key_expires_at,
    });
  });

  router.put(
    '/governance/policy',
    ...manage,
    validateBody('change-policy'),
    async (req: Request, res: Response) => {
      const { tenant, keyId } = callerOf(res);
      const context = { now: services.clock(), correlationId: res.locals.correlationId as string, keyId };
      const changed = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
        decideChangePolicy(state, req.body as ChangePolicyBody, context),
      );
      if (changed.kind === 'refused') return sendError(res, changed.status, changed.error, changed.message);
      // Read-your-write: GET /governance/policy answers this version as soon as the caller has it.
      if (changed.position !== null)
        await services.awaitProjections(changed.position, ['TenantPolicyChanged']);
      res.json(policyView(changed));
    },
  );

  router.post(
    '/governance/evidence',
    ...auth,
    validateBody('submit-evidence'),
    async (req: Request, res: Response) => {
      const { tenant } = callerOf(res);
      const body = req.body as SubmitEvidenceBody;
      sendAnswer(res, await admitEvidence(services, tenant, body, res.locals.correlationId as string));
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
      const leaves = await awaitIntegration(
        services,
        outcome,
        outcome.exec_leaf_hash,
        res.locals.correlationId as string,
      );
      if (!Array.isArray(leaves)) return sendAnswer(res, leaves);
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

function refuseExecution(res: Response, refusal: Extract<ExecutionOutcome, { kind: 'refused' }>): void {
  const fields = refusal.pointer ? { fields: [{ pointer: refusal.pointer, reason: refusal.message }] } : {};
  sendError(res, refusal.status, refusal.error, refusal.message, fields);
}

/** The authorization leaf an execution names, with the observables it was admitted under. */
async function findParent(services: Services, leafHash: string): Promise<ParentAuthorization | null> {
  const leaf = await services.readModels.get<StoredLeaf>(governanceProjection, LEAVES, leafHash);
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
