/**
 * Reading agents: the caller's list (a browser session only), one agent, its health, its checkpoints
 * and whether its signed configuration chain holds (version-health). From the agents read model.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Request, Response } from 'express';
import { agentAccess, agentOf, callerOf, SESSION } from '../../../command-api/platform/accounts/access';
import {
  agentAnswer,
  agentIdParameter,
  agentResource,
  ownerTenant,
} from '../../../command-api/platform/agents/agent-http';
import { configChainProblems } from '../../../command-api/platform/agents/agent-records';
import type { PlatformServices } from '../../../command-api/platform/services';
import { inOmega, OMEGA } from '../../../domain/governance/observables';
import { QUARANTINE_AFTER_BLOCKS } from '../../../domain/platform/verdict';
import type { FindQuery, Page } from '../../../ports/read-store';
import {
  AGENT_CHECKPOINTS,
  AGENT_CONFIG_VERSIONS,
  AGENTS,
  type AgentView,
  agentsProjection,
  type CheckpointView,
  type ConfigVersionView,
} from '../../../projectors/platform/agents';
import { json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';

/** The scope a key needs to read its agent. */
const AGENT_READ = agentAccess('agent:read');

export const agentReadRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'get',
    path: '/v1/agents',
    access: SESSION,
    tags: ['agents'],
    operationId: 'listAgents',
    summary: "The caller's agents (browser session only)",
    description: 'Newest first; deleted agents are left out. An API key is refused (403 session_required).',
    responses: {
      '200': { description: 'The agents.', content: json(schema('urn:gov:response:agent-list')) },
    },
    handler: listAgents,
  },
  {
    method: 'get',
    path: '/v1/agents/:agentId',
    access: AGENT_READ,
    params: [agentIdParameter],
    tags: ['agents'],
    operationId: 'getAgent',
    summary: 'An agent',
    responses: { '200': { description: 'The agent.', content: json(schema('urn:gov:response:agent')) } },
    handler: getAgent,
  },
  {
    method: 'get',
    path: '/v1/agents/:agentId/health',
    access: AGENT_READ,
    params: [agentIdParameter],
    tags: ['agents'],
    operationId: 'getAgentHealth',
    summary: "An agent's state, queue depth and last activity",
    description:
      'The queue depth is 0 for now: agents have no work queues yet (chat, heartbeats and tasks come with later features).',
    responses: {
      '200': { description: "The agent's health.", content: json(schema('urn:gov:response:agent-health')) },
    },
    handler: agentHealth,
  },
  {
    method: 'get',
    path: '/v1/agents/:agentId/checkpoints',
    access: AGENT_READ,
    params: [agentIdParameter],
    tags: ['agents'],
    operationId: 'listAgentCheckpoints',
    summary: "An agent's checkpoints, newest first",
    responses: {
      '200': { description: 'The checkpoints.', content: json(schema('urn:gov:response:agent-checkpoints')) },
    },
    handler: listCheckpoints,
  },
  {
    method: 'get',
    path: '/v1/agents/:agentId/version-health',
    access: AGENT_READ,
    params: [agentIdParameter],
    tags: ['agents'],
    operationId: 'getAgentVersionHealth',
    summary: "Whether an agent's signed configuration holds: good, degraded or unsafe",
    description:
      "`unsafe` when the chain of signed config versions does not verify (a record that does not hash to its leaf hash, a signature that does not verify with the node's keys, a commitment that does not match the config, or a version not linked to the one before), or when the agent is in QUARANTINE (three blocked actions in a row). `degraded` when its observables H, C, E (nudged by every governed action's gates) are outside the healthy region Ω: H ≥ 0.40, C ≥ 0.40, E ≤ 0.60. A failing model provider will degrade it too once agents call providers (a later release). Otherwise `good`. `reasons` says why; `lifecycle` and `observables` are the agent's governance record.",
    responses: {
      '200': {
        description: 'The verdict and its reasons.',
        content: json(schema('urn:gov:response:agent-version-health')),
      },
    },
    handler: versionHealth,
  },
];

function listAgents(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    const caller = callerOf(res);
    const agents = await all<AgentView>(services, AGENTS, {
      where: { owner_id: caller.userId, deleted: false },
      sort: { field: 'created_at', direction: 'desc' },
    });
    const { tier } = await ownerTenant(services, caller.tenantId);
    res.json({ agents: agents.map((agent) => agentResource(agent, tier)) });
  };
}

function getAgent(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    res.json(await agentAnswer(services, agentOf(res).agentId));
  };
}

function agentHealth(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    const agent = await services.readModels.get<AgentView>(agentsProjection, AGENTS, agentOf(res).agentId);
    if (!agent) throw new Error('an admitted agent is not in the agents read model');
    const { agent_id, state, mode, sandbox_session_id, last_activity_at } = agent.data;
    res.json({ agent_id, state, mode, queue_depth: 0, sandbox_session_id, last_activity_at });
  };
}

function listCheckpoints(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    const { agentId } = agentOf(res);
    const checkpoints = await all<CheckpointView>(services, AGENT_CHECKPOINTS, {
      where: { agent_id: agentId },
      sort: { field: 'created_at', direction: 'desc' },
    });
    res.json({ agent_id: agentId, checkpoints: checkpoints.map(({ agent_id: _agent, ...view }) => view) });
  };
}

function versionHealth(services: PlatformServices) {
  // The node's signing keys, current and retired: a version signed before a key rotation still verifies.
  const nodeKeys: KeyObject[] = services.publishedKeys.authority.map((key) =>
    createPublicKey({ key: Buffer.from(key.public_key, 'base64'), format: 'der', type: 'spki' }),
  );
  return async (_req: Request, res: Response) => {
    const { agentId } = agentOf(res);
    const [versions, agent] = await Promise.all([
      all<ConfigVersionView>(services, AGENT_CONFIG_VERSIONS, {
        where: { agent_id: agentId },
        sort: { field: 'version', direction: 'asc' },
      }),
      services.readModels.get<AgentView>(agentsProjection, AGENTS, agentId),
    ]);
    if (!agent) throw new Error('an admitted agent is not in the agents read model');
    const { lifecycle, observables, consecutive_blocks, quarantined_at } = agent.data.governance;
    const chain = configChainProblems(versions, nodeKeys);
    const unsafe = [...chain];
    if (lifecycle === 'QUARANTINE')
      unsafe.push(
        `the agent is in QUARANTINE since ${quarantined_at} (${QUARANTINE_AFTER_BLOCKS} blocked actions in a row; ${consecutive_blocks} since the last admitted one); its owner acknowledges the quarantine in review`,
      );
    const outside = inOmega(observables)
      ? []
      : [
          `its observables are outside the healthy region Ω (H ≥ ${OMEGA.min_H}, C ≥ ${OMEGA.min_C}, E ≤ ${OMEGA.max_E}): H ${observables.H}, C ${observables.C}, E ${observables.E}, after the gates its actions failed`,
        ];
    const checked = `the ${versions.length} signed config version${versions.length === 1 ? '' : 's'} verify: each record hashes to its leaf hash, is signed by the node, commits to its config and links to the version before`;
    res.json({
      agent_id: agentId,
      status: unsafe.length > 0 ? 'unsafe' : outside.length > 0 ? 'degraded' : 'good',
      reasons:
        unsafe.length > 0
          ? [...unsafe, ...outside]
          : outside.length > 0
            ? [...outside, ...(chain.length === 0 ? [checked] : [])]
            : [
                checked,
                `the agent is ${lifecycle} and its observables are inside Ω: H ${observables.H}, C ${observables.C}, E ${observables.E}`,
              ],
      config_version: versions.at(-1)?.version ?? 0,
      lifecycle,
      observables,
    });
  };
}

/** Every document matching `query`, page after page. */
export async function all<T>(
  services: PlatformServices,
  collection: string,
  query: Omit<FindQuery, 'limit' | 'cursor'>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await services.readModels.find<T>(agentsProjection, collection, {
      ...query,
      limit: 1000,
      cursor,
    });
    out.push(...page.items.map((item) => item.data));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
