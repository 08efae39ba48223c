/** Given/when/then for a tenant's webhook commands: register, remove, send a delivery again. */
import { refusedWith } from '../../engine/decider-specification';
import {
  KEY,
  keyRotated,
  NOW,
  registered,
  TENANT_ID,
  tenantSpec,
  WEBHOOK_ID,
  webhookRegistered,
  webhookRemoved,
} from '../tenant-spec-fixtures';
import {
  decideRedeliver,
  decideRegisterWebhook,
  decideRemoveWebhook,
  MAX_WEBHOOKS_PER_TENANT,
  type WebhookRegistration,
} from './webhook-commands';

const context = (keyId = KEY.keyId) => ({ now: NOW, correlationId: 'c', keyId });
const registration: WebhookRegistration = {
  url: 'https://hooks.example/gov',
  events: ['leaf_admitted', 'gate_fail'],
  secretSealed: 'sealed-secret',
  secretGenerated: false,
};
const DELIVERY_ID = `${WEBHOOK_ID}.evt_${'1'.repeat(32)}`;
const OTHER_ID = `wh_${'2'.repeat(24)}`;

describe('registering a webhook', () => {
  const given = tenantSpec((state, command: { webhookId: string; keyId: string }) =>
    decideRegisterWebhook(state, command.webhookId, registration, context(command.keyId)),
  );

  it('given a tenant, when its current key registers a webhook, then WebhookRegistered with the sealed secret only', () => {
    given([registered()])
      .when({ webhookId: OTHER_ID, keyId: KEY.keyId })
      .then([
        {
          type: 'WebhookRegistered',
          data: {
            tenant_id: TENANT_ID,
            webhook_id: OTHER_ID,
            url: 'https://hooks.example/gov',
            events: ['leaf_admitted', 'gate_fail'],
            secret_sealed: 'sealed-secret',
            secret_generated: false,
            created_at: NOW.toISOString(),
          },
        },
      ]);
  });

  it(`given ${MAX_WEBHOOKS_PER_TENANT} webhooks, when another is registered, then 409 CONFLICT; after one is removed it is accepted`, () => {
    const full = Array.from({ length: MAX_WEBHOOKS_PER_TENANT }, (_, i) =>
      webhookRegistered(`wh_${i.toString(16).padStart(24, '0')}`),
    );
    given([registered(), ...full])
      .when({ webhookId: OTHER_ID, keyId: KEY.keyId })
      .thenThrows(refusedWith('CONFLICT', 409));
    given([registered(), ...full, webhookRemoved(`wh_${'0'.repeat(24)}`)])
      .when({ webhookId: OTHER_ID, keyId: KEY.keyId })
      .then([{ type: 'WebhookRegistered', data: { webhook_id: OTHER_ID } } as never]);
  });

  it('given a key rotation, when the replaced key registers a webhook, then 403 FORBIDDEN', () => {
    given([registered(), keyRotated()])
      .when({ webhookId: OTHER_ID, keyId: KEY.keyId })
      .thenThrows(refusedWith('FORBIDDEN', 403));
  });
});

describe('removing a webhook', () => {
  const given = tenantSpec((state, webhookId: string) => decideRemoveWebhook(state, webhookId, context()));

  it('given a webhook, when it is removed, then WebhookRemoved', () => {
    given([registered(), webhookRegistered()])
      .when(WEBHOOK_ID)
      .then([
        {
          type: 'WebhookRemoved',
          data: { tenant_id: TENANT_ID, webhook_id: WEBHOOK_ID, removed_at: NOW.toISOString() },
        },
      ]);
  });

  it('given no such webhook, or one already removed, when it is removed, then 404 NOT_FOUND', () => {
    given([registered()]).when(WEBHOOK_ID).thenThrows(refusedWith('NOT_FOUND', 404));
    given([registered(), webhookRegistered(), webhookRemoved()])
      .when(WEBHOOK_ID)
      .thenThrows(refusedWith('NOT_FOUND', 404));
  });
});

describe('sending a delivery again', () => {
  const given = tenantSpec((state, command: { webhookId: string; keyId: string }) =>
    decideRedeliver(state, command.webhookId, DELIVERY_ID, context(command.keyId)),
  );

  it('given a webhook, when a delivery of it is asked for again, then WebhookRedeliveryRequested', () => {
    given([registered(), webhookRegistered()])
      .when({ webhookId: WEBHOOK_ID, keyId: KEY.keyId })
      .then([
        {
          type: 'WebhookRedeliveryRequested',
          data: {
            tenant_id: TENANT_ID,
            webhook_id: WEBHOOK_ID,
            delivery_id: DELIVERY_ID,
            requested_at: NOW.toISOString(),
          },
        },
      ]);
  });

  it('given a removed webhook, then 404 NOT_FOUND; given a key rotation, the replaced key gets 403 FORBIDDEN', () => {
    given([registered(), webhookRegistered(), webhookRemoved()])
      .when({ webhookId: WEBHOOK_ID, keyId: KEY.keyId })
      .thenThrows(refusedWith('NOT_FOUND', 404));
    given([registered(), webhookRegistered(), keyRotated()])
      .when({ webhookId: WEBHOOK_ID, keyId: KEY.keyId })
      .thenThrows(refusedWith('FORBIDDEN', 403));
  });
});
