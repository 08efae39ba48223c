/**
 * Feeds the delivery-queue projection from the bus (in-process in the embedded mode, Kafka in
 * production): each batch is projected into owed deliveries and written before the handler resolves,
 * so the bus moves its offset only once the deliveries are durable. The delivery worker is handed
 * them as soon as their write is under way (a crash before it is done replays the batch: sent at
 * least once), and the new events go out to connected sockets.
 */
import type { Bus, BusConsumer } from '../../ports/bus';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change, ReadStore } from '../../ports/read-store';
import { AppliedDocuments } from '../engine/applied-documents';
import { BatchState } from '../engine/batch-state';
import { compactChanges } from '../engine/compact-changes';
import { FollowedPosition } from '../engine/position-waiters';
import { type Projection, physicalCollection } from '../engine/projection';
import { projectInto } from '../engine/runner';
import {
  APPLIED_ID,
  type DeliveryView,
  storedDelivery,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DISPATCH_META,
  WEBHOOKS,
} from './delivery-queue-projection';
import type { FramePublisher } from './frame-fanout';

/** The bus consumer group (stored: the bus checkpoint is named after it). */
export const DELIVERY_QUEUE_GROUP = 'dispatcher';

export interface DeliveryQueueConsumerOptions {
  bus: Bus;
  readStore: ReadStore;
  projection: Projection;
  /** The delivery queue's collections are not rebuilt blue/green: they live in one fixed generation. */
  generation: number;
  /** Collection (logical name) holding the owed deliveries. */
  deliveries: string;
  /**
   * The deliveries a batch queued, in seq order: once they are written, or, with `stored`, while
   * they are (on a store that shows a write only once it is done, readers of the queue wait for it).
   */
  onQueued(deliveries: readonly DeliveryView[], stored?: Promise<void>): void;
  /**
   * The same deliveries, with their bodies, before they are written: the worker on this connection
   * may read them back (without bodies) before `onQueued`, and then should not render them again.
   */
  onQueuing?(deliveries: readonly DeliveryView[]): void;
  fanout?: FramePublisher;
  /**
   * Record in the read store, per tenant with a webhook command in the batch, the position of the
   * newest of its events handled (collection DELIVERY_QUEUE_PROGRESS), so that webhook commands answered
   * by other processes can wait for it.
   */
  recordProgress?: boolean;
  /** Told after each batch with the position handled (for a main thread bounding the queue's lag). */
  onHandled?(position: number): void;
  /** Told when the bus assigns this consumer events anew: `whole` when it takes every event. */
  onAssigned?(whole: boolean): void;
  /** Told, once written, which webhooks a batch registered or removed (a worker keeping them forgets them). */
  onWebhooksChanged?(webhookIds: readonly string[]): void;
}

/**
 * Per tenant: the position of the newest of its events the delivery queue has handled, moved by the
 * batches that hold one of its webhook commands (what such a command waits for) (logical name).
 */
export const DELIVERY_QUEUE_PROGRESS = 'dispatcher_progress';

export class DeliveryQueueConsumer {
  private consumer: BusConsumer | null = null;
  private readonly handled = new FollowedPosition();
  private readonly eventTypes: ReadonlySet<string>;
  /**
   * Whether the bus gives this consumer every event of the group (the in-process bus; the one
   * dispatcher holding every Kafka partition): its collections' one writer then, it may keep the
   * documents it wrote between batches and write an increment as the document it leaves.
   */
  private whole = false;
  /** Set by each assignment of the bus: what was kept before it is forgotten at the next batch. */
  private reassigned = true;
  /**
   * The delivery queue's documents as this consumer last wrote or read them, between batches: a batch
   * otherwise reads every tenant's active webhooks, the pending count and the last seq back from the
   * store (~40% of the reads of the delivery thread with 100 webhooks). Only while this consumer takes
   * every event (`whole`). Forgotten when a batch fails, since the store may then hold part of it, and
   * when the bus assigns events again, since another consumer may have written meanwhile. Queued deliveries are not kept: the projection reads them only for a
   * redelivery, and their bodies would fill the memory.
   */
  private readonly documents = new AppliedDocuments(4096, (collection) => collection !== WEBHOOK_DELIVERIES);

  constructor(private readonly options: DeliveryQueueConsumerOptions) {
    this.eventTypes = new Set(options.projection.eventTypes);
  }

  async start(): Promise<void> {
    const { projection, readStore, generation } = this.options;
    this.documents.clear();
    for (const index of projection.indexes ?? [])
      await readStore.ensureIndex({
        collection: physicalCollection(index.collection, generation),
        fields: index.fields,
      });
    this.consumer = await this.options.bus.subscribe(DELIVERY_QUEUE_GROUP, (events) => this.handle(events), {
      // Not the platform's action events, nor any other type it would only skip.
      eventTypes: projection.eventTypes,
      ...(projection.dataMembers ? { dataMembers: projection.dataMembers } : {}),
      onAssigned: (whole) => {
        this.whole = whole;
        this.reassigned = true;
        this.options.onAssigned?.(whole);
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }

  /** The newest position handled (0 before any). */
  get handledPosition(): number {
    return this.handled.position ?? 0;
  }

  /** Resolves once this consumer has handled every event up to `position`. */
  waitForPosition(position: number): Promise<void> {
    return this.handled.wait(position);
  }

  private async handle(events: RecordedEvent[]): Promise<void> {
    try {
      await this.project(events);
    } catch (error) {
      this.documents.clear();
      throw error;
    }
  }

  private async project(events: RecordedEvent[]): Promise<void> {
    const { projection, readStore, generation } = this.options;
    const relevant = events.filter((event) => this.eventTypes.has(event.type));
    const sole = this.whole;
    if (this.reassigned) {
      this.documents.clear();
      this.reassigned = false;
    }
    const state = new BatchState(readStore, generation, sole ? this.documents : undefined);
    const projected = relevant.length > 0 ? await projectInto(state, projection, generation, relevant) : [];
    const changes = sole ? this.settleIncrements(projected, state) : projected;
    const progress = this.options.recordProgress ? progressChanges(events, generation) : [];
    const queued = physicalCollection(this.options.deliveries, generation);
    const isDelivery = (change: Change): change is Change & { kind: 'upsert'; data: DeliveryView } =>
      change.kind === 'upsert' && change.collection === queued;
    const views = changes.filter(isDelivery).map((change) => change.data);
    if (views.length > 0) this.options.onQueuing?.(views);
    // Bodies stay in memory, for the first attempts: what is stored renders them again.
    const writes = compactChanges([...changes, ...progress]).map((change) =>
      isDelivery(change) ? { ...change, data: storedDelivery(change.data) } : change,
    );
    const webhooks = physicalCollection(WEBHOOKS, generation);
    const changedWebhooks = changes.filter((change) => change.collection === webhooks).map((c) => c.id);
    const handOver = (stored?: Promise<void>) => {
      if (changedWebhooks.length > 0) this.options.onWebhooksChanged?.(changedWebhooks);
      if (views.length === 0) return;
      this.options.onQueued(views, stored);
      this.publishFrames(views);
    };
    if (readStore.atomicApply) {
      // One apply, one transaction: a store that groups its commits makes each apply wait for one
      // (up to ~50 ms), so one per batch instead of two. The worker sees the write at once and sends
      // while it commits: the deliveries derive from stored events, so a crash before the commit
      // queues them again when the batch is replayed, and they are sent again (at least once;
      // receivers deduplicate by event id).
      const written = writes.length > 0 ? readStore.apply(writes) : Promise.resolve();
      handOver();
      await written;
    } else {
      // Without transactions the batch's writes take a round trip or more each (on FerretDB, under
      // load, most of the time from an admission to its first delivery): the worker sends while
      // they are made, as on a store with transactions, and the same replay covers a failure. Not
      // when the batch changes webhooks: the worker reads one it does not know from the store.
      const stored = (async () => {
        for (const write of writeOrder(writes, generation)) await readStore.apply(write);
      })();
      const early = changedWebhooks.length === 0;
      if (early) handOver(stored);
      await stored;
      if (!early) handOver();
    }
    state.stored();
    this.handled.advance(events[events.length - 1]?.position ?? 0);
    this.options.onHandled?.(this.handledPosition);
  }

  /**
   * Each increment as an upsert of the document the batch leaves: the batch state has computed it
   * (position guards included), and of a document's upserts only the last is written. A tenant's chain
   * depth and the pending-leaf count change at every admission: as increments, each would be a read and
   * a JSON rewrite in the store, as costly as all the batch's upserts; so they take one upsert per
   * batch. Only while this consumer takes every event, so that its batch state holds what the store holds. An increment a
   * replay skipped is passed on as it is.
   */
  private settleIncrements(changes: readonly Change[], state: BatchState): Change[] {
    const { projection, generation } = this.options;
    const logical = new Map(
      projection.collections.map((name) => [physicalCollection(name, generation), name]),
    );
    return changes.map((change) => {
      if (change.kind !== 'increment') return change;
      const settled = state.changed(logical.get(change.collection) ?? change.collection, change.id);
      return settled
        ? {
            kind: 'upsert',
            collection: change.collection,
            id: change.id,
            position: settled.position,
            data: settled.data,
          }
        : change;
    });
  }

  /** One frame per event (not per webhook) to the tenant's connected sockets. */
  private publishFrames(deliveries: readonly DeliveryView[]): void {
    const { fanout } = this.options;
    if (!fanout) return;
    const sent = new Set<string>();
    for (const delivery of deliveries) {
      if (delivery.body === null || sent.has(delivery.event_id) || !fanout.hasSubscribers(delivery.tenant_id))
        continue;
      sent.add(delivery.event_id);
      fanout.publish(delivery.tenant_id, delivery.body);
    }
  }
}

/**
 * The writes of a batch on a read store without transactions, one after the other. MongoDB writes
 * the collections of one write side by side, in no set order, so what must be stored before
 * something else goes in an earlier write:
 *   1. the deliveries, first: a replay of the batch can derive them again only while nothing says
 *      the batch was handled (the `applied` marker) and the pending leaves they come from are kept;
 *   2. the rest of the state the batch leaves, with what its tree heads consumed (the pending leaves
 *      they delete and the pending count they lower);
 *   3. the `applied` marker and the progress of webhook commands, last: once a replay skips the
 *      batch, or a command is answered, everything the batch changed is stored.
 * A crash before the last write replays the batch, which queues the same deliveries again (their
 * inserts find them stored); of each document only its last version is written.
 */
export function writeOrder(changes: readonly Change[], generation: number): Change[][] {
  const deliveries = physicalCollection(WEBHOOK_DELIVERIES, generation);
  const meta = physicalCollection(WEBHOOK_DISPATCH_META, generation);
  const progress = physicalCollection(DELIVERY_QUEUE_PROGRESS, generation);
  const phase = (change: Change) =>
    change.collection === deliveries
      ? 0
      : (change.collection === meta && change.id === APPLIED_ID) || change.collection === progress
        ? 2
        : 1;
  const writes: Change[][] = [[], [], []];
  for (const change of changes) writes[phase(change)]!.push(change);
  return writes.filter((write) => write.length > 0);
}

/** The events of webhook commands, the only ones a command waits for the delivery queue to handle. */
const WEBHOOK_COMMAND_EVENTS: ReadonlySet<string> = new Set([
  'WebhookRegistered',
  'WebhookRemoved',
  'WebhookRedeliveryRequested',
]);

/**
 * One position-guarded upsert per tenant with a webhook command in the batch: the newest of its
 * events now handled. (An upsert per tenant of every batch would be a write per admission.)
 */
function progressChanges(events: readonly RecordedEvent[], generation: number): Change[] {
  const commanding = new Set<string>();
  for (const event of events) if (WEBHOOK_COMMAND_EVENTS.has(event.type)) commanding.add(event.tenant_id);
  const newest = new Map<string, number>();
  for (const event of events) {
    if (commanding.has(event.tenant_id))
      newest.set(event.tenant_id, Math.max(newest.get(event.tenant_id) ?? 0, event.position));
  }
  const collection = physicalCollection(DELIVERY_QUEUE_PROGRESS, generation);
  return [...newest].map(([tenant, position]) => ({
    kind: 'upsert',
    collection,
    id: tenant,
    position,
    data: { position },
  }));
}
