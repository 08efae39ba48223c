/**
 * The agents' commands: create, change (PATCH, mode, rollback, restore), start, stop, delete. Each is
 * decided against the agent's stream; the answer is read back from the agents read model once it has
 * applied the command's events (read-your-write), so a GET right after it sees the same.
 */
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { newAgentId, newNonce } from '../../../domain/platform/ids';
import type {
  ChangeAgentModeBody,
  CreateAgentBody,
  RestoreAgentBody,
  RollbackAgentBody,
  UpdateAgentBody,
} from '../../../event-schemas';
import {
  AGENT_CHECKPOINTS,
  agentsProjection,
  type CheckpointView,
} from '../../../projectors/platform/agents';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { platformErrorResponse } from '../../../runtime/http/platform-errors';
import type { Access, Route } from '../../../runtime/http/route-table';
import type { Committed } from '../../engine/aggregate-writer';
import type { RefusalResult } from '../../engine/decider-specification';
import { ADMIN, agentAccess, agentOf, callerOf, SESSION } from '../accounts/access';
import type { PlatformServices } from '../services';
import {
  decideChangeMode,
  decideCreateAgent,
  decideDeleteAgent,
  decideRestore,
  decideRollback,
  decideStart,
  decideStop,
  decideUpdateAgent,
  type LeafContext,
} from './agent-commands';
import { agentAnswer, agentIdParameter, awaitLeavesOrAnswer, ownerTenant, settled } from './agent-http';
import { agentStream } from './agent-state';

/** A runtime session id: `sbx_` + 24 hex (96 random bits). */
const newSandboxSessionId = () => `sbx_${randomBytes(12).toString('hex')}`;
const newCheckpointId = () => `chk_${randomBytes(12).toString('hex')}`;

/** The scope a key needs for the agent's lifecycle and configuration commands. */
const AGENT_WRITE = agentAccess('agent:write');

/** The owner's session with the admin role (a key cannot delete its agent). */
const OWNER_ADMIN: Access<PlatformServices> = {
  ...agentAccess(),
  require: ADMIN.require as NonNullable<Access<PlatformServices>['require']>,
  responses: {
    ...agentAccess().responses,
    '403': platformErrorResponse(
      "forbidden: the caller is not the owner's session with the admin role (an API key never is); csrf_rejected: a state-changing request with the session cookie whose Origin (or Referer) is not the platform's public URL.",
      ['forbidden', 'csrf_rejected'],
    ),
  },
};

const AGENT = json(schema('urn:gov:response:agent'));
const conflict = (codes: ('agent_running' | 'agent_not_running')[], description: string) =>
  platformErrorResponse(description, codes);
const unknownVersion = platformErrorResponse(
  'not_found: no such agent for this caller, or (with a body naming one) no such config version or checkpoint of the agent.',
  ['not_found'],
);

export const agentCommandRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'post',
    path: '/v1/agents',
    access: SESSION,
    body: {
      command: 'create-agent',
      description: 'What the agent is called and runs on; every member optional.',
    },
    tags: ['agents'],
    operationId: 'createAgent',
    summary: 'Create an agent',
    description:
      "The agent starts stopped, in chat mode, at config version 1. Its config version 1 and its passport (agent, creation time, config version 1's leaf hash) are signed records whose leaves go to the owner's tenant's log; `passport_id` is the passport's leaf hash. Defaults: a name from the agent id, model `offline` on provider `offline` (the built-in offline model), governance mode `enforce`.",
    responses: {
      '201': {
        description: 'The agent, its passport and its runtime session.',
        content: json(schema('urn:gov:response:agent-created')),
      },
    },
    handler: createAgent,
  },
  {
    method: 'patch',
    path: '/v1/agents/:agentId',
    access: AGENT_WRITE,
    params: [agentIdParameter],
    body: { command: 'update-agent', description: 'The members to change: at least one.' },
    tags: ['agents'],
    operationId: 'updateAgent',
    summary: "Change an agent's name, model, model provider or governance mode",
    description:
      'A change makes one new signed config version, chained to the one before by its leaf hash. Sending what is in force already changes nothing (no new version). Allowed while the agent runs.',
    responses: { '200': { description: 'The agent as it is now.', content: AGENT } },
    handler: updateAgent,
  },
  {
    method: 'delete',
    path: '/v1/agents/:agentId',
    access: OWNER_ADMIN,
    params: [agentIdParameter],
    tags: ['agents'],
    operationId: 'deleteAgent',
    summary: 'Delete an agent for good (admin role)',
    description:
      "Needs the owner's session and the admin role. Afterwards the agent answers 404 everywhere and its keys stop working; its events and leaves stay (the log is append-only).",
    responses: {
      '200': { description: 'Deleted.', content: json(schema('urn:gov:response:agent-deleted')) },
    },
    handler: deleteAgent,
  },
  {
    method: 'post',
    path: '/v1/agents/:agentId/start',
    access: AGENT_WRITE,
    params: [agentIdParameter],
    body: 'none',
    tags: ['agents'],
    operationId: 'startAgent',
    summary: 'Start an agent',
    description: 'stopped → running, in a new runtime session (`sandbox_session_id`).',
    responses: {
      '200': { description: 'The agent, running.', content: AGENT },
      '409': conflict(['agent_running'], 'agent_running: the agent runs already.'),
    },
    handler: startAgent,
  },
  {
    method: 'post',
    path: '/v1/agents/:agentId/stop',
    access: AGENT_WRITE,
    params: [agentIdParameter],
    body: 'none',
    tags: ['agents'],
    operationId: 'stopAgent',
    summary: 'Stop an agent, with a checkpoint',
    description:
      'running → stopped. A checkpoint is made at the same time: the config version, profile version (0: agents have no profile yet) and memory position (0: no memory yet) in force.',
    responses: {
      '200': {
        description: 'The agent, stopped, and its new checkpoint.',
        content: json(schema('urn:gov:response:agent-stopped')),
      },
      '409': conflict(['agent_not_running'], 'agent_not_running: the agent is stopped already.'),
    },
    handler: stopAgent,
  },
  {
    method: 'post',
    path: '/v1/agents/:agentId/restore',
    access: AGENT_WRITE,
    params: [agentIdParameter],
    body: { command: 'restore-agent', description: 'The checkpoint to go back to.' },
    tags: ['agents'],
    operationId: 'restoreAgent',
    summary: 'Restore an agent from a checkpoint',
    description:
      "The config comes back to the checkpoint's version as a new signed config version (none when it is in force already), and the restore is recorded. Profile and memory come back too once agents have them.",
    responses: {
      '200': {
        description: 'The agent as restored, and the checkpoint.',
        content: json(schema('urn:gov:response:agent-restored')),
      },
      '404': unknownVersion,
    },
    handler: restoreAgent,
  },
  {
    method: 'patch',
    path: '/v1/agents/:agentId/mode',
    access: AGENT_WRITE,
    params: [agentIdParameter],
    body: { command: 'change-agent-mode', description: 'The mode: `chat` or `autonomous`.' },
    tags: ['agents'],
    operationId: 'changeAgentMode',
    summary: 'Switch an agent between chat and autonomous mode',
    responses: { '200': { description: 'The agent in its mode.', content: AGENT } },
    handler: changeMode,
  },
  {
    method: 'post',
    path: '/v1/agents/:agentId/rollback',
    access: AGENT_WRITE,
    params: [agentIdParameter],
    body: { command: 'rollback-agent', description: 'The config version to return to.' },
    tags: ['agents'],
    operationId: 'rollbackAgent',
    summary: 'Roll an agent back to an earlier signed config version',
    description:
      'Appends a new config version equal in content to the one named (history is never rewritten); naming the content in force changes nothing.',
    responses: {
      '200': { description: 'The agent at its new config version.', content: AGENT },
      '404': unknownVersion,
    },
    handler: rollbackAgent,
  },
];

function commandContext(services: PlatformServices, res: Response) {
  return { now: services.clock(), correlationId: res.locals.correlationId as string };
}

/** A command that appends a leaf: the owner's tenant's log (read now), the node's sealer, a fresh nonce. */
async function leafContext(
  services: PlatformServices,
  res: Response,
  tenantId: string,
): Promise<LeafContext> {
  const { log } = await ownerTenant(services, tenantId);
  return { ...commandContext(services, res), log, seal: services.agentRecords, nonce: newNonce() };
}

function createAgent(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const caller = callerOf(res);
    const agentId = newAgentId();
    const sandboxSessionId = newSandboxSessionId();
    const context = await leafContext(services, res, caller.tenantId);
    const outcome = await services.agents.execute(
      agentStream(agentId),
      (state) =>
        decideCreateAgent(
          state,
          {
            agentId,
            ownerId: caller.userId,
            tenantId: caller.tenantId,
            sandboxSessionId,
            ownerNonce: newNonce(),
            body: req.body as CreateAgentBody,
          },
          context,
        ),
      { create: true },
    );
    const created = await settled(services, res, outcome);
    // Config version 1 and the passport: provable as soon as they are answered.
    if (!created || !(await awaitLeavesOrAnswer(services, res, created.eventIds.slice(1, 3), context.log)))
      return;
    const agent = await agentAnswer(services, agentId);
    res.status(201).json({ agent, passport_id: agent.passport_id, sandbox_session_id: sandboxSessionId });
  };
}

function updateAgent(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId, tenantId } = agentOf(res);
    const context = await leafContext(services, res, tenantId);
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideUpdateAgent(state, req.body as UpdateAgentBody, context),
    );
    if (await versioned(services, res, outcome, context)) res.json(await agentAnswer(services, agentId));
  };
}

function rollbackAgent(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId, tenantId } = agentOf(res);
    const context = await leafContext(services, res, tenantId);
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideRollback(state, (req.body as RollbackAgentBody).version, context),
    );
    if (await versioned(services, res, outcome, context)) res.json(await agentAnswer(services, agentId));
  };
}

function restoreAgent(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId, tenantId } = agentOf(res);
    const context = await leafContext(services, res, tenantId);
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideRestore(state, (req.body as RestoreAgentBody).checkpoint_id, context),
    );
    const restored = await versioned(services, res, outcome, context);
    if (!restored) return;
    res.json({
      agent: await agentAnswer(services, agentId),
      checkpoint: await checkpoint(services, restored.checkpoint_id),
    });
  };
}

function startAgent(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    const { agentId } = agentOf(res);
    const sandboxSessionId = newSandboxSessionId();
    const context = commandContext(services, res);
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideStart(state, sandboxSessionId, context),
    );
    if (await settled(services, res, outcome)) res.json(await agentAnswer(services, agentId));
  };
}

function stopAgent(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    const { agentId } = agentOf(res);
    const checkpointId = newCheckpointId();
    const context = commandContext(services, res);
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideStop(state, checkpointId, context),
    );
    if (!(await settled(services, res, outcome))) return;
    res.json({
      agent: await agentAnswer(services, agentId),
      checkpoint: await checkpoint(services, checkpointId),
    });
  };
}

function changeMode(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId } = agentOf(res);
    const context = commandContext(services, res);
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideChangeMode(state, (req.body as ChangeAgentModeBody).mode, context),
    );
    if (await settled(services, res, outcome)) res.json(await agentAnswer(services, agentId));
  };
}

function deleteAgent(services: PlatformServices) {
  return async (_req: Request, res: Response) => {
    const { agentId } = agentOf(res);
    const caller = callerOf(res);
    const context = commandContext(services, res);
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideDeleteAgent(state, caller.userId, context),
    );
    const deleted = await settled(services, res, outcome);
    if (!deleted) return;
    services.agentDirectory.forget?.(agentId);
    res.json({ agent_id: agentId, deleted: true, deleted_at: deleted.deleted_at });
  };
}

/**
 * `settled`, and a new config version's leaf under a signed tree head (its event is the command's
 * first), so the version is provable as soon as it is answered.
 */
async function versioned<R extends { kind: string }>(
  services: PlatformServices,
  res: Response,
  outcome: Committed<R>,
  context: LeafContext,
): Promise<Committed<Exclude<R, RefusalResult>> | null> {
  const done = await settled(services, res, outcome);
  if (!done) return null;
  const leaves = done.kind === 'changed' ? done.eventIds.slice(0, 1) : [];
  return (await awaitLeavesOrAnswer(services, res, leaves, context.log)) ? done : null;
}

/** A checkpoint as the API answers it. */
async function checkpoint(services: PlatformServices, checkpointId: string) {
  const stored = await services.readModels.get<CheckpointView>(
    agentsProjection,
    AGENT_CHECKPOINTS,
    checkpointId,
  );
  if (!stored) throw new Error(`checkpoint ${checkpointId} is not in the agents read model`);
  const { agent_id: _agent, ...view } = stored.data;
  return view;
}
