/**
 * Account management belongs to the tenant's current key: given/when/then over the deciders, on a
 * tenant state folded from its events as the aggregate writer folds them.
 */
import type { NewEvent } from '../../../ports/event-store';
import {
  decideRedeliver,
  decideRegisterWebhook,
  decideRemoveWebhook,
  type WebhookRegistration,
} from '../webhooks/webhook-commands';
import { decideRotateKey } from './account-commands';
import { issueApiKey } from './api-keys';
import { RETIRED_KEY_MESSAGE } from './current-key';
import { decideRegisterTenant } from './register-tenant';
import { type TenantState, tenantAggregate } from './tenant-state';

const now = new Date('2026-03-01T10:00:00Z');
const webhookId = `wh_${'a'.repeat(24)}`;
const registration: WebhookRegistration = {
  url: 'https://hooks.example/gov',
  events: ['leaf_admitted'],
  secretSealed: 's',
  secretGenerated: true,
};

function fold(state: TenantState, events: readonly Pick<NewEvent, 'type' | 'data'>[]): void {
  for (const event of events) tenantAggregate.evolve(state, event);
}

/** A tenant registered with `first`, with one webhook, whose key was then rotated to `second`. */
function rotatedTenant() {
  const first = issueApiKey('live');
  const second = issueApiKey('live');
  const state = tenantAggregate.initial();
  const registered = decideRegisterTenant({ email: 'owner@example.com' }, now, undefined, first);
  fold(state, [registered.event]);
  const context = { now, correlationId: 'c', keyId: first.keyId };
  fold(state, decideRegisterWebhook(state, webhookId, registration, context).events);
  fold(state, decideRotateKey(state, context, second).events);
  return { state, first, second };
}

/** Every account-management decision, made with `keyId`. */
function managementDecisions(state: TenantState, keyId: string) {
  const context = { now, correlationId: 'c', keyId };
  return {
    rotate: decideRotateKey(state, context),
    registerWebhook: decideRegisterWebhook(state, `wh_${'b'.repeat(24)}`, registration, context),
    removeWebhook: decideRemoveWebhook(state, webhookId, context),
    redeliver: decideRedeliver(state, webhookId, `dlv_${'1'.repeat(11)}_00001`, context),
  };
}

describe('account management and the current key', () => {
  it('given a key rotated out (in its grace period), when it makes any account-management decision, then each is refused 403 FORBIDDEN and decides nothing', () => {
    const { state, first } = rotatedTenant();
    for (const [name, decision] of Object.entries(managementDecisions(state, first.keyId))) {
      expect({ name, events: decision.events, result: decision.result }).toEqual({
        name,
        events: [],
        result: { kind: 'refused', status: 403, error: 'FORBIDDEN', message: RETIRED_KEY_MESSAGE },
      });
    }
  });

  it('given the same tenant, when its current key makes them, then each decides its event', () => {
    const { state, second } = rotatedTenant();
    const types = Object.values(managementDecisions(state, second.keyId)).map((decision) =>
      decision.events.map((event) => event.type),
    );
    expect(types).toEqual([
      ['ApiKeyRotated'],
      ['WebhookRegistered'],
      ['WebhookRemoved'],
      ['WebhookRedeliveryRequested'],
    ]);
  });

  it('given two rotations with the same key decided one after the other (a race the edge cannot see), then the second is refused and the first key stays replaced', () => {
    const { state, second } = rotatedTenant();
    const third = issueApiKey('live');
    const context = { now, correlationId: 'c', keyId: second.keyId };
    const winner = decideRotateKey(state, context, third);
    fold(state, winner.events);
    const loser = decideRotateKey(state, context);
    expect(loser).toEqual({
      events: [],
      result: { kind: 'refused', status: 403, error: 'FORBIDDEN', message: RETIRED_KEY_MESSAGE },
    });
    expect(state.active_key_id).toBe(third.keyId);
  });
});
