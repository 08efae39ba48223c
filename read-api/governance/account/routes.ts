import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { TENANT_KEY } from '../../../command-api/governance/tenants/access';
import { callerOf } from '../../../command-api/governance/tenants/auth';
import { tenantLogOf } from '../../../domain/governance/tenant-log';
import { logUrlOf } from '../../../domain/log';
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
    const { tenant } = callerOf(res);
    // The log its admissions go to now (earlier ones stay in theirs: the chain says which).
    const log = tenantLogOf(tenant);
    res.json({
      ...accountView(tenant, services.clock()),
      log,
      log_url: logUrlOf(services.config.publicUrl, log),
    });
  };
}
