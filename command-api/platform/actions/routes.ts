/**
 * `POST /v1/agents/:agentId/actions`: one action of the agent sent through the governed-action
 * pipeline over HTTP (by its owner, or a key with the `actions` scope). The same pipeline decides the
 * actions of chat, memory, tools, heartbeats and channels; this route lets a person or a client drive
 * it directly, and the bench measure it.
 */
import type { Request, Response } from 'express';
import type { ActionType, GovernedAction, Principal } from '../../../domain/platform/action-gates';
import type { GovernActionBody } from '../../../event-schemas';
import { type HttpAnswer, sendAnswer } from '../../../runtime/http/answer';
import { json, schema } from '../../../runtime/http/openapi-parts';
import {
  type PlatformErrorCode,
  platformErrorAnswer,
  platformErrorResponse,
} from '../../../runtime/http/platform-errors';
import type { Route } from '../../../runtime/http/route-table';
import { agentAccess, agentOf, callerOf, type PlatformCaller } from '../accounts/access';
import { agentIdParameter } from '../agents/agent-http';
import type { PlatformServices } from '../services';
import { governAction } from './govern-action';

/** The scope a key needs to send actions; the action's own scope is then gate G5's to check. */
export const ACTIONS_SCOPE = 'actions';
const ACTIONS = agentAccess(ACTIONS_SCOPE);

/** The scope gate G5 asks of the principal for each kind of action. */
export const ACTION_SCOPES: Readonly<Record<ActionType, string>> = {
  chat_message: 'chat',
  channel_message: 'chat',
  tool_call: 'tools',
  heartbeat_step: 'tools',
  task_step: 'tools',
  subagent_spawn: 'tools',
  memory_write: 'memory:write',
  memory_delete: 'memory:write',
  profile_amendment: 'agent:write',
  config_change: 'agent:write',
};

export const actionCommandRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'post',
    path: '/v1/agents/:agentId/actions',
    access: ACTIONS,
    params: [agentIdParameter],
    body: {
      command: 'govern-action',
      description: "The action: its type and content, how it was observed, and a tool call's tool class.",
    },
    tags: ['governance'],
    operationId: 'governAction',
    summary: 'Send one action of the agent through the five gates',
    description:
      "Gates G1 (the policy's must_not rules), G2 (prompt injection), G3 (secrets and personal data), G4 (evidence class) and G5 (an accountable principal in scope: the caller, the owner's user or the key, never a member of the body) with the agent's policy, then the verdict by the agent's governance mode: `enforce` blocks a failing action, `monitor` admits it with `would_block`, `review` escalates it (held for a person's review; the review decision comes in a later release). The decision is a signed GOV_AGENT_ACTION_V1 record (commitments to the content and the principal, never the content) appended to the agent's stream and integrated into the owner's tenant's log; the answer comes once its leaf is under a signed tree head, so `GET .../proofs/{leaf_hash}` proves it at once. Every decided action counts against the owner's tier's daily quota of governed actions per agent, whatever its verdict. Three blocks in a row put the agent in QUARANTINE.",
    responses: {
      '200': {
        description: 'The verdict, each gate with its reason, and the leaf under its signed tree head.',
        content: json(schema('urn:gov:response:governed-action')),
      },
      '429': platformErrorResponse(
        "quota_exceeded: the agent has used its governed actions of today (UTC) on its owner's tier; nothing was appended.",
        ['quota_exceeded'],
      ),
      '503': platformErrorResponse(
        'service_unavailable: the action was decided and stored, but its leaf was not under a signed tree head in time; its proof follows shortly (do not send it again).',
        ['service_unavailable'],
      ),
    },
    handler: sendAction,
  },
];

function principalOf(caller: PlatformCaller): Principal {
  if (caller.kind === 'session') return { kind: 'user', id: caller.userId };
  // A key made without scopes holds every scope of its agent.
  return caller.scopes.length === 0
    ? { kind: 'key', id: caller.keyId }
    : { kind: 'key', id: caller.keyId, scopes: caller.scopes };
}

function sendAction(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    sendAnswer(
      res,
      await actionAnswer(
        services,
        agentOf(res).agentId,
        callerOf(res),
        req.body as GovernActionBody,
        res.locals.correlationId as string,
      ),
    );
  };
}

/** The route's answer to an admitted caller's valid body: the Express route's and its fast path's. */
export async function actionAnswer(
  services: PlatformServices,
  agentId: string,
  caller: PlatformCaller,
  body: GovernActionBody,
  correlationId: string,
): Promise<HttpAnswer> {
  const action: GovernedAction = {
    type: body.type,
    content: body.content,
    content_is_data: body.content_is_data ?? false,
    evidence_class: (body.evidence_class ?? 'HOOKED') as GovernedAction['evidence_class'],
    principal: principalOf(caller),
    required_scope: ACTION_SCOPES[body.type],
    ...(body.tool_class === undefined ? {} : { tool_class: body.tool_class }),
  };
  const decided = await governAction(services, { agentId, action, correlationId });
  if (decided.kind === 'refused')
    return platformErrorAnswer(decided.status, decided.error as PlatformErrorCode, decided.message);
  if (decided.kind === 'late')
    return platformErrorAnswer(
      503,
      'service_unavailable',
      `The action was decided and stored as leaf sha256:${decided.leaf_hash}, but the log has not signed a tree head over it yet: ask GET .../proofs/sha256:${decided.leaf_hash} in a moment instead of sending the action again.`,
    );
  const { kind: _kind, ...answer } = decided;
  return { status: 200, body: answer };
}
