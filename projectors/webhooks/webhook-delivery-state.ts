/**
 * Which read-store names hold webhook delivery's state: the delivery-queue projection's collections, the delivery log
 * and rendered bodies, the per-tenant progress, and the checkpoints of its bus consumer and worker.
 * The embedded server keeps exactly these in a SQLite file of their own (SplitReadStore), so the
 * delivery thread's writes never wait for, or hold up, the read models' writes.
 */
import { busCheckpointName } from '../../adapters/embedded/event-store-bus';
import { RENDERED_BODIES } from './delivery-bodies';
import { DELIVERY_LOG } from './delivery-log';
import { DELIVERY_QUEUE_GROUP, DELIVERY_QUEUE_PROGRESS } from './delivery-queue-consumer';
import { deliveryQueueProjection } from './delivery-queue-projection';
import { INTAKE_CHECKPOINT } from './delivery-worker';

const COLLECTIONS: ReadonlySet<string> = new Set([
  ...deliveryQueueProjection({ publicUrl: 'http://collections.only' }).collections,
  DELIVERY_LOG,
  RENDERED_BODIES,
  DELIVERY_QUEUE_PROGRESS,
]);

const CHECKPOINTS: ReadonlySet<string> = new Set([
  busCheckpointName(DELIVERY_QUEUE_GROUP),
  INTAKE_CHECKPOINT,
]);

/** Whether a collection (logical, or physical `name__gN`) or a checkpoint is webhook delivery's. */
export function isWebhookDeliveryState(name: string): boolean {
  return CHECKPOINTS.has(name) || COLLECTIONS.has(name.replace(/__g\d+$/, ''));
}
