/**
 * What the agents' and keys' routes share, on the command and the read side: the `:agentId`
 * parameter, the owner's tenant (its log and tier), the agent as the API answers it, and how a
 * refusal is answered.
 */
import type { Response } from 'express';
import { tenantLogOf } from '../../../domain/governance/tenant-log';
import { leafHashText } from '../../../domain/platform/ids';
import { TENANTS, type TenantView, tenantsProjection } from '../../../projectors/governance/tenants';
import {
  AGENT_EVENT_TYPES,
  AGENTS,
  type AgentView,
  agentsProjection,
} from '../../../projectors/platform/agents';
import { type PlatformErrorCode, sendPlatformError } from '../../../runtime/http/platform-errors';
import type { PathParameter } from '../../../runtime/http/route-table';
import type { Committed } from '../../engine/aggregate-writer';
import type { RefusalResult } from '../../engine/decider-specification';
import type { PlatformServices } from '../services';

export const agentIdParameter: PathParameter = {
  name: 'agentId',
  description: 'The agent: `svc_` + 26 characters of `a-z2-7`.',
  schema: { type: 'string', pattern: '^svc_[a-z2-7]{26}$' },
};

/** What the owner's tenant decides for its agents: the log their leaves go to, and the tier. */
export interface OwnerTenant {
  log: string;
  tier: TenantView['tier'];
}

/** The owner's tenant as the tenants read model has it (registered at the owner's first sign-in). */
export async function ownerTenant(services: PlatformServices, tenantId: string): Promise<OwnerTenant> {
  const tenant = await services.readModels.get<TenantView>(tenantsProjection, TENANTS, tenantId);
  // Every user's tenant is registered before the user can hold a session or a key.
  if (!tenant) throw new Error(`the tenant ${tenantId} of an agent's owner is not in the tenants read model`);
  return { log: tenantLogOf(tenant.data), tier: tenant.data.tier };
}

/** An agent as the API answers it (response schema `agent`). */
export function agentResource(agent: AgentView, tier: OwnerTenant['tier']) {
  return {
    agent_id: agent.agent_id,
    name: agent.name,
    state: agent.state,
    mode: agent.mode,
    model: agent.model,
    model_provider: agent.model_provider,
    governance_mode: agent.governance_mode,
    tier,
    config_version: agent.config_version,
    passport_id: leafHashText(agent.passport_leaf_hash as string),
    sandbox_session_id: agent.sandbox_session_id,
    created_at: agent.created_at,
    updated_at: agent.updated_at,
  };
}

/** The agent as the read model has it now (after the command's read-your-write), as the API answers it. */
export async function agentAnswer(services: PlatformServices, agentId: string) {
  const agent = await services.readModels.get<AgentView>(agentsProjection, AGENTS, agentId);
  if (!agent) throw new Error(`agent ${agentId} is not in the agents read model`);
  return agentResource(agent.data, (await ownerTenant(services, agent.data.tenant_id)).tier);
}

/** A decider's refusal, in the platform's error shape. */
export function sendRefusal(res: Response, refusal: RefusalResult): void {
  sendPlatformError(res, refusal.status, refusal.error as PlatformErrorCode, refusal.message);
}

/** The outcome's events applied by the agents read model (read-your-write), or the refusal answered (null). */
export async function settled<R extends { kind: string }>(
  services: PlatformServices,
  res: Response,
  outcome: Committed<R>,
): Promise<Committed<Exclude<R, RefusalResult>> | null> {
  if (outcome.kind === 'refused') {
    sendRefusal(res, outcome as unknown as RefusalResult);
    return null;
  }
  if (outcome.position !== null) await services.awaitProjections(outcome.position, AGENT_EVENT_TYPES);
  return outcome as Committed<Exclude<R, RefusalResult>>;
}
