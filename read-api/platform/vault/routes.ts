/** Listing an agent's stored model provider keys: provider, prefix and when, never more. */
import type { Request, Response } from 'express';
import { agentAccess, agentOf } from '../../../command-api/platform/accounts/access';
import { agentIdParameter } from '../../../command-api/platform/agents/agent-http';
import { requireFeature } from '../../../command-api/platform/quota/feature-gate';
import type { PlatformServices } from '../../../command-api/platform/services';
import { VAULT_ENTRIES, type VaultEntryView, vaultProjection } from '../../../projectors/platform/vault';
import { json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';

export const vaultReadRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'get',
    path: '/v1/agents/:agentId/vault',
    access: agentAccess('agent:read'),
    params: [agentIdParameter],
    use: requireFeature('vault'),
    tags: ['keys'],
    operationId: 'listVaultKeys',
    summary: "The agent's stored model provider keys (prefixes only)",
    description:
      "One entry per provider with a stored key, by provider name: `{provider, prefix, stored_at}`, where `prefix` is the key's first 8 characters and an ellipsis. Callers: the owner's session, or a key of the agent with scope `agent:read`.",
    responses: {
      '200': { description: 'The stored keys.', content: json(schema('urn:gov:response:vault-list')) },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      const { agentId } = agentOf(res);
      // Three providers at most.
      const page = await services.readModels.find<VaultEntryView>(vaultProjection, VAULT_ENTRIES, {
        where: { agent_id: agentId },
        sort: { field: 'provider', direction: 'asc' },
        limit: 10,
      });
      res.json({
        agent_id: agentId,
        keys: page.items.map(({ data }) => ({
          provider: data.provider,
          prefix: data.prefix,
          stored_at: data.stored_at,
        })),
      });
    },
  },
];
