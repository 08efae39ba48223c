import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type { Change } from '../../ports/read-store';
import { DeliveryBodies } from './delivery-bodies';
import { newLogEntry } from './delivery-log';
import { type DeliveryView, storedDelivery } from './delivery-queue-projection';

const DELIVERIES = 'webhook_deliveries__g1';
const BODY = '{"type":"leaf_admitted","event_id":"evt_1"}';

function delivery(id: string, shared: { body: string } | { body_of: string }): DeliveryView {
  return {
    seq: 0,
    delivery_id: id,
    tenant_id: 'ten_1',
    webhook_id: id.split('.')[0]!,
    event_id: 'evt_1',
    event_type: 'leaf_admitted',
    body: 'body' in shared ? shared.body : null,
    ...('body_of' in shared && { body_of: shared.body_of }),
    queued_at: '2026-01-01T00:00:00.000Z',
    redelivery_of: null,
  };
}

function queued(view: DeliveryView): Change {
  return { kind: 'upsert', collection: DELIVERIES, id: view.delivery_id, position: 1, data: view };
}

describe('bodies rendered again from their recipe', () => {
  const recipe = { position: 7, leaf_index: 3 };
  const inMemory: DeliveryView = { ...delivery('whk_a.evt_1', { body: BODY }), recipe };
  const stored = storedDelivery(inMemory);
  const rendering = () => {
    const rendered: string[] = [];
    const render = async (view: DeliveryView) => {
      rendered.push(view.delivery_id);
      return BODY;
    };
    return { rendered, render };
  };

  it('given a delivery just queued, then its in-memory body is sent and nothing is rendered or kept', async () => {
    const store = new SqliteReadStore(':memory:');
    const { rendered, render } = rendering();
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES, render });
    expect(await bodies.take(inMemory)).toEqual({ body: BODY, keep: null });
    expect(rendered).toEqual([]);
    await store.close();
  });

  it('given a delivery just queued, when it is read back from the store to be taken in, then its remembered body is sent and nothing is rendered', async () => {
    const store = new SqliteReadStore(':memory:');
    const { rendered, render } = rendering();
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES, render });
    bodies.remember([inMemory]);
    expect(await bodies.take(stored)).toEqual({ body: BODY, keep: null });
    expect(rendered).toEqual([]);
    await store.close();
  });

  it('given a stored delivery taken in after a restart, and a retry of it, then its recipe is rendered once, for both, and nothing is stored', async () => {
    const store = new SqliteReadStore(':memory:');
    await store.apply([queued(stored)]);
    const { rendered, render } = rendering();
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES, render });
    expect(stored.body).toBeNull();
    expect(await bodies.take(stored)).toEqual({ body: BODY, keep: null });
    expect(await bodies.of(newLogEntry(stored, BODY, '2026-01-01T00:00:01.000Z'))).toBe(BODY);
    expect(rendered).toEqual([stored.delivery_id]);
    // and by a worker started afresh, the retry renders it again
    const restarted = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES, render });
    expect(await restarted.of(newLogEntry(stored, BODY, '2026-01-01T00:00:02.000Z'))).toBe(BODY);
    expect(rendered).toEqual([stored.delivery_id, stored.delivery_id]);
    await store.close();
  });
});

describe('bodies of a fan-out (one webhook event to many webhooks)', () => {
  const fanOut = (event: number, webhooks: number): DeliveryView[] =>
    Array.from({ length: webhooks }, (_, k) => ({
      ...delivery(`dlv_${event}_${k}`, { body: `{"event_id":"evt_${event}"}` }),
      webhook_id: `whk_${k}`,
      event_id: `evt_${event}`,
      recipe: { position: event, leaf_index: event },
    }));
  const rendering = () => {
    const rendered: string[] = [];
    const render = async (view: DeliveryView) => {
      rendered.push(view.delivery_id);
      return `{"event_id":"${view.event_id}"}`;
    };
    return { rendered, render };
  };

  it('given a burst of 100 events to 100 webhooks just queued, when all 10,000 are read back from the store, then none is rendered again', async () => {
    const store = new SqliteReadStore(':memory:');
    const { rendered, render } = rendering();
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES, render });
    const burst = Array.from({ length: 100 }, (_, event) => fanOut(event, 100)).flat();
    bodies.remember(burst);
    for (const queuedDelivery of burst)
      expect((await bodies.take(storedDelivery(queuedDelivery))).body).toBe(queuedDelivery.body);
    expect(rendered).toEqual([]);
    await store.close();
  });

  it('given a fan-out taken in after a restart, then its body is rendered once for all its deliveries and their retries', async () => {
    const store = new SqliteReadStore(':memory:');
    const deliveries = fanOut(7, 3).map(storedDelivery);
    await store.apply(deliveries.map(queued));
    const { rendered, render } = rendering();
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES, render });
    for (const stored of deliveries) expect((await bodies.take(stored)).body).toBe('{"event_id":"evt_7"}');
    for (const stored of deliveries)
      expect(await bodies.of(newLogEntry(stored, '{"event_id":"evt_7"}', '2026-01-01T00:00:01.000Z'))).toBe(
        '{"event_id":"evt_7"}',
      );
    expect(rendered).toEqual([deliveries[0]!.delivery_id]);
    await store.close();
  });
});

describe('bodies shared by the deliveries of one event (documents of older releases)', () => {
  const holder = delivery('whk_a.evt_1', { body: BODY });
  const sharer = delivery('whk_b.evt_1', { body_of: holder.delivery_id });

  it('given a sharer taken in after its holder, then it sends the holder body', async () => {
    const store = new SqliteReadStore(':memory:');
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES });
    expect(await bodies.take(holder)).toEqual({ body: BODY, keep: null });
    // Nothing is in the store: the body comes from the holder just taken in.
    expect(await bodies.take(sharer)).toEqual({ body: BODY, keep: null });
    await store.close();
  });

  it('given a sharer taken in without its holder (after a restart), then the holder body is read from the queue', async () => {
    const store = new SqliteReadStore(':memory:');
    await store.apply([queued(holder), queued(sharer)]);
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES });
    expect(await bodies.take(sharer)).toEqual({ body: BODY, keep: null });
    await store.close();
  });

  it('given a retry of a sharer, then the holder body is sent again', async () => {
    const store = new SqliteReadStore(':memory:');
    await store.apply([queued(holder), queued(sharer)]);
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES });
    const entry = newLogEntry(sharer, BODY, '2026-01-01T00:00:01.000Z');
    expect(await bodies.of(entry)).toBe(BODY);
    await store.close();
  });

  it('given a sharer whose holder is missing, then taking it in fails, naming the holder', async () => {
    const store = new SqliteReadStore(':memory:');
    const bodies = new DeliveryBodies({ readStore: store, deliveries: DELIVERIES });
    await expect(bodies.take(sharer)).rejects.toThrow(/delivery whk_a\.evt_1, which holds a shared body/);
    await store.close();
  });
});
