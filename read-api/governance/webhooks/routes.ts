/**
 * The webhook reads: the tenant's webhooks and, beyond the spec, each one's delivery log. Another
 * tenant's webhook reads as missing.
 */
import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { TENANT_KEY } from '../../../command-api/governance/tenants/access';
import { callerOf } from '../../../command-api/governance/tenants/auth';
import { webhookRetries } from '../../../command-api/governance/webhooks/delivery-description';
import {
  ownWebhook,
  UNKNOWN_WEBHOOK,
  webhookIdParameter,
} from '../../../command-api/governance/webhooks/tenant-webhook';
import {
  bodyBytesOf,
  DELIVERY_LOG,
  type DeliveryLogEntry,
  type DeliveryStatus,
  scheduleOf,
} from '../../../projectors/webhooks/delivery-log';
import type { WebhookView } from '../../../projectors/webhooks/delivery-queue-projection';
import { sendInvalid } from '../../../runtime/http/errors';
import { invalid, json, schema } from '../../../runtime/http/openapi-parts';
import { unknownQueryParameters } from '../../../runtime/http/query';
import type { Route } from '../../../runtime/http/route-table';

const DELIVERY_LOG_DEFAULT_LIMIT = 50;
const DELIVERY_LOG_MAX_LIMIT = 200;
const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'cancelled'];

type StoredWebhook = WebhookView;

export const webhookReadRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'get',
    path: '/webhooks',
    access: TENANT_KEY,
    tags: ['webhooks'],
    operationId: 'listWebhooks',
    summary: "The tenant's webhooks, oldest first",
    description: 'Removed webhooks are not listed; secrets are never shown.',
    responses: {
      '200': { description: 'The webhooks.', content: json(schema('urn:gov:response:webhook-list')) },
    },
    handler: listWebhooks,
  },
  {
    method: 'get',
    path: '/webhooks/:id',
    access: TENANT_KEY,
    params: [webhookIdParameter],
    tags: ['webhooks'],
    operationId: 'getWebhook',
    summary: 'One webhook',
    responses: {
      '200': { description: 'The webhook.', content: json(schema('urn:gov:response:webhook')) },
      '404': UNKNOWN_WEBHOOK,
    },
    handler: getWebhook,
  },
  {
    method: 'get',
    path: '/webhooks/:id/deliveries',
    access: TENANT_KEY,
    params: [webhookIdParameter],
    query: [
      {
        name: 'status',
        description: 'Only deliveries with this status.',
        schema: { type: 'string', enum: [...DELIVERY_STATUSES] },
      },
      {
        name: 'limit',
        description: 'Deliveries per page (decimal, no leading zeros).',
        schema: {
          type: 'integer',
          minimum: 1,
          maximum: DELIVERY_LOG_MAX_LIMIT,
          default: DELIVERY_LOG_DEFAULT_LIMIT,
        },
      },
      {
        name: 'cursor',
        description:
          'next_cursor of the previous page (with the same status filter): the page after it. Anything else answers 400 (pointer `query/cursor`).',
        schema: { type: 'string' },
      },
    ],
    // The webhook is looked up first: an unknown one answers 404 whatever the query.
    queryReadBy: 'handler',
    tags: ['webhooks'],
    operationId: 'listWebhookDeliveries',
    summary: 'The delivery log of a webhook, newest first (beyond the spec)',
    description: (settings) =>
      `Each delivery queued for the webhook, with its status and every attempt (when, the receiver's status or the error, the latency). Only status, limit and cursor are accepted; an unknown or repeated parameter answers 400. The webhook is looked up first: an unknown one answers 404 whatever the query. ${webhookRetries(settings)}`,
    responses: {
      '200': { description: 'One page of the log.', content: json(schema('urn:gov:response:delivery-log')) },
      '400': invalid(
        `A query parameter is unknown or repeated, status is not pending, delivered, failed or cancelled, limit is not an integer from 1 to ${DELIVERY_LOG_MAX_LIMIT}, or cursor is not one from this listing.`,
      ),
      '404': UNKNOWN_WEBHOOK,
    },
    handler: listDeliveries,
  },
];

function listWebhooks(services: GovernanceServices) {
  const { webhooks } = services;
  return async (_req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const page = await services.readStore.find<StoredWebhook>(webhooks.collections.webhooks, {
      where: { tenant_id: tenant.tenant_id, removed_at: null },
      sort: { field: 'created_at', direction: 'asc' },
      limit: 1000,
    });
    res.json({ webhooks: page.items.map((item) => webhookView(item.data)) });
  };
}

function getWebhook(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
    const webhook = await ownWebhook(services, res, req.params.id as string);
    if (webhook) res.json(webhookView(webhook));
  };
}

function listDeliveries(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
    const webhook = await ownWebhook(services, res, req.params.id as string);
    if (!webhook) return;
    const query = parseDeliveryQuery(req.query);
    if (!query.ok) return sendInvalid(res, [query.problem]);
    try {
      const page = await services.readStore.find<DeliveryLogEntry>(DELIVERY_LOG, {
        where: { webhook_id: webhook.webhook_id, ...(query.status && { status: query.status }) },
        sort: { field: 'seq', direction: 'desc' },
        limit: query.limit,
        cursor: query.cursor,
      });
      res.json({
        deliveries: page.items.map((item) => deliveryView(item.data)),
        next_cursor: page.nextCursor,
      });
    } catch {
      sendInvalid(res, [{ pointer: 'query/cursor', reason: 'is not a cursor from this listing' }]);
    }
  };
}

function webhookView(webhook: StoredWebhook) {
  return {
    webhook_id: webhook.webhook_id,
    url: webhook.url,
    events: webhook.events,
    created_at: webhook.created_at,
    secret_generated: webhook.secret_generated,
  };
}

function deliveryView(entry: DeliveryLogEntry) {
  return {
    delivery_id: entry.delivery_id,
    event_id: entry.event_id,
    event_type: entry.event_type,
    status: entry.status,
    queued_at: entry.queued_at,
    next_attempt_at: entry.next_attempt_at,
    redelivery_of: entry.redelivery_of,
    body_bytes: bodyBytesOf(entry),
    ...scheduleOf(entry),
    attempts: entry.attempts,
  };
}

type DeliveryQuery =
  | { ok: true; status: string | null; limit: number; cursor: string | null }
  | { ok: false; problem: { pointer: string; reason: string } };

function parseDeliveryQuery(query: Record<string, unknown>): DeliveryQuery {
  const [unknown] = unknownQueryParameters(Object.keys(query), ['status', 'limit', 'cursor']);
  if (unknown) return { ok: false, problem: unknown };
  for (const name of Object.keys(query)) {
    if (typeof query[name] !== 'string')
      return { ok: false, problem: { pointer: `query/${name}`, reason: 'must be given once' } };
  }
  const status = (query.status as string | undefined) ?? null;
  if (status !== null && !(DELIVERY_STATUSES as readonly string[]).includes(status))
    return {
      ok: false,
      problem: { pointer: 'query/status', reason: 'must be pending, delivered, failed or cancelled' },
    };
  const rawLimit = query.limit as string | undefined;
  const limit = rawLimit === undefined ? DELIVERY_LOG_DEFAULT_LIMIT : Number(rawLimit);
  if (!/^[1-9][0-9]{0,3}$/.test(rawLimit ?? '1') || limit > DELIVERY_LOG_MAX_LIMIT)
    return {
      ok: false,
      problem: { pointer: 'query/limit', reason: `must be an integer from 1 to ${DELIVERY_LOG_MAX_LIMIT}` },
    };
  return { ok: true, status, limit, cursor: (query.cursor as string | undefined) ?? null };
}
