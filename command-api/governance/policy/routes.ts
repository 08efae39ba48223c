import type { Request, Response } from 'express';
import { policyView } from '../../../domain/governance/policy';
import type { ChangePolicyBody } from '../../../event-schemas';
import { sendError } from '../../../runtime/http/errors';
import { invalid, json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';
import type { GovernanceServices } from '../services';
import { CURRENT_KEY } from '../tenants/access';
import { callerOf } from '../tenants/auth';
import { tenantStream } from '../tenants/tenant-state';
import { decideChangePolicy } from './policy-commands';

export const policyCommandRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'put',
    path: '/governance/policy',
    access: CURRENT_KEY,
    body: { command: 'change-policy', description: 'The new policy, every member given.' },
    tags: ['account'],
    operationId: 'changeTenantPolicy',
    summary: "Replace the tenant's gate policy (a new version)",
    description:
      'The body is the whole policy. It applies to the submissions decided after it; admitted evidence, its reports and proofs are never evaluated again. Sending the policy in force again changes nothing and answers its version. Only the current key changes the policy.',
    responses: {
      '200': {
        description: 'The policy now in force, with its version.',
        content: json(schema('urn:gov:response:tenant-policy')),
      },
      '400': invalid(
        'The body is not JSON or does not match the schema: a member missing, unknown or out of bounds (each one in `fields`).',
      ),
    },
    handler: changePolicy,
  },
];

function changePolicy(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
    const { tenant, keyId } = callerOf(res);
    const context = { now: services.clock(), correlationId: res.locals.correlationId as string, keyId };
    const changed = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
      decideChangePolicy(state, req.body as ChangePolicyBody, context),
    );
    if (changed.kind === 'refused') return sendError(res, changed.status, changed.error, changed.message);
    // Read-your-write: GET /governance/policy answers this version as soon as the caller has it.
    if (changed.position !== null) await services.awaitProjections(changed.position, ['TenantPolicyChanged']);
    res.json(policyView(changed));
  };
}
