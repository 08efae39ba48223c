import { busCheckpointName } from '../../adapters/embedded/event-store-bus';
import { checkpointName, physicalCollection } from '../engine/projection';
import { governanceProjection } from '../governance/governance-projection';
import { tenantsProjection } from '../governance/tenants';
import { treeHeadsProjection } from '../log/tree-heads';
import { RENDERED_BODIES } from './delivery-bodies';
import { DELIVERY_LOG } from './delivery-log';
import { DELIVERY_QUEUE_GROUP, DELIVERY_QUEUE_PROGRESS } from './delivery-queue-consumer';
import { deliveryQueueProjection } from './delivery-queue-projection';
import { INTAKE_CHECKPOINT } from './delivery-worker';
import { isWebhookDeliveryState } from './webhook-delivery-state';

describe('webhook delivery state kept apart from the read models', () => {
  const deliveryCollections = [
    ...deliveryQueueProjection({ publicUrl: 'https://gov.example' }).collections,
    DELIVERY_LOG,
    RENDERED_BODIES,
    DELIVERY_QUEUE_PROGRESS,
  ];

  it('given each webhook delivery collection, by name and in any generation, then it is webhook delivery state', () => {
    for (const name of deliveryCollections) {
      expect(isWebhookDeliveryState(name)).toBe(true);
      expect(isWebhookDeliveryState(physicalCollection(name, 1))).toBe(true);
      expect(isWebhookDeliveryState(physicalCollection(name, 12))).toBe(true);
    }
  });

  it("given the delivery queue's bus checkpoint and the intake checkpoint, then they are webhook delivery state", () => {
    expect(isWebhookDeliveryState(busCheckpointName(DELIVERY_QUEUE_GROUP))).toBe(true);
    expect(isWebhookDeliveryState(INTAKE_CHECKPOINT)).toBe(true);
  });

  it('given the read models and their checkpoints, then none is webhook delivery state', () => {
    for (const projection of [governanceProjection, tenantsProjection, treeHeadsProjection]) {
      expect(isWebhookDeliveryState(checkpointName(projection, 1))).toBe(false);
      for (const name of projection.collections)
        expect(isWebhookDeliveryState(physicalCollection(name, 1))).toBe(false);
    }
    expect(isWebhookDeliveryState('bus-forwarder')).toBe(false);
  });
});
