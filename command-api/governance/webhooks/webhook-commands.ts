/**
 * Decisions about a tenant's webhooks: register, remove, and ask for a delivery to be sent again.
 * They live in the tenant's stream, so the per-tenant cap and "remove only what exists" are exact.
 */
import { randomBytes } from 'node:crypto';
import type { WebhookRedeliveryRequested, WebhookRegistered, WebhookRemoved } from '../../../event-schemas';
import type { Refusal } from '../evidence/submit-evidence';
import { refuseRetiredKey } from '../tenants/current-key';
import { type TenantDecision, type TenantState, tenantEvent } from '../tenants/tenant-state';

/** Webhooks one tenant may have at a time: enough for fan-out, bounded so one tenant cannot flood. */
export const MAX_WEBHOOKS_PER_TENANT = 100;

export interface CommandContext {
  now: Date;
  correlationId: string;
  /** The caller's key: only the tenant's current key manages webhooks (./current-key.ts). */
  keyId: string;
}

export interface WebhookRegistration {
  url: string;
  events: WebhookRegistered['events'];
  /** The signing secret, already sealed for storage (see projectors/webhooks/secret-box.ts). */
  secretSealed: string;
  secretGenerated: boolean;
}

export type WebhookRefusal = Omit<Refusal, 'status' | 'error'> &
  (
    | { status: 403; error: 'FORBIDDEN' }
    | { status: 404; error: 'NOT_FOUND' }
    | { status: 409; error: 'CONFLICT' }
  );

export function newWebhookId(): string {
  return `wh_${randomBytes(12).toString('hex')}`;
}

export function decideRegisterWebhook(
  state: TenantState,
  webhookId: string,
  registration: WebhookRegistration,
  context: CommandContext,
): TenantDecision<{ kind: 'registered'; event: WebhookRegistered } | WebhookRefusal> {
  const refusal = refuseRetiredKey(state, context.keyId);
  if (refusal) return { events: [], result: refusal };
  if (state.webhooks.size >= MAX_WEBHOOKS_PER_TENANT) {
    return {
      events: [],
      result: {
        kind: 'refused',
        status: 409,
        error: 'CONFLICT',
        message: `a tenant may register at most ${MAX_WEBHOOKS_PER_TENANT} webhooks; delete one first (DELETE /webhooks/:id)`,
      },
    };
  }
  const event: WebhookRegistered = {
    tenant_id: state.tenant_id,
    webhook_id: webhookId,
    url: registration.url,
    events: registration.events,
    secret_sealed: registration.secretSealed,
    secret_generated: registration.secretGenerated,
    created_at: context.now.toISOString(),
  };
  return {
    events: [tenantEvent(state, context, 'WebhookRegistered', event)],
    result: { kind: 'registered', event },
  };
}

export function decideRemoveWebhook(
  state: TenantState,
  webhookId: string,
  context: CommandContext,
): TenantDecision<{ kind: 'removed'; event: WebhookRemoved } | WebhookRefusal> {
  const refusal = refuseRetiredKey(state, context.keyId);
  if (refusal) return { events: [], result: refusal };
  if (!state.webhooks.has(webhookId)) return { events: [], result: unknownWebhook(webhookId) };
  const event: WebhookRemoved = {
    tenant_id: state.tenant_id,
    webhook_id: webhookId,
    removed_at: context.now.toISOString(),
  };
  return {
    events: [tenantEvent(state, context, 'WebhookRemoved', event)],
    result: { kind: 'removed', event },
  };
}

/** `deliveryId` must be a delivery of this webhook, which the caller checked against the delivery log. */
export function decideRedeliver(
  state: TenantState,
  webhookId: string,
  deliveryId: string,
  context: CommandContext,
): TenantDecision<{ kind: 'requested'; event: WebhookRedeliveryRequested } | WebhookRefusal> {
  const refusal = refuseRetiredKey(state, context.keyId);
  if (refusal) return { events: [], result: refusal };
  if (!state.webhooks.has(webhookId)) return { events: [], result: unknownWebhook(webhookId) };
  const event: WebhookRedeliveryRequested = {
    tenant_id: state.tenant_id,
    webhook_id: webhookId,
    delivery_id: deliveryId,
    requested_at: context.now.toISOString(),
  };
  return {
    events: [tenantEvent(state, context, 'WebhookRedeliveryRequested', event)],
    result: { kind: 'requested', event },
  };
}

function unknownWebhook(webhookId: string): WebhookRefusal {
  return {
    kind: 'refused',
    status: 404,
    error: 'NOT_FOUND',
    message: `no webhook ${webhookId} for this tenant; GET /webhooks lists yours`,
  };
}
