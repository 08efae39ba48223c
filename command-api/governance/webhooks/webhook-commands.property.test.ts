/** Properties of the webhook decisions: register (with the per-tenant cap), remove, redeliver. */
import fc from 'fast-check';
import type { WebhookRegistered } from '../../../event-schemas';
import { validCommandBody } from '../../../event-schemas/schema-arbitrary';
import {
  FIXED_KEY,
  PROPERTY_OPTIONS,
  schemaProblems,
  TenantSimulation,
  tenantCommandArb,
  tenantStartArb,
  type ValueOf,
} from '../property-support';
import {
  decideRedeliver,
  decideRegisterWebhook,
  decideRemoveWebhook,
  MAX_WEBHOOKS_PER_TENANT,
} from './webhook-commands';

const stateArb = fc.tuple(tenantStartArb, fc.array(tenantCommandArb, { maxLength: 10 }));
/** Every simulated tenant's current key is FIXED_KEY (registration and rotations issue it). */
const context = { now: new Date('2026-06-01T00:00:00Z'), correlationId: 'c', keyId: FIXED_KEY.keyId };
const webhookIdArb = fc.stringMatching(/^[0-9a-f]{24}$/).map((digits) => `wh_${digits}`);
/** Ids of this release (`dlv_<position>_<k>`) and of older ones (`<webhook_id>.<event_id>`). */
const deliveryIdArb = fc.oneof(
  fc
    .tuple(fc.stringMatching(/^[0-9a-z]{11}$/), fc.stringMatching(/^[0-9a-z]{5}$/))
    .map(([position, k]) => `dlv_${position}_${k}`),
  fc
    .tuple(webhookIdArb, fc.stringMatching(/^[0-9a-f]{32}$/))
    .map(([webhook, event]) => `${webhook}.evt_${event}`),
);

async function reach([start, history]: [ValueOf<typeof tenantStartArb>, ValueOf<typeof tenantCommandArb>[]]) {
  const simulation = new TenantSimulation(start);
  for (const command of history) await simulation.run(command);
  return simulation.state;
}

describe('webhook decisions', () => {
  it('given any tenant and any registration body the schema accepts, then below the cap it decides one valid WebhookRegistered, at the cap a 409 and nothing', async () => {
    const bodyArb = validCommandBody('register-webhook') as fc.Arbitrary<{
      url: string;
      events: WebhookRegistered['events'];
    }>;
    await fc.assert(
      fc.asyncProperty(stateArb, webhookIdArb, bodyArb, fc.boolean(), async (input, id, body, generated) => {
        const state = await reach(input);
        const registration = {
          url: body.url,
          events: body.events,
          secretSealed: 'sealed',
          secretGenerated: generated,
        };
        const { events, result } = decideRegisterWebhook(state, id, registration, context);
        if (state.webhooks.size >= MAX_WEBHOOKS_PER_TENANT) {
          expect(result).toMatchObject({ kind: 'refused', status: 409, error: 'CONFLICT' });
          expect(events).toEqual([]);
        } else {
          expect(events.map((e) => e.type)).toEqual(['WebhookRegistered']);
          expect(schemaProblems(events)).toEqual([]);
        }
      }),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
  });

  it('given any tenant and any webhook id, then removing or redelivering decides one valid event for a registered webhook, and a 404 with nothing otherwise', async () => {
    await fc.assert(
      fc.asyncProperty(
        stateArb,
        fc.oneof(webhookIdArb, fc.nat()),
        deliveryIdArb,
        async (input, pick, deliveryId) => {
          const state = await reach(input);
          const registered = [...state.webhooks.keys()];
          const id =
            typeof pick === 'number'
              ? (registered[pick % Math.max(1, registered.length)] ?? `wh_${'0'.repeat(24)}`)
              : pick;
          for (const decision of [
            decideRemoveWebhook(state, id, context),
            decideRedeliver(state, id, deliveryId, context),
          ]) {
            if (state.webhooks.has(id)) {
              expect(decision.events).toHaveLength(1);
              expect(schemaProblems(decision.events)).toEqual([]);
            } else {
              expect(decision.result).toMatchObject({ kind: 'refused', status: 404, error: 'NOT_FOUND' });
              expect(decision.events).toEqual([]);
            }
          }
        },
      ),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
  });
});
