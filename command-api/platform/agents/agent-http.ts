/**
 * What the agents' and keys' routes share, on the command and the read side: the `:agentId`
 * parameter, the owner's tenant (its log and tier), the agent as the API answers it, and how a
 * refusal is answered.
 */
import type { Response } from 'express';
import { tenantLogOf } from '../../../domain/governance/tenant-log';
import { leafHashText } from '../../../domain/platform/ids';
import type { IntegratedLeaf, LogName } from '../../../ports/log';
import { TENANTS, type TenantView, tenantsProjection } from '../../../projectors/governance/tenants';
import { PLATFORM_LEAF_EVENT_TYPES } from '../../../projectors/log/log-sequencer';
import {
  AGENT_EVENT_TYPES,
  AGENTS,
  type AgentView,
  agentsProjection,
} from '../../../projectors/platform/agents';
import { sendPlatformError } from '../../../runtime/http/platform-errors';
import type { PathParameter } from '../../../runtime/http/route-table';
import type { Committed } from '../../engine/aggregate-writer';
import type { RefusalResult } from '../../engine/decider-specification';
import { type Refusal, sendRefusal } from '../refusal';
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

const OWNER_TTL_MS = 1000;
const OWNER_MAX = 10_000;
const remembered = new WeakMap<PlatformServices, Map<string, { tenant: OwnerTenant; at: number }>>();

/**
 * The owner's tenant as the tenants read model has it (registered at the owner's first sign-in),
 * remembered for a second: every governed action and most agent routes ask, so the read store is not
 * read per request, and a tier or log change (an operator's command) reaches every caller within that
 * second. A hit costs a Map lookup.
 */
export async function ownerTenant(services: PlatformServices, tenantId: string): Promise<OwnerTenant> {
  let cache = remembered.get(services);
  if (!cache) {
    cache = new Map();
    remembered.set(services, cache);
  }
  const now = performance.now();
  const hit = cache.get(tenantId);
  if (hit && now - hit.at < OWNER_TTL_MS) return hit.tenant;
  const view = await services.readModels.get<TenantView>(tenantsProjection, TENANTS, tenantId);
  // Every user's tenant is registered before the user can hold a session or a key.
  if (!view) throw new Error(`the tenant ${tenantId} of an agent's owner is not in the tenants read model`);
  const tenant = { log: tenantLogOf(view.data), tier: view.data.tier };
  if (cache.size >= OWNER_MAX) cache.clear();
  cache.set(tenantId, { tenant, at: now });
  return tenant;
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

/**
 * Event types only the agents read model reads. A wait names the types just appended, and each read
 * model reading one of them is waited for; the governance read model reads the leaf events among
 * AGENT_EVENT_TYPES, but never sees, so never passes, a position holding another agent event.
 */
const AGENTS_READ_MODEL_ONLY = AGENT_EVENT_TYPES.filter(
  (type) => !(PLATFORM_LEAF_EVENT_TYPES as readonly string[]).includes(type),
);

/** The leaf events an agent command appends (config versions and the passport). */
const AGENT_LEAF_EVENT_TYPES = ['AgentConfigVersioned', 'AgentPassportIssued'] as const;

/** The outcome's events applied by the agents read model (read-your-write), or the refusal answered (null). */
export async function settled<R extends { kind: string }>(
  services: PlatformServices,
  res: Response,
  outcome: Committed<R>,
): Promise<Committed<Exclude<R, RefusalResult>> | null> {
  if (outcome.kind === 'refused') {
    sendRefusal(res, outcome as unknown as Refusal);
    return null;
  }
  if (outcome.position !== null) await services.awaitProjections(outcome.position, AGENTS_READ_MODEL_ONLY);
  return outcome as Committed<Exclude<R, RefusalResult>>;
}

/**
 * The leaves of `eventIds` (leaf events just appended to `log`) under a signed tree head of that log,
 * in order; null when that takes longer than the integration timeout (GOV_INTEGRATION_TIMEOUT_MS).
 */
export async function leavesSigned(
  services: PlatformServices,
  eventIds: readonly string[],
  log: LogName,
): Promise<IntegratedLeaf[] | null> {
  if (eventIds.length === 0) return [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), services.config.integrationTimeoutMs);
  });
  const leaves = await Promise.race([
    Promise.all(eventIds.map((id) => services.awaitLeaf(id, log))),
    timeout,
  ]);
  clearTimeout(timer);
  return leaves;
}

/**
 * Waits until the leaves of a command's events are under a signed tree head, so what the answer names
 * (a passport_id, a config version) is provable at once; answers 503 and returns false when the log's
 * sequencer is late.
 */
export async function awaitLeavesOrAnswer(
  services: PlatformServices,
  res: Response,
  eventIds: readonly string[],
  log: LogName,
): Promise<boolean> {
  const leaves = await leavesSigned(services, eventIds, log);
  if (leaves !== null) {
    // A proof asked right after the answer finds the leaves in the leaves read model: waited for at
    // the leaves' own positions, which the read models of leaves pass (a command's last event may be
    // of a type they never see).
    if (leaves.length > 0)
      await services.readYourWrite(Math.max(...leaves.map((leaf) => leaf.position)), AGENT_LEAF_EVENT_TYPES);
    return true;
  }
  sendPlatformError(
    res,
    503,
    'service_unavailable',
    'The change is stored, but its leaf is not yet under a signed tree head of the log: read the agent again in a moment rather than repeating the change.',
  );
  return false;
}
