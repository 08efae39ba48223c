/**
 * The governance service's route table, assembled from its features' tables (each feature's
 * `routes.ts`, in command-api/governance/ and read-api/governance/). The Express routers, request
 * validation and the OpenAPI paths of `GET /openapi.json` are all made from it.
 */
import { evidenceCommandRoutes } from '../../command-api/governance/evidence/routes';
import { executionCommandRoutes } from '../../command-api/governance/execution/routes';
import { policyCommandRoutes } from '../../command-api/governance/policy/routes';
import type { GovernanceServices } from '../../command-api/governance/services';
import { tenantCommandRoutes } from '../../command-api/governance/tenants/routes';
import { webhookCommandRoutes } from '../../command-api/governance/webhooks/routes';
import { witnessCommandRoutes } from '../../command-api/governance/witness/routes';
import { accountReadRoutes } from '../../read-api/governance/account/routes';
import { chainReadRoutes } from '../../read-api/governance/chain/routes';
import { executionReadRoutes } from '../../read-api/governance/execution/routes';
import { logAnchorRoute } from '../../read-api/governance/log/anchor-route';
import { logRouteGroup, logsRouteGroup, verifierKeys } from '../../read-api/governance/log/routes';
import { openApiRoute } from '../../read-api/governance/openapi';
import { policyReadRoutes } from '../../read-api/governance/policy/routes';
import { reportReadRoutes } from '../../read-api/governance/reports/routes';
import { operationsRoutes } from '../../read-api/governance/service/routes';
import { statusReadRoutes } from '../../read-api/governance/status/routes';
import { webhookReadRoutes } from '../../read-api/governance/webhooks/routes';
import type { RouteTable } from '../http/route-table';

export const governanceRoutes: RouteTable<GovernanceServices> = [
  logRouteGroup<GovernanceServices>(verifierKeys),
  logsRouteGroup<GovernanceServices>(verifierKeys, [logAnchorRoute()]),
  {
    mount: '/',
    routes: [
      ...operationsRoutes,
      ...tenantCommandRoutes,
      ...policyCommandRoutes,
      ...evidenceCommandRoutes,
      ...executionCommandRoutes,
      ...webhookCommandRoutes,
      ...witnessCommandRoutes,
      ...accountReadRoutes,
      ...policyReadRoutes,
      ...reportReadRoutes,
      ...chainReadRoutes,
      ...statusReadRoutes,
      ...executionReadRoutes,
      ...webhookReadRoutes,
      openApiRoute(() => governanceRoutes),
    ],
  },
];
