import { busCheckpointName } from '../../adapters/embedded/event-store-bus';
import { checkpointName, physicalCollection } from '../engine/projection';
import { governanceProjection } from '../governance/governance-projection';
import { tenantsProjection } from '../governance/tenants';
import { treeHeadsProjection } from '../log/tree-heads';
import { RENDERED_BODIES } from './delivery-bodies';
import { DELIVERY_LOG } from './delivery-log';
import { INTAKE_CHECKPOINT } from './delivery-worker';
import { DISPATCHER_GROUP, DISPATCHER_PROGRESS } from './dispatcher-consumer';
import { dispatcherProjection } from './dispatcher-projection';
import { isDispatcherState } from './dispatcher-state';

describe('the dispatcher state kept apart from the read models', () => {
  const dispatcherCollections = [
    ...dispatcherProjection({ publicUrl: 'https://gov.example' }).collections,
    DELIVERY_LOG,
    RENDERED_BODIES,
    DISPATCHER_PROGRESS,
  ];

  it('given each dispatcher collection, by name and in any generation, then it is the dispatcher state', () => {
    for (const name of dispatcherCollections) {
      expect(isDispatcherState(name)).toBe(true);
      expect(isDispatcherState(physicalCollection(name, 1))).toBe(true);
      expect(isDispatcherState(physicalCollection(name, 12))).toBe(true);
    }
  });

  it("given the dispatcher's bus and intake checkpoints, then they are the dispatcher state", () => {
    expect(isDispatcherState(busCheckpointName(DISPATCHER_GROUP))).toBe(true);
    expect(isDispatcherState(INTAKE_CHECKPOINT)).toBe(true);
  });

  it('given the read models and their checkpoints, then none is the dispatcher state', () => {
    for (const projection of [governanceProjection, tenantsProjection, treeHeadsProjection]) {
      expect(isDispatcherState(checkpointName(projection, 1))).toBe(false);
      for (const name of projection.collections)
        expect(isDispatcherState(physicalCollection(name, 1))).toBe(false);
    }
    expect(isDispatcherState('bus-forwarder')).toBe(false);
  });
});
