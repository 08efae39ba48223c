import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { TENANT_KEY } from '../../../command-api/governance/tenants/access';
import { callerOf } from '../../../command-api/governance/tenants/auth';
import { policyView } from '../../../domain/governance/policy';
import { tenantPolicy } from '../../../projectors/governance/tenants';
import { invalid, json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';

export const policyReadRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'get',
    path: '/governance/policy',
    // Any valid key reads the policy, one in its grace period after a rotation too.
    access: TENANT_KEY,
    tags: ['account'],
    operationId: 'getTenantPolicy',
    summary: "The tenant's gate policy in force, its version and hash",
    description:
      'Every gate threshold is tenant policy. Until the tenant changes it this is the default, version 1, with updated_at null. Any valid key reads it, one in its grace period after a rotation too. Takes no query parameters.',
    responses: {
      '200': { description: 'The policy in force.', content: json(schema('urn:gov:response:tenant-policy')) },
      '400': invalid('The query has parameters (each one in `fields`, pointer `query/<name>`).'),
    },
    handler: () => getPolicy,
  },
];

function getPolicy(_req: Request, res: Response) {
  res.json(policyView(tenantPolicy(callerOf(res).tenant)));
}
