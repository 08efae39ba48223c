/**
 * Where the body of a delivery comes from. A delivery the consumer just queued brings it in memory;
 * a stored one has a recipe instead (body-recipe.ts), rendered again, to the same bytes, by `render`;
 * bodies of deliveries just queued or rendered are kept in memory a while, so an intake that reads
 * them back from the store, or a retry soon after, costs no render.
 * A compliance report, which the projection cannot build (its inclusion proof needs the log), is
 * rendered when the delivery is taken in and kept in `webhook_rendered_bodies`, so every attempt
 * sends the same signed bytes. Documents of older releases hold their body, or name the delivery of
 * the same event that holds it (`body_of`).
 */
import type { Change, ReadStore } from '../../ports/read-store';
import type { DeliveryLogEntry } from './delivery-log';
import type { DeliveryView } from './delivery-queue-projection';

export const RENDERED_BODIES = 'webhook_rendered_bodies';

interface RenderedBody {
  body: string;
}

export interface DeliveryBodiesOptions {
  readStore: ReadStore;
  /** Physical name of the delivery-queue projection's delivery collection. */
  deliveries: string;
  /** Renders a body from its recipe, or one the projection could not build itself (a report). */
  render?: (delivery: DeliveryView) => Promise<string>;
}

/**
 * Bodies of deliveries just queued, for an intake that reads them back from the store (the periodic
 * look for due retries, a backlog past what is offered in memory): rendering each again would cost
 * far more (an event read and a render on the main thread). A body rendered from a recipe is the same
 * bytes for every delivery of its webhook event (one event id, one recipe: a fan-out to 100 webhooks,
 * a redelivery), so those are kept once per event id; the rest per delivery. ~2 KB a body: at most
 * ~8 MB. (Kept per delivery, a burst of 100 events to 100 webhooks outgrew this and rendered ~6,000
 * bodies again on the main thread.)
 */
const RECENT_BODIES = 4096;

export class DeliveryBodies {
  private readonly recent = new Map<string, string>();

  constructor(private readonly options: DeliveryBodiesOptions) {}

  /** Keeps the bodies of deliveries just queued, for their intake (see RECENT_BODIES). */
  remember(deliveries: readonly DeliveryView[]): void {
    for (const delivery of deliveries)
      if (delivery.body !== null) this.keepRecent(recentKey(delivery), delivery.body);
  }

  /** The body of a delivery being taken in, and the change that keeps it when it was rendered here. */
  async take(delivery: DeliveryView): Promise<{ body: string; keep: Change | null }> {
    if (delivery.body !== null) {
      // A stored body (older releases) may be named by the deliveries after it.
      if (!delivery.recipe) this.keepRecent(delivery.delivery_id, delivery.body);
      return { body: delivery.body, keep: null };
    }
    const recent = this.recent.get(recentKey(delivery));
    if (recent !== undefined) return { body: recent, keep: null };
    if (delivery.body_of !== undefined)
      return {
        body: this.recent.get(delivery.body_of) ?? (await this.heldBy(delivery.body_of)),
        keep: null,
      };
    const body = await this.render(delivery);
    if (delivery.recipe) {
      this.keepRecent(recentKey(delivery), body); // for the rest of its fan-out, or a retry soon after
      return { body, keep: null };
    }
    return {
      body,
      // Written with the delivery's first log entry: the log never names a body that is not kept.
      keep: {
        kind: 'upsert',
        collection: RENDERED_BODIES,
        id: delivery.delivery_id,
        position: 1,
        data: { body },
      },
    };
  }

  /** The exact bytes of a logged delivery, for an attempt after the first. */
  async of(entry: DeliveryLogEntry): Promise<string> {
    if (entry.body !== undefined) return entry.body; // an entry of an older release carries its body
    // The log does not say whether the delivery had a recipe: its own body first, then its event's.
    const recent = this.recent.get(entry.delivery_id) ?? this.recent.get(eventKey(entry.event_id));
    if (recent !== undefined) return recent;
    const { readStore, deliveries } = this.options;
    const queued = await readStore.get<DeliveryView>(deliveries, entry.delivery_id);
    if (!queued) throw new Error(`delivery ${entry.delivery_id} is not in the delivery queue`);
    if (queued.data.body !== null) return queued.data.body;
    if (queued.data.body_of !== undefined) return this.heldBy(queued.data.body_of);
    if (queued.data.recipe) return this.render(queued.data);
    const rendered = await readStore.get<RenderedBody>(RENDERED_BODIES, entry.delivery_id);
    return rendered ? rendered.data.body : this.render(queued.data);
  }

  /** The body the delivery `holderId` holds for the deliveries that share it. */
  private async heldBy(holderId: string): Promise<string> {
    const holder = await this.options.readStore.get<DeliveryView>(this.options.deliveries, holderId);
    if (holder?.data.body == null)
      throw new Error(`delivery ${holderId}, which holds a shared body, is not in the delivery queue`);
    return holder.data.body;
  }

  private keepRecent(deliveryId: string, body: string): void {
    if (this.recent.size >= RECENT_BODIES) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(deliveryId, body);
  }

  private render(delivery: DeliveryView): Promise<string> {
    if (!this.options.render) throw new Error(`no renderer for delivery ${delivery.delivery_id}`);
    return this.options.render(delivery);
  }
}

/** Where a delivery's body is kept in memory: by its event for a recipe's body, else by itself. */
function recentKey(delivery: DeliveryView): string {
  return delivery.recipe ? eventKey(delivery.event_id) : delivery.delivery_id;
}

/** Event ids (`evt_…`) and delivery ids (`dlv_…`, `<webhook>.<event>`) never collide; the prefix says which. */
function eventKey(eventId: string): string {
  return `event:${eventId}`;
}
