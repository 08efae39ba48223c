/**
 * An agent's API keys: made and revoked by the owner's session (a key cannot make keys). The raw key
 * is answered once, when it is made; only its SHA-256 hash is kept.
 */
import type { NextFunction, Request, Response } from 'express';
import { isKeyId, newApiKey } from '../../../domain/platform/ids';
import type { CreateApiKeyBody } from '../../../event-schemas';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { platformErrorResponse, sendPlatformError } from '../../../runtime/http/platform-errors';
import type { Access, PathParameter, Route } from '../../../runtime/http/route-table';
import { agentAccess, agentOf, callerOf } from '../accounts/access';
import { agentIdParameter, settled } from '../agents/agent-http';
import { agentStream } from '../agents/agent-state';
import { sendRefusal } from '../refusal';
import type { PlatformServices } from '../services';
import { decideCreateApiKey, decideRevokeApiKey, unknownKey } from './api-key-commands';

function requireSession(_req: Request, res: Response, next: NextFunction): void {
  if (callerOf(res).kind === 'session') {
    next();
    return;
  }
  sendPlatformError(
    res,
    403,
    'session_required',
    "an agent's keys are managed by its owner's session, not with a key",
  );
}

/** The owner's session only: an agent's key is refused (403 session_required). */
export const OWNER_SESSION: Access<PlatformServices> = {
  ...agentAccess(),
  require: requireSession,
  security: [{ session: [] }],
  responses: {
    ...agentAccess().responses,
    '403': platformErrorResponse(
      "session_required: an API key was sent (keys are managed by the owner's session); forbidden: a key of another agent; csrf_rejected: a state-changing request with the session cookie whose Origin (or Referer) is not the platform's public URL.",
      ['session_required', 'forbidden', 'csrf_rejected'],
    ),
  },
};

const keyIdParameter: PathParameter = {
  name: 'keyId',
  description: 'The key: `key_` + 24 hex, as listed.',
  schema: { type: 'string', pattern: '^key_[0-9a-f]{24}$' },
};

export const apiKeyCommandRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'post',
    path: '/v1/agents/:agentId/api-keys',
    access: OWNER_SESSION,
    params: [agentIdParameter],
    body: { command: 'create-api-key', description: 'A name, and the scopes the key holds (default: all).' },
    tags: ['keys'],
    operationId: 'createApiKey',
    summary: 'Make an API key of the agent (shown once)',
    description:
      "The key works on this agent's routes only, those its scopes allow: `agent:read` (details, health, checkpoints, version health), `agent:write` (change, start, stop, mode, rollback, restore), `chat`, `memory:read`, `memory:write`, `tools`, `actions` (send governed actions; each action's own scope is checked by gate G5). It cannot manage keys, list agents or delete its agent. `raw_key` is in this answer only: store it now. At most 50 keys in force per agent (409 conflict).",
    responses: {
      '201': {
        description: 'The key, with `raw_key`.',
        content: json(schema('urn:gov:response:api-key-created')),
      },
      '409': platformErrorResponse('conflict: the agent holds the most keys it can; revoke one.', [
        'conflict',
      ]),
    },
    handler: createApiKey,
  },
  {
    method: 'delete',
    path: '/v1/agents/:agentId/api-keys/:keyId',
    access: OWNER_SESSION,
    params: [agentIdParameter, keyIdParameter],
    tags: ['keys'],
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key of the agent',
    description: 'The key stops working at once. A revoked or unknown key answers 404.',
    responses: {
      '200': { description: 'Revoked.', content: json(schema('urn:gov:response:api-key-revoked')) },
      '404': platformErrorResponse('not_found: no such agent for this caller, or no such key in force.', [
        'not_found',
      ]),
    },
    handler: revokeApiKey,
  },
];

function createApiKey(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId } = agentOf(res);
    const key = newApiKey();
    const context = { now: services.clock(), correlationId: res.locals.correlationId as string };
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideCreateApiKey(state, req.body as CreateApiKeyBody, key, context),
    );
    const created = await settled(services, res, outcome);
    if (!created) return;
    const { kind: _kind, position: _position, eventIds: _ids, ...view } = created;
    res.status(201).json({ ...view, agent_id: agentId, raw_key: key.raw });
  };
}

function revokeApiKey(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId } = agentOf(res);
    const keyId = req.params.keyId as string;
    if (!isKeyId(keyId)) return sendRefusal(res, unknownKey(keyId));
    const context = { now: services.clock(), correlationId: res.locals.correlationId as string };
    const outcome = await services.agents.execute(agentStream(agentId), (state) =>
      decideRevokeApiKey(state, keyId, context),
    );
    const revoked = await settled(services, res, outcome);
    if (!revoked) return;
    services.agentDirectory.forget?.(agentId, keyId);
    res.json({ key_id: keyId, revoked: true, revoked_at: revoked.revoked_at });
  };
}
