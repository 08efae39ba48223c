/**
 * The agent platform's route table, assembled from its features' tables (each feature's `routes.ts`,
 * in command-api/platform/ and read-api/platform/). Its Express routers, request validation and the
 * OpenAPI paths of its `GET /openapi.json` are all made from it.
 */
import { accountCommandRoutes } from '../../command-api/platform/accounts/routes';
import { actionCommandRoutes } from '../../command-api/platform/actions/routes';
import { agentCommandRoutes } from '../../command-api/platform/agents/routes';
import { apiKeyCommandRoutes } from '../../command-api/platform/api-keys/routes';
import type { PlatformServices } from '../../command-api/platform/services';
import { vaultCommandRoutes } from '../../command-api/platform/vault/routes';
import { accountReadRoutes } from '../../read-api/platform/accounts/routes';
import { agentReadRoutes } from '../../read-api/platform/agents/routes';
import { apiKeyReadRoutes } from '../../read-api/platform/api-keys/routes';
import { eventLogReadRoutes } from '../../read-api/platform/event-log/routes';
import { platformOpenApiRoute } from '../../read-api/platform/openapi';
import { proofReadRoutes } from '../../read-api/platform/proofs/routes';
import { quotaReadRoutes } from '../../read-api/platform/quota/routes';
import { platformServiceRoutes } from '../../read-api/platform/service/routes';
import { vaultReadRoutes } from '../../read-api/platform/vault/routes';
import type { RouteTable } from '../http/route-table';

export const platformRoutes: RouteTable<PlatformServices> = [
  {
    mount: '/',
    routes: [
      ...platformServiceRoutes,
      ...accountCommandRoutes,
      ...accountReadRoutes,
      ...agentReadRoutes,
      ...agentCommandRoutes,
      ...apiKeyReadRoutes,
      ...apiKeyCommandRoutes,
      ...vaultReadRoutes,
      ...vaultCommandRoutes,
      ...quotaReadRoutes,
      ...eventLogReadRoutes,
      ...actionCommandRoutes,
      ...proofReadRoutes,
      platformOpenApiRoute(() => platformRoutes),
    ],
  },
];
