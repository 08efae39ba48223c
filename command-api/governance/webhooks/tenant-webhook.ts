/**
 * A webhook of the caller's tenant, looked up the same way by the webhook commands and reads: an id
 * of another form, a removed webhook and another tenant's webhook all answer as unknown.
 */
import type { Response } from 'express';
import type { WebhookView } from '../../../projectors/webhooks/delivery-queue-projection';
import { sendError } from '../../../runtime/http/errors';
import { notFound, schema } from '../../../runtime/http/openapi-parts';
import type { PathParameter } from '../../../runtime/http/route-table';
import type { GovernanceServices } from '../services';
import { callerOf } from '../tenants/auth';

export const WEBHOOK_ID = /^wh_[0-9a-f]{24}$/;

type StoredWebhook = WebhookView;

export const webhookIdParameter: PathParameter = {
  name: 'id',
  description:
    "The webhook_id from POST /webhooks. Any other value, a removed webhook and another tenant's webhook all answer 404 NOT_FOUND.",
  schema: { type: 'string', pattern: WEBHOOK_ID.source },
};

/** The delivery log's delivery id (`dlv_<position>_<k>`, `…:r<n>` for a redelivery). */
export const deliveryIdSchema = schema('urn:gov:response:delivery-log', '/$defs/delivery_id');

export const UNKNOWN_WEBHOOK = notFound(
  "No such webhook for this tenant: unknown, removed, or another tenant's (all answer the same).",
);

/** The caller's own, not removed webhook; otherwise answers 404 and returns null. */
export async function ownWebhook(
  services: GovernanceServices,
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
