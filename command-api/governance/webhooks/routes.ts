/**
 * The webhook commands: register and delete (spec section 4) and, beyond the spec, send a delivery
 * again. The reads are in read-api/governance/webhooks/routes.ts.
 */
import type { Request, Response } from 'express';
import type { RegisterWebhookBody } from '../../../event-schemas';
import { DELIVERY_LOG, type DeliveryLogEntry } from '../../../projectors/webhooks/delivery-log';
import { generateWebhookSecret, sealSecret } from '../../../projectors/webhooks/secret-box';
import { sendError, sendInvalid } from '../../../runtime/http/errors';
import { errorResponse, invalid, json, notFound, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';
import type { Committed } from '../../engine/aggregate-writer';
import type { GovernanceServices } from '../services';
import { CURRENT_KEY } from '../tenants/access';
import { callerOf } from '../tenants/auth';
import { tenantStream } from '../tenants/tenant-state';
import { webhookDelivery } from './delivery-description';
import {
  deliveryIdSchema,
  ownWebhook,
  UNKNOWN_WEBHOOK,
  unknownWebhook,
  WEBHOOK_ID,
  webhookIdParameter,
} from './tenant-webhook';
import {
  decideRedeliver,
  decideRegisterWebhook,
  decideRemoveWebhook,
  MAX_WEBHOOKS_PER_TENANT,
  newWebhookId,
  type WebhookRefusal,
} from './webhook-commands';

const DELIVERY_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

const WEBHOOK_SECRET = `The secret keys the signature. Without \`secret\` in the body the service generates one (\`whsec_…\`) and returns it once, as \`secret\` in the 201 answer: only its sealed form is stored, so it cannot be shown again (delete the webhook and register a new one to change it).`;

// Every route here manages the account: for the tenant's current key, not one in its grace period.
export const webhookCommandRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'post',
    path: '/webhooks',
    access: CURRENT_KEY,
    body: {
      command: 'register-webhook',
      description: 'Where to deliver, which events, and optionally the signing secret.',
    },
    tags: ['webhooks'],
    operationId: 'registerWebhook',
    summary: "Register a webhook for some of the tenant's events",
    description: (settings) =>
      [
        `The URL must be absolute http or https without userinfo, and every address its host resolves to must be public: the special-purpose ranges of the IANA IPv4 and IPv6 registries (loopback, private, link-local, metadata, documentation, benchmarking, …) are refused unless the operator allows them with GOV_WEBHOOK_ALLOW, and an IPv6 address carrying an IPv4 address (IPv4-mapped or -compatible, NAT64, 6to4, Teredo) is judged by that IPv4. A host name that does not resolve yet is accepted. The same check is made again before each delivery, on the address connected to: an attempt whose host does not resolve, or resolves to a refused address, fails with the reason in the delivery log. A tenant may have at most ${MAX_WEBHOOKS_PER_TENANT} webhooks.`,
        '',
        WEBHOOK_SECRET,
        '',
        webhookDelivery(settings),
        '',
        'The bodies of each event are described in the `webhooks` section of this document.',
      ].join('\n'),
    responses: {
      '201': {
        description: 'The webhook; with the generated secret (shown once) when the body had none.',
        content: json(schema('urn:gov:response:webhook-created')),
      },
      '400': invalid(
        'The body is not JSON or does not match the schema, or the target URL is refused (pointer `/url`, naming the address and its range): credentials in it, or an address that is not public (loopback, private, link-local, metadata, documentation, benchmarking, NAT64 or 6to4 of one of those, …) and not in GOV_WEBHOOK_ALLOW.',
      ),
      '409': errorResponse(
        `CONFLICT: the tenant already has ${MAX_WEBHOOKS_PER_TENANT} webhooks; delete one first.`,
        ['CONFLICT'],
      ),
    },
    handler: registerWebhook,
  },
  {
    method: 'delete',
    path: '/webhooks/:id',
    access: CURRENT_KEY,
    params: [webhookIdParameter],
    tags: ['webhooks'],
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook',
    description:
      'No new deliveries are queued for it; deliveries still pending are cancelled instead of attempted. Afterwards the webhook answers 404 everywhere, its delivery log included.',
    responses: {
      '200': { description: 'Removed.', content: json(schema('urn:gov:response:webhook-deleted')) },
      '404': UNKNOWN_WEBHOOK,
    },
    handler: removeWebhook,
  },
  {
    method: 'post',
    path: '/webhooks/:id/deliveries/:delivery_id/redeliver',
    access: CURRENT_KEY,
    params: [
      webhookIdParameter,
      {
        name: 'delivery_id',
        description: "A delivery_id from the webhook's delivery log. Any other value answers 404 NOT_FOUND.",
        schema: deliveryIdSchema,
      },
    ],
    body: 'none',
    tags: ['webhooks'],
    operationId: 'redeliverWebhookDelivery',
    summary: 'Send a delivery again (beyond the spec)',
    description:
      'Queues a new delivery of the same event to the same webhook: the same event id and the same body bytes and signature, with its own delivery id `<original delivery_id>:r<n>` and a fresh set of attempts. Any delivery of the log can be redelivered, whatever its status. Takes no body.',
    responses: {
      '202': {
        description: 'The redelivery is queued; it appears in the delivery log.',
        content: json(schema('urn:gov:response:redelivery')),
      },
      '400': invalid('A body was sent that is not empty (none, or {}).'),
      '404': notFound(
        "No such webhook for this tenant (unknown, removed, or another tenant's), or no such delivery of it.",
      ),
    },
    handler: redeliver,
  },
];

/** A command's context: when, its correlation id, and the caller's key. */
const contextOf = (services: GovernanceServices) => (res: Response) => ({
  now: services.clock(),
  correlationId: res.locals.correlationId as string,
  keyId: callerOf(res).keyId,
});

function registerWebhook(services: GovernanceServices) {
  const { webhooks } = services;
  const context = contextOf(services);
  return async (req: Request, res: Response) => {
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
  };
}

function removeWebhook(services: GovernanceServices) {
  const context = contextOf(services);
  return async (req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const webhookId = req.params.id as string;
    if (!WEBHOOK_ID.test(webhookId)) return unknownWebhook(res, webhookId);
    const outcome = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
      decideRemoveWebhook(state, webhookId, context(res)),
    );
    if (outcome.kind === 'refused') return refuse(res, outcome);
    await settled(services, tenant.tenant_id, outcome);
    res.json({ webhook_id: webhookId, deleted: true, removed_at: outcome.event.removed_at });
  };
}

function redeliver(services: GovernanceServices) {
  const context = contextOf(services);
  return async (req: Request, res: Response) => {
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
  };
}

/** Read-your-write: the delivery queue has applied the command's event before the answer goes out. */
async function settled(
  services: GovernanceServices,
  tenantId: string,
  committed: Committed<unknown>,
): Promise<void> {
  if (committed.position !== null) await services.webhooks.awaitDeliveryQueue(committed.position, tenantId);
}

function refuse(res: Response, refusal: WebhookRefusal): void {
  sendError(res, refusal.status, refusal.error, refusal.message);
}
