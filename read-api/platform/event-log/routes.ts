/**
 * `GET /v1/agents/:agentId/event-log`: the agent's own stream, newest first, paged by an opaque cursor,
 * each event with the members its type shows (redaction.ts). Read from the event store itself, so it
 * is the log of record, not a projection of it.
 */
import type { Request, Response } from 'express';
import { agentAccess, agentOf } from '../../../command-api/platform/accounts/access';
import { agentIdParameter } from '../../../command-api/platform/agents/agent-http';
import { agentStream } from '../../../command-api/platform/agents/agent-state';
import { requireFeature } from '../../../command-api/platform/quota/feature-gate';
import type { PlatformServices } from '../../../command-api/platform/services';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { platformErrorResponse, sendPlatformError } from '../../../runtime/http/platform-errors';
import type { Route } from '../../../runtime/http/route-table';
import { shownData } from './redaction';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const LIMIT = /^[1-9][0-9]{0,2}$/;

/** A cursor names the revision the next page starts at (inclusive), wrapped so clients do not build one. */
function encodeCursor(revision: number): string {
  return Buffer.from(`el1:${revision}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number | null {
  const match = /^el1:(0|[1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

export const eventLogReadRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'get',
    path: '/v1/agents/:agentId/event-log',
    access: agentAccess('agent:read'),
    params: [agentIdParameter],
    query: [
      {
        name: 'limit',
        description: `Events per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
      },
      {
        name: 'cursor',
        description: 'The `next_cursor` of the page before, for the next (older) page.',
        schema: { type: 'string' },
      },
    ],
    use: requireFeature('event_log'),
    tags: ['agents'],
    operationId: 'getAgentEventLog',
    summary: "The agent's own events, newest first",
    description:
      "Every event of the agent's stream (lifecycle, config versions, checkpoints, keys, governed actions), newest first, each as `{type, revision, position, recorded_at, data}`. `data` holds only the members its type shows: never nonces, content, gate reasons, principals, configs or key hashes. Callers: the owner's session, or a key of the agent with scope `agent:read`. A cursor stays valid: events are only ever appended.",
    responses: {
      '200': { description: 'A page of events.', content: json(schema('urn:gov:response:agent-event-log')) },
      '400': platformErrorResponse(
        'invalid_request: a limit out of range, or a cursor this route did not give.',
        ['invalid_request'],
      ),
    },
    handler: (services) => async (req: Request, res: Response) => {
      const { agentId } = agentOf(res);
      const { limit: limitText, cursor } = req.query as { limit?: unknown; cursor?: unknown };
      let limit = DEFAULT_LIMIT;
      if (limitText !== undefined) {
        if (typeof limitText !== 'string' || !LIMIT.test(limitText) || Number(limitText) > MAX_LIMIT) {
          sendPlatformError(res, 400, 'invalid_request', `limit must be an integer from 1 to ${MAX_LIMIT}`);
          return;
        }
        limit = Number(limitText);
      }
      let from: number | undefined;
      if (cursor !== undefined) {
        const revision = typeof cursor === 'string' ? decodeCursor(cursor) : null;
        if (revision === null) {
          sendPlatformError(res, 400, 'invalid_request', 'cursor must be a next_cursor this route answered');
          return;
        }
        from = revision;
      }
      const events = [];
      for await (const event of services.eventStore.readStream(agentStream(agentId), {
        direction: 'backwards',
        ...(from === undefined ? {} : { fromRevision: from }),
        maxCount: limit,
      })) {
        events.push({
          type: event.type,
          revision: event.revision,
          position: event.position,
          recorded_at: event.recorded_at,
          data: shownData(event.type, event.data),
        });
      }
      const last = events.at(-1);
      const more = events.length === limit && last !== undefined && last.revision > 0;
      res.json({ agent_id: agentId, events, next_cursor: more ? encodeCursor(last.revision - 1) : null });
    },
  },
];
