/**
 * Quota reads: an agent's governed actions today (UTC) against its owner's tier's daily limit
 * (`GET .../quota`, and `GET .../billing`, its alias), and the roll-up across the signed-in user's
 * agents (`GET /v1/billing/tenant-summary`). Limits come from the capability table; use from the
 * quota read model (projectors/platform/quota.ts). These are the platform's own counts: the
 * clearinghouse's trial cap of evidence leaves never sees a platform action.
 */
import type { Request, Response } from 'express';
import { agentAccess, agentOf, callerOf, SESSION } from '../../../command-api/platform/accounts/access';
import { agentIdParameter, ownerTenant } from '../../../command-api/platform/agents/agent-http';
import { requireFeature } from '../../../command-api/platform/quota/feature-gate';
import type { PlatformServices } from '../../../command-api/platform/services';
import { PLATFORM_TIER_LIMITS } from '../../../domain/platform/capabilities';
import {
  PLATFORM_USERS,
  type PlatformUserView,
  platformAccountsProjection,
} from '../../../projectors/platform/accounts';
import { AGENTS, type AgentView } from '../../../projectors/platform/agents';
import {
  AGENT_QUOTA_DAYS,
  type AgentQuotaDayView,
  quotaDayId,
  quotaProjection,
  utcDay,
} from '../../../projectors/platform/quota';
import { json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';
import { all } from '../agents/routes';

/** Where an agent stands today against a daily limit (null: none). */
function standing(used: number, limit: number | null) {
  const remaining = limit === null ? null : Math.max(0, limit - used);
  return { allowed: remaining === null || remaining > 0, remaining, used };
}

/** The next UTC midnight after `now`. */
function nextUtcMidnight(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
}

async function usedToday(services: PlatformServices, agentId: string, day: string): Promise<number> {
  const doc = await services.readModels.get<AgentQuotaDayView>(
    quotaProjection,
    AGENT_QUOTA_DAYS,
    quotaDayId(agentId, day),
  );
  return doc?.data.used ?? 0;
}

async function emailOf(services: PlatformServices, userId: string): Promise<string> {
  const user = await services.readModels.get<PlatformUserView>(
    platformAccountsProjection,
    PLATFORM_USERS,
    userId,
  );
  // An agent's owner signed in before making it.
  if (!user) throw new Error(`the owner ${userId} of an agent is not in the accounts read model`);
  return user.data.email;
}

function agentQuota(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    const { agentId, ownerId, tenantId } = agentOf(res);
    const now = services.clock();
    const { tier } = await ownerTenant(services, tenantId);
    const limit = PLATFORM_TIER_LIMITS[tier].governed_actions_per_day;
    const used = await usedToday(services, agentId, utcDay(now.toISOString()));
    const { allowed, remaining } = standing(used, limit);
    res.json({
      agent_id: agentId,
      email: await emailOf(services, ownerId),
      tier,
      allowed,
      remaining,
      limit,
      used,
      resets_at: nextUtcMidnight(now),
    });
  };
}

const QUOTA_DESCRIPTION =
  "Governed actions of the agent today (UTC) against the owner's tier: `limit` per agent per UTC day (null: none), `used` (every governed action counts, whatever its verdict), `remaining`, `allowed` (whether another action may run today), `resets_at` (the next UTC midnight). Platform actions count here only, never against the clearinghouse's trial cap. Callers: the owner's session, or a key of the agent with scope `agent:read`.";

const quotaRoute = (path: string, operationId: string, summary: string): Route<PlatformServices> => ({
  method: 'get',
  path,
  access: agentAccess('agent:read'),
  params: [agentIdParameter],
  use: requireFeature('quota'),
  tags: ['billing'],
  operationId,
  summary,
  description: QUOTA_DESCRIPTION,
  responses: {
    '200': { description: "The agent's quota today.", content: json(schema('urn:gov:response:agent-quota')) },
  },
  handler: agentQuota,
});

export const quotaReadRoutes: readonly Route<PlatformServices>[] = [
  quotaRoute(
    '/v1/agents/:agentId/quota',
    'getAgentQuota',
    "The agent's governed actions today and its tier's limit",
  ),
  quotaRoute('/v1/agents/:agentId/billing', 'getAgentBilling', 'Alias of GET .../quota'),
  {
    method: 'get',
    path: '/v1/billing/tenant-summary',
    access: SESSION,
    use: requireFeature('quota'),
    tags: ['billing'],
    operationId: 'getTenantBillingSummary',
    summary: "Governed actions today across the user's agents",
    description:
      "For each of the signed-in user's agents (newest first), its governed actions today (UTC) against the tier's per-agent daily limit, and their sum. A signed-in session only (API keys are refused: 403 session_required).",
    responses: {
      '200': {
        description: 'The roll-up.',
        content: json(schema('urn:gov:response:tenant-quota-summary')),
      },
    },
    handler: (services) => async (_req: Request, res: Response) => {
      const caller = callerOf(res);
      if (caller.kind !== 'session') throw new Error('SESSION admits sessions only');
      const now = services.clock();
      const day = utcDay(now.toISOString());
      const { tier } = await ownerTenant(services, caller.tenantId);
      const limit = PLATFORM_TIER_LIMITS[tier].governed_actions_per_day;
      const agents = await all<AgentView>(services, AGENTS, {
        where: { owner_id: caller.userId, deleted: false },
        sort: { field: 'created_at', direction: 'desc' },
      });
      const rows = [];
      let used = 0;
      for (const agent of agents) {
        const today = await usedToday(services, agent.agent_id, day);
        used += today;
        rows.push({ agent_id: agent.agent_id, name: agent.name, ...standing(today, limit) });
      }
      res.json({
        email: caller.email,
        tenant_id: caller.tenantId,
        tier,
        limit_per_agent: limit,
        used,
        agents: rows,
        resets_at: nextUtcMidnight(now),
      });
    },
  },
];
