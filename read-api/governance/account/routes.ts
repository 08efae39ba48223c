import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { TENANT_KEY } from '../../../command-api/governance/tenants/access';
import { callerOf } from '../../../command-api/governance/tenants/auth';
import { json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';
import { accountView } from './account-view';

export const accountReadRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'get',
    path: '/account',
    access: TENANT_KEY,
    tags: ['account'],
    operationId: 'getAccount',
    summary: 'The tenant, tier, trial status, leaf counts and allowances',
    responses: {
      '200': { description: 'The account.', content: json(schema('urn:gov:response:account')) },
    },
    handler: getAccount,
  },
];

function getAccount(services: GovernanceServices) {
  return (_req: Request, res: Response) => {
    res.json(accountView(callerOf(res).tenant, services.clock()));
  };
}
