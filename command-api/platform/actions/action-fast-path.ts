/**
 * `POST /v1/agents/:agentId/actions` from an agent's key, answered before Express
 * (runtime/http/json-post-fast-path.ts says when a route may have a fast path, and what it hands back
 * to Express). A session's request (a browser: its CSRF check), a refused caller and an invalid body go
 * to the route table's route, which words the refusal. What it answers itself comes from
 * `actionAnswer`, which the Express route answers from too.
 */

import type http from 'node:http';
import type { GovernActionBody } from '../../../event-schemas';
import { jsonPostFastPath } from '../../../runtime/http/json-post-fast-path';
import { platformServerErrorAnswer } from '../../../runtime/http/platform-errors';
import { bodyProblems } from '../../../runtime/http/validate-body';
import { agentKeyCaller } from '../accounts/access';
import type { PlatformServices } from '../services';
import { ACTIONS_SCOPE, actionAnswer } from './routes';

const PATH = /^\/v1\/agents\/([^/?#]+)\/actions$/;

export function actionFastPath(
  services: PlatformServices,
  express: (req: http.IncomingMessage, res: http.ServerResponse) => void,
) {
  return jsonPostFastPath(
    {
      maxBodyBytes: services.config.maxBodyBytes,
      logger: services.logger,
      durations: services.metrics.platformHttpRequests,
    },
    {
      route: '/v1/agents/:agentId/actions',
      match: (url) => {
        const agentId = PATH.exec(url)?.[1];
        return agentId === undefined ? null : { agentId };
      },
      answer: async (req, body, { agentId }, correlationId) => {
        const admitted = await agentKeyCaller(services, req.headers.authorization, agentId, ACTIONS_SCOPE);
        if (!admitted || bodyProblems('govern-action', body)) return null;
        return actionAnswer(services, agentId, admitted.caller, body as GovernActionBody, correlationId);
      },
      failed: platformServerErrorAnswer,
    },
    express,
  );
}
