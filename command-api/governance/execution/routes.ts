import type { Request, Response } from 'express';
import type { SubmitExecutionBody } from '../../../event-schemas';
import type { IntegratedLeaf } from '../../../ports/log';
import {
  BUNDLES,
  type BundleView,
  governanceProjection,
  LEAVES,
  type StoredLeaf,
} from '../../../projectors/governance/governance-projection';
import { sendAnswer } from '../../../runtime/http/answer';
import { sendError } from '../../../runtime/http/errors';
import { errorResponse, invalid, json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';
import { awaitIntegration } from '../evidence/admit-evidence';
import { notYetSigned } from '../evidence/routes';
import type { GovernanceServices } from '../services';
import { CLOSED_LOOP_TIER } from '../tenants/access';
import { callerOf } from '../tenants/auth';
import { tenantStream } from '../tenants/tenant-state';
import { decideSubmitExecution, type ExecutionOutcome, type ParentAuthorization } from './submit-execution';

export const executionCommandRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'post',
    path: '/governance/execution',
    access: CLOSED_LOOP_TIER,
    body: { command: 'submit-execution', description: 'The execution trace.' },
    tags: ['closed-loop'],
    operationId: 'submitExecution',
    summary: 'Submit the execution trace of an authorized action (L2 and above)',
    description:
      'Records what happened when the action authorized by parent_auth_leaf_hash ran, computes the variance between the observables at authorization and at execution, and admits both records as leaves.',
    responses: {
      '201': {
        description:
          'The execution and variance leaves, the variance record and a signed tree head covering both.',
        content: json(schema('urn:gov:response:execution-admitted')),
      },
      '400': invalid(
        "The body is not JSON or does not match the schema, or subject_id is not the authorization's subject (pointer `/subject_id`).",
      ),
      '409': errorResponse(
        'CONFLICT (beyond the spec): the authorization already has its execution; each authorization is executed once.',
        ['CONFLICT'],
      ),
      '422': errorResponse(
        "PARENT_AUTH_NOT_FOUND: parent_auth_leaf_hash is not an authorization leaf of this tenant (another tenant's leaf answers the same).",
        ['PARENT_AUTH_NOT_FOUND'],
      ),
      '503': notYetSigned('the leaves are'),
    },
    handler: submitExecution,
  },
];

function submitExecution(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
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
      outcome.log,
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
      log: outcome.log,
      sth: { log: outcome.log, ...variance.head.sth },
    });
  };
}

function refuseExecution(res: Response, refusal: Extract<ExecutionOutcome, { kind: 'refused' }>): void {
  const fields = refusal.pointer ? { fields: [{ pointer: refusal.pointer, reason: refusal.message }] } : {};
  sendError(res, refusal.status, refusal.error, refusal.message, fields);
}

/** The authorization leaf an execution names, with the observables it was admitted under. */
async function findParent(
  services: GovernanceServices,
  leafHash: string,
): Promise<ParentAuthorization | null> {
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
