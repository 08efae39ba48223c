/**
 * The webhook commands: register and delete (spec section 4) and, beyond the spec, send a delivery
 * again. The reads are in read-api/webhook-routes.ts.
 */
import { type Request, type Response, Router } from 'express';
import type { RegisterWebhookBody } from '../../../event-schemas';
import { DELIVERY_LOG, type DeliveryLogEntry } from '../../../projectors/webhooks/delivery-log';
import { generateWebhookSecret, sealSecret } from '../../../projectors/webhooks/secret-box';
import { ownWebhook, unknownWebhook, WEBHOOK_ID } from '../../../read-api/governance/webhooks/webhook-routes';
import { authenticate, callerOf, requireCurrentKey } from '../../../runtime/http/auth';
import { sendError, sendInvalid } from '../../../runtime/http/errors';
import { requireNoBody } from '../../../runtime/http/no-body';
import { takesNoQuery } from '../../../runtime/http/query';
import { limitRequestRate } from '../../../runtime/http/rate-limit';
import { validateBody } from '../../../runtime/http/validate-body';
import type { GovernanceServices } from '../../../runtime/wiring/governance-services';
import type { Committed } from '../../engine/aggregate-writer';
import { tenantStream } from '../tenants/tenant-state';
import {
  decideRedeliver,
  decideRegisterWebhook,
  decideRemoveWebhook,
  newWebhookId,
  type WebhookRefusal,
} from './webhook-commands';

const DELIVERY_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

export function webhookCommandRoutes(services: GovernanceServices): Router {
  const router = Router();
  // Every route here takes no query parameter, and manages the account: for the tenant's current key,
  // not one in its grace period.
  const auth = [authenticate(services), limitRequestRate(services), takesNoQuery, requireCurrentKey];
  const { webhooks } = services;
  const context = (res: Response) => ({
    now: services.clock(),
    correlationId: res.locals.correlationId as string,
    keyId: callerOf(res).keyId,
  });

  router.post('/webhooks', ...auth, validateBody('register-webhook'), async (req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const body = req.body as RegisterWebhookBody;
    // A host that does not resolve yet is accepted: every attempt checks the target again.
    const target = await webhooks.guard.checkRegistration(body.url);
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
    await settled(services, tenant.tenant_id, outcome);
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

  router.delete('/webhooks/:id', ...auth, async (req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const webhookId = req.params.id as string;
    if (!WEBHOOK_ID.test(webhookId)) return unknownWebhook(res, webhookId);
    const outcome = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
      decideRemoveWebhook(state, webhookId, context(res)),
    );
    if (outcome.kind === 'refused') return refuse(res, outcome);
    await settled(services, tenant.tenant_id, outcome);
    res.json({ webhook_id: webhookId, deleted: true, removed_at: outcome.event.removed_at });
  });

  router.post(
    '/webhooks/:id/deliveries/:delivery_id/redeliver',
    ...auth,
    requireNoBody,
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
      await settled(services, tenant.tenant_id, outcome);
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
async function settled(
  services: GovernanceServices,
  tenantId: string,
  committed: Committed<unknown>,
): Promise<void> {
  if (committed.position !== null) await services.webhooks.awaitDispatcher(committed.position, tenantId);
}

function refuse(res: Response, refusal: WebhookRefusal): void {
  sendError(res, refusal.status, refusal.error, refusal.message);
}
