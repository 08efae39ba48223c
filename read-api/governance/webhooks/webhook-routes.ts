/**
 * The webhook reads: the tenant's webhooks and, beyond the spec, each one's delivery log. Another
 * tenant's webhook reads as missing.
 */
import { type Request, type Response, Router } from 'express';
import {
  bodyBytesOf,
  DELIVERY_LOG,
  type DeliveryLogEntry,
  scheduleOf,
} from '../../../projectors/webhooks/delivery-log';
import type { WebhookView } from '../../../projectors/webhooks/delivery-queue-projection';
import { authenticate, callerOf } from '../../../runtime/http/auth';
import { sendError, sendInvalid } from '../../../runtime/http/errors';
import { takesNoQuery, unknownQueryParameters } from '../../../runtime/http/query';
import { limitRequestRate } from '../../../runtime/http/rate-limit';
import type { Services } from '../../../runtime/wiring/services';

export const WEBHOOK_ID = /^wh_[0-9a-f]{24}$/;
export const DELIVERY_LOG_DEFAULT_LIMIT = 50;
export const DELIVERY_LOG_MAX_LIMIT = 200;

type StoredWebhook = WebhookView;

export function webhookReadRoutes(services: Services): Router {
  const router = Router();
  const auth = [authenticate(services), limitRequestRate(services)];
  const { webhooks } = services;

  router.get('/webhooks', ...auth, takesNoQuery, async (_req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const page = await services.readStore.find<StoredWebhook>(webhooks.collections.webhooks, {
      where: { tenant_id: tenant.tenant_id, removed_at: null },
      sort: { field: 'created_at', direction: 'asc' },
      limit: 1000,
    });
    res.json({ webhooks: page.items.map((item) => webhookView(item.data)) });
  });

  router.get('/webhooks/:id', ...auth, takesNoQuery, async (req: Request, res: Response) => {
    const webhook = await ownWebhook(services, res, req.params.id as string);
    if (webhook) res.json(webhookView(webhook));
  });

  router.get('/webhooks/:id/deliveries', ...auth, async (req: Request, res: Response) => {
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
  });

  return router;
}

/** The caller's own, not removed webhook; otherwise answers 404 and returns null. */
export async function ownWebhook(
  services: Services,
  res: Response,
  webhookId: string,
): Promise<StoredWebhook | null> {
  const { tenant } = callerOf(res);
  const stored = WEBHOOK_ID.test(webhookId)
    ? await services.readStore.get<StoredWebhook>(services.webhooks.collections.webhooks, webhookId)
    : null;
  // Another tenant's webhook is as unknown as a missing one.
  if (!stored || stored.data.tenant_id !== tenant.tenant_id || stored.data.removed_at !== null) {
    unknownWebhook(res, webhookId);
    return null;
  }
  return stored.data;
}

export function unknownWebhook(res: Response, webhookId: string): void {
  sendError(res, 404, 'NOT_FOUND', `no webhook ${webhookId} for this tenant; GET /webhooks lists yours`);
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
  if (status !== null && !['pending', 'delivered', 'failed', 'cancelled'].includes(status))
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
