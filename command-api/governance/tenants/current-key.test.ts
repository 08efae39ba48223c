/**
 * Account management belongs to the tenant's current key: given/when/then over the deciders, on a
 * tenant state folded from its events as the aggregate writer folds them.
 */

import { foldTenant } from '../property-support';
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
import type { TenantState } from './tenant-state';

const now = new Date('2026-03-01T10:00:00Z');
const webhookId = `wh_${'a'.repeat(24)}`;
const registration: WebhookRegistration = {
  url: 'https://hooks.example/gov',
  events: ['leaf_admitted'],
  secretSealed: 's',
  secretGenerated: true,
};

/** A tenant registered with `first`, with one webhook, whose key was then rotated to `second`. */
function rotatedTenant() {
  const first = issueApiKey('live');
  const second = issueApiKey('live');
  const registered = decideRegisterTenant({ email: 'owner@example.com' }, now, undefined, first);
  let state = foldTenant([registered.event]);
  const context = { now, correlationId: 'c', keyId: first.keyId };
  state = foldTenant(decideRegisterWebhook(state, webhookId, registration, context).events, state);
  state = foldTenant(decideRotateKey(state, context, second).events, state);
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
    const { state: rotated, second } = rotatedTenant();
    let state = rotated;
    const third = issueApiKey('live');
    const context = { now, correlationId: 'c', keyId: second.keyId };
    const winner = decideRotateKey(state, context, third);
    state = foldTenant(winner.events, state);
    const loser = decideRotateKey(state, context);
    expect(loser).toEqual({
      events: [],
      result: { kind: 'refused', status: 403, error: 'FORBIDDEN', message: RETIRED_KEY_MESSAGE },
    });
    expect(state.active_key_id).toBe(third.keyId);
  });
});
