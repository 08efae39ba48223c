/**
 * The webhook endpoints: register, list, read, delete (spec section 4), and beyond the spec a
 * delivery log per webhook and a way to send a delivery again.
 */
import { type Request, type Response, Router } from 'express';
import type { RegisterWebhookBody } from '../event-schemas';
import { DELIVERY_LOG, type DeliveryLogEntry } from '../projectors/dispatcher/delivery-worker';
import type { WebhookView } from '../projectors/dispatcher/dispatcher-projection';
import { generateWebhookSecret, sealSecret } from '../projectors/dispatcher/secret-box';
import { authenticate, callerOf } from '../runtime/http/auth';
import { sendError, sendInvalid } from '../runtime/http/errors';
import { limitRequestRate } from '../runtime/http/rate-limit';
import { validateBody } from '../runtime/http/validate-body';
import type { Services } from '../runtime/services';
import type { Committed } from './aggregate-writer';
import { tenantStream } from './tenant-state';
import {
  decideRedeliver,
  decideRegisterWebhook,
  decideRemoveWebhook,
  newWebhookId,
  type WebhookRefusal,
} from './webhook-commands';

const WEBHOOK_ID = /^wh_[0-9a-f]{24}$/;
const DELIVERY_ID = /^[A-Za-z0-9_.:-]{1,200}$/;
export const DELIVERY_LOG_DEFAULT_LIMIT = 50;
export const DELIVERY_LOG_MAX_LIMIT = 200;

type StoredWebhook = WebhookView;

export function webhookRoutes(services: Services): Router {
  const router = Router();
  const auth = [authenticate(services), limitRequestRate(services)];
  const { webhooks } = services;
  const context = (res: Response) => ({
    now: services.clock(),
    correlationId: res.locals.correlationId as string,
  });

  router.post('/webhooks', ...auth, validateBody('register-webhook'), async (req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const body = req.body as RegisterWebhookBody;
    const target = await webhooks.guard.check(body.url);
    if (!target.ok) return sendInvalid(res, [{ pointer: '/url', reason: target.reason }]);
    const webhookId = newWebhookId();
    const secret = body.secret ?? generateWebhookSecret();
    const outcome = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
      decideRegisterWebhook(
        state,
        webhookId,
        {
          url: body.url,
          events: body.events,
          secretSealed: sealSecret(webhooks.secretKey, webhookId, secret),
          secretGenerated: body.secret === undefined,
        },
        context(res),
      ),
    );
    if (outcome.kind === 'refused') return refuse(res, outcome);
    await settled(services, outcome);
    const { event } = outcome;
    res.status(201).json({
      webhook_id: event.webhook_id,
      url: event.url,
      events: event.events,
      created_at: event.created_at,
      // Shown once: only its sealed form is stored.
      ...(event.secret_generated && { secret }),
    });
  });

  router.get('/webhooks', ...auth, async (_req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const page = await services.readStore.find<StoredWebhook>(webhooks.collections.webhooks, {
      where: { tenant_id: tenant.tenant_id, removed_at: null },
      sort: { field: 'created_at', direction: 'asc' },
      limit: 1000,
    });
    res.json({ webhooks: page.items.map((item) => webhookView(item.data)) });
  });

  router.get('/webhooks/:id', ...auth, async (req: Request, res: Response) => {
    const webhook = await ownWebhook(services, res, req.params.id as string);
    if (webhook) res.json(webhookView(webhook));
  });

  router.delete('/webhooks/:id', ...auth, async (req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const webhookId = req.params.id as string;
    if (!WEBHOOK_ID.test(webhookId)) return unknownWebhook(res, webhookId);
    const outcome = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
      decideRemoveWebhook(state, webhookId, context(res)),
    );
    if (outcome.kind === 'refused') return refuse(res, outcome);
    await settled(services, outcome);
    res.json({ webhook_id: webhookId, deleted: true, removed_at: outcome.event.removed_at });
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

  router.post(
    '/webhooks/:id/deliveries/:delivery_id/redeliver',
    ...auth,
    async (req: Request, res: Response) => {
      const { tenant } = callerOf(res);
      const webhook = await ownWebhook(services, res, req.params.id as string);
      if (!webhook) return;
      const deliveryId = req.params.delivery_id as string;
      const delivery = DELIVERY_ID.test(deliveryId)
        ? await services.readStore.get<DeliveryLogEntry>(DELIVERY_LOG, deliveryId)
        : null;
      if (
        !delivery ||
        delivery.data.webhook_id !== webhook.webhook_id ||
        delivery.data.tenant_id !== tenant.tenant_id
      ) {
        return sendError(
          res,
          404,
          'NOT_FOUND',
          `no delivery ${deliveryId} for webhook ${webhook.webhook_id}; GET /webhooks/${webhook.webhook_id}/deliveries lists them`,
        );
      }
      const outcome = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
        decideRedeliver(state, webhook.webhook_id, deliveryId, context(res)),
      );
      if (outcome.kind === 'refused') return refuse(res, outcome);
      await settled(services, outcome);
      res.status(202).json({
        webhook_id: webhook.webhook_id,
        redelivery_of: deliveryId,
        event_id: delivery.data.event_id,
        requested_at: outcome.event.requested_at,
      });
    },
  );

  return router;
}

/** Read-your-write: the dispatcher has applied the command's event before the answer goes out. */
async function settled(services: Services, committed: Committed<unknown>): Promise<void> {
  if (committed.position !== null) await services.webhooks.awaitDispatcher(committed.position);
}

async function ownWebhook(
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

function unknownWebhook(res: Response, webhookId: string): void {
  sendError(res, 404, 'NOT_FOUND', `no webhook ${webhookId} for this tenant; GET /webhooks lists yours`);
}

function refuse(res: Response, refusal: WebhookRefusal): void {
  sendError(res, refusal.status, refusal.error, refusal.message);
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
    body_bytes: Buffer.byteLength(entry.body, 'utf8'),
    attempts: entry.attempts,
  };
}

type DeliveryQuery =
  | { ok: true; status: string | null; limit: number; cursor: string | null }
  | { ok: false; problem: { pointer: string; reason: string } };

function parseDeliveryQuery(query: Record<string, unknown>): DeliveryQuery {
  for (const name of Object.keys(query)) {
    if (!['status', 'limit', 'cursor'].includes(name))
      return {
        ok: false,
        problem: { pointer: `query/${name}`, reason: 'is not a known parameter (status, limit, cursor)' },
      };
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
