/**
 * Which read-store names hold the dispatcher's state: its projection's collections, the delivery log
 * and rendered bodies, the per-tenant progress, and the checkpoints of its bus consumer and worker.
 * The embedded server keeps exactly these in a SQLite file of their own (SplitReadStore), so the
 * delivery thread's writes never wait for, or hold up, the read models' writes.
 */
import { busCheckpointName } from '../../adapters/embedded/event-store-bus';
import { RENDERED_BODIES } from './delivery-bodies';
import { DELIVERY_LOG } from './delivery-log';
import { INTAKE_CHECKPOINT } from './delivery-worker';
import { DISPATCHER_GROUP, DISPATCHER_PROGRESS } from './dispatcher-consumer';
import { dispatcherProjection } from './dispatcher-projection';

const COLLECTIONS: ReadonlySet<string> = new Set([
  ...dispatcherProjection({ publicUrl: 'http://collections.only' }).collections,
  DELIVERY_LOG,
  RENDERED_BODIES,
  DISPATCHER_PROGRESS,
]);

const CHECKPOINTS: ReadonlySet<string> = new Set([busCheckpointName(DISPATCHER_GROUP), INTAKE_CHECKPOINT]);

/** Whether a collection (logical, or physical `name__gN`) or a checkpoint is the dispatcher's. */
export function isDispatcherState(name: string): boolean {
  return CHECKPOINTS.has(name) || COLLECTIONS.has(name.replace(/__g\d+$/, ''));
}
