/** Listing an agent's API keys: prefixes only, never a key or its hash. The owner's session only. */
import type { Request, Response } from 'express';
import { agentOf } from '../../../command-api/platform/accounts/access';
import { agentIdParameter } from '../../../command-api/platform/agents/agent-http';
import { OWNER_SESSION } from '../../../command-api/platform/api-keys/routes';
import type { PlatformServices } from '../../../command-api/platform/services';
import { AGENT_API_KEYS, type AgentKeyView, agentsProjection } from '../../../projectors/platform/agents';
import { json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';

/** Keys in force per agent are capped (50), so one page holds them all. */
const PAGE = 1000;

export const apiKeyReadRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'get',
    path: '/v1/agents/:agentId/api-keys',
    access: OWNER_SESSION,
    params: [agentIdParameter],
    tags: ['keys'],
    operationId: 'listApiKeys',
    summary: "The agent's API keys in force (prefixes only)",
    description: 'Newest first. Revoked keys are left out.',
    responses: {
      '200': { description: 'The keys.', content: json(schema('urn:gov:response:api-key-list')) },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      const { agentId } = agentOf(res);
      const page = await services.readModels.find<AgentKeyView>(agentsProjection, AGENT_API_KEYS, {
        where: { agent_id: agentId, revoked_at: null },
        sort: { field: 'created_at', direction: 'desc' },
        limit: PAGE,
      });
      res.json({
        agent_id: agentId,
        keys: page.items.map(({ data }) => ({
          key_id: data.key_id,
          name: data.name,
          prefix: data.prefix,
          scopes: data.scopes,
          created_at: data.created_at,
        })),
      });
    },
  },
];
