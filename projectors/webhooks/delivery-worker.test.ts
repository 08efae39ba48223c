import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type { Change, Checkpoint, FindQuery, Page } from '../../ports/read-store';
import { createLogger } from '../../runtime/support/logger';
import { until } from '../../tests/support/service-processes';
import { RENDERED_BODIES } from './delivery-bodies';
import { bodyBytesOf, DELIVERY_LOG, type DeliveryLogEntry, newLogEntry } from './delivery-log';
import type { DeliveryView, WebhookView } from './delivery-queue-projection';
import { DeliveryWorker, type DeliveryWorkerOptions, INTAKE_CHECKPOINT } from './delivery-worker';
import { EndpointLimiter } from './endpoint-limiter';
import type { DeliveryRequest, DeliveryResult } from './http-deliverer';
import { sealSecret } from './secret-box';
import { TargetGuard } from './target-guard';

const KEY = new Uint8Array(32).fill(7);
const WEBHOOK = 'wh_000000000000000000000001';
const COLLECTIONS = { webhooks: 'g1_webhooks', deliveries: 'g1_webhook_deliveries' };
const BODY = JSON.stringify({ type: 'leaf_admitted', padding: 'x'.repeat(2000) });

/** A read store that counts the writes to each collection, and the finds, and can refuse the next apply. */
class CountingStore extends SqliteReadStore {
  readonly writes = new Map<string, number>();
  readonly finds = new Map<string, number>();
  readonly gets = new Map<string, number>();
  failNextApply = false;
  /** While set, every apply waits for it. */
  hold: Promise<void> | null = null;

  override get<T>(collection: string, id: string) {
    this.gets.set(collection, (this.gets.get(collection) ?? 0) + 1);
    return super.get<T>(collection, id);
  }

  override find<T>(collection: string, query: FindQuery): Promise<Page<T>> {
    this.finds.set(collection, (this.finds.get(collection) ?? 0) + 1);
    return super.find<T>(collection, query);
  }

  override async apply(changes: readonly Change[], checkpoint?: Checkpoint): Promise<void> {
    if (this.failNextApply) {
      this.failNextApply = false;
      throw new Error('disk full');
    }
    for (const change of changes)
      this.writes.set(change.collection, (this.writes.get(change.collection) ?? 0) + 1);
    if (this.hold) await this.hold;
    return super.apply(changes, checkpoint);
  }
}

/** A receiver answering each attempt with the next status of `answers` (then 200), recording the bodies. */
function receiver(answers: number[] = []) {
  const received: string[] = [];
  const deliver = async (request: DeliveryRequest): Promise<DeliveryResult> => {
    received.push(request.body.toString('utf8'));
    return { status: answers.shift() ?? 200, retryAfter: null, latencyMs: 1, error: null };
  };
  return { received, deliver };
}

function delivery(seq: number, overrides: Partial<DeliveryView> = {}): DeliveryView {
  const eventId = `evt_${seq.toString(16).padStart(32, '0')}`;
  return {
    seq,
    delivery_id: `${WEBHOOK}.${eventId}`,
    tenant_id: 'ten_1',
    webhook_id: WEBHOOK,
    event_id: eventId,
    event_type: 'leaf_admitted',
    body: BODY,
    queued_at: '2025-06-01T12:00:00.000Z',
    redelivery_of: null,
    ...overrides,
  };
}

async function world(
  deliver: (request: DeliveryRequest) => Promise<DeliveryResult>,
  options: Pick<DeliveryWorkerOptions, 'webhookChangesFollowed' | 'pollMs' | 'limiter'> = {},
) {
  const store = new CountingStore(':memory:');
  let now = Date.parse('2025-06-01T12:00:01.000Z');
  const renders: string[] = [];
  const webhook: WebhookView = {
    tenant_id: 'ten_1',
    webhook_id: WEBHOOK,
    url: 'http://127.0.0.1:9/hook',
    events: ['leaf_admitted', 'compliance_report_ready'],
    secret_sealed: sealSecret(KEY, WEBHOOK, 'a-secret-of-thirty-two-characters'),
    secret_generated: false,
    created_at: '2025-06-01T11:00:00.000Z',
    removed_at: null,
  };
  await store.apply([
    { kind: 'upsert', collection: COLLECTIONS.webhooks, id: WEBHOOK, position: 1, data: webhook },
  ]);
  const worker = new DeliveryWorker({
    readStore: store,
    collections: COLLECTIONS,
    guard: new TargetGuard({ allow: ['127.0.0.1'] }),
    secretKey: KEY,
    clock: () => new Date(now),
    logger: createLogger('silent'),
    deliver,
    pollMs: 60_000,
    ...options,
    render: async (view) => {
      renders.push(view.delivery_id);
      return JSON.stringify({ type: 'compliance_report_ready', report: `rendered ${renders.length}` });
    },
  });
  return {
    store,
    worker,
    webhook,
    renders,
    advance: (ms: number) => {
      now += ms;
    },
    queue: (...views: DeliveryView[]) =>
      store.apply(
        views.map((view) => ({
          kind: 'upsert' as const,
          collection: COLLECTIONS.deliveries,
          id: view.delivery_id,
          position: view.seq,
          data: view,
        })),
      ),
    logged: async (id: string) => (await store.get<DeliveryLogEntry>(DELIVERY_LOG, id))?.data,
  };
}

/** Webhooks `wh_0` … `wh_<count - 1>`, like the world's own. */
async function addWebhooks(w: Awaited<ReturnType<typeof world>>, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await w.store.apply([
      {
        kind: 'upsert',
        collection: COLLECTIONS.webhooks,
        id: `wh_${i}`,
        position: 1,
        data: {
          ...w.webhook,
          webhook_id: `wh_${i}`,
          secret_sealed: sealSecret(KEY, `wh_${i}`, 'a-secret-of-thirty-two-characters'),
        },
      },
    ]);
}

describe('the delivery worker', () => {
  it('given 3 queued deliveries and a receiver answering 200, then each is sent and logged in one small write with its outcome, and the intake checkpoint passes them', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver);
    await w.queue(delivery(1024), delivery(1025), delivery(1026));

    await w.worker.runOnce();

    expect(received).toEqual([BODY, BODY, BODY]);
    expect(w.store.writes.get(DELIVERY_LOG)).toBe(3);
    const entry = await w.logged(delivery(1024).delivery_id);
    expect(entry).toMatchObject({
      status: 'delivered',
      body_bytes: Buffer.byteLength(BODY),
      next_attempt_at: null,
    });
    expect(entry).not.toHaveProperty('body');
    expect(entry!.attempts).toHaveLength(1);
    expect(JSON.stringify(entry).length).toBeLessThan(600);
    expect(await w.store.getCheckpoint(INTAKE_CHECKPOINT)).toBe(1026);
    await w.worker.stop();
  });

  it('given a receiver failing once, when the retry comes due, then the same bytes are sent again from the queued delivery and the attempt is recorded', async () => {
    const { received, deliver } = receiver([500]);
    const w = await world(deliver);
    await w.queue(delivery(2048));
    await w.worker.runOnce();
    expect(await w.logged(delivery(2048).delivery_id)).toMatchObject({ status: 'pending' });

    w.advance(5_000);
    await w.worker.runOnce();

    expect(received).toEqual([BODY, BODY]);
    const entry = await w.logged(delivery(2048).delivery_id);
    expect(entry).toMatchObject({ status: 'delivered' });
    expect(entry!.attempts.map((a) => a.status_code)).toEqual([500, 200]);
    await w.worker.stop();
  });

  it('given a compliance report (no body in the queue), then it is rendered once, kept, and a retry sends the kept bytes without rendering again', async () => {
    const { received, deliver } = receiver([503]);
    const w = await world(deliver);
    const report = delivery(3072, { body: null, event_type: 'compliance_report_ready' });
    await w.queue(report);
    await w.worker.runOnce();
    w.advance(5_000);
    await w.worker.runOnce();

    expect(w.renders).toEqual([report.delivery_id]);
    expect(received).toHaveLength(2);
    expect(received[1]).toBe(received[0]);
    const kept = await w.store.get<{ body: string }>(RENDERED_BODIES, report.delivery_id);
    expect(kept?.data.body).toBe(received[0]);
    expect(await w.logged(report.delivery_id)).toMatchObject({
      status: 'delivered',
      body_bytes: Buffer.byteLength(received[0]!),
    });
    await w.worker.stop();
  });

  it('given a pending entry written by an older release (the body in the log, no body_bytes), then its body is sent and its size still reads', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver);
    const old = delivery(4096);
    const legacy = {
      delivery_id: old.delivery_id,
      webhook_id: WEBHOOK,
      tenant_id: 'ten_1',
      event_id: old.event_id,
      event_type: old.event_type,
      seq: old.seq,
      queued_at: old.queued_at,
      redelivery_of: null,
      body: '{"type":"leaf_admitted","from":"an older release"}',
      status: 'pending',
      attempts: [],
      next_attempt_at: '2025-06-01T12:00:00.500Z',
    };
    await w.store.apply(
      [{ kind: 'upsert', collection: DELIVERY_LOG, id: old.delivery_id, position: 1, data: legacy }],
      { projector: INTAKE_CHECKPOINT, position: old.seq },
    );

    await w.worker.runOnce();

    expect(received).toEqual([legacy.body]);
    const entry = await w.logged(old.delivery_id);
    expect(entry).toMatchObject({ status: 'delivered' });
    expect(bodyBytesOf(entry!)).toBe(Buffer.byteLength(legacy.body));
    await w.worker.stop();
  });

  it('given a pending entry an older release left after 4 failed attempts (its schedule ended at the 5th), then the 5th failure is retried 30 min later and only the 6th gives up', async () => {
    const { received, deliver } = receiver([500, 500]);
    const w = await world(deliver);
    const old = delivery(4608);
    const failed = (attempt: number, at: string) => ({
      attempt,
      at,
      status_code: 500,
      error: null,
      latency_ms: 3,
    });
    const left: DeliveryLogEntry = {
      ...newLogEntry(old, BODY, '2025-06-01T12:00:00.000Z'),
      attempts: [
        failed(1, '2025-06-01T11:47:25.000Z'),
        failed(2, '2025-06-01T11:47:30.000Z'),
        failed(3, '2025-06-01T11:48:00.000Z'),
        failed(4, '2025-06-01T11:50:00.000Z'),
      ],
    };
    await w.queue(old); // its body is sent from the queued delivery
    await w.store.apply(
      [{ kind: 'upsert', collection: DELIVERY_LOG, id: old.delivery_id, position: 1, data: left }],
      { projector: INTAKE_CHECKPOINT, position: old.seq },
    );

    await w.worker.runOnce();
    expect(received).toEqual([BODY]);
    const fifth = await w.logged(old.delivery_id);
    expect(fifth).toMatchObject({ status: 'pending', next_attempt_at: '2025-06-01T12:30:01.000Z' });
    expect(fifth!.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);

    w.advance(30 * 60_000 - 1);
    await w.worker.runOnce();
    expect(received).toHaveLength(1);
    w.advance(1);
    await w.worker.runOnce();
    const sixth = await w.logged(old.delivery_id);
    expect(sixth).toMatchObject({ status: 'failed', next_attempt_at: null });
    expect(sixth!.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(received).toEqual([BODY, BODY]);
    await w.worker.stop();
  });

  it('given a receiver slower than the hold, then the delivery is logged pending (checkpoint moved) before its attempt ends, and the outcome follows', async () => {
    let answer!: (result: DeliveryResult) => void;
    const slow = () =>
      new Promise<DeliveryResult>((resolve) => {
        answer = resolve;
      });
    const w = await world(slow);
    await w.queue(delivery(5120));
    w.worker.wake();

    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await w.logged(delivery(5120).delivery_id)).toMatchObject({ status: 'pending', attempts: [] });
    expect(await w.store.getCheckpoint(INTAKE_CHECKPOINT)).toBe(5120);

    answer({ status: 200, retryAfter: null, latencyMs: 400, error: null });
    await w.worker.runOnce();
    const stored = await w.store.get<DeliveryLogEntry>(DELIVERY_LOG, delivery(5120).delivery_id);
    expect(stored?.data).toMatchObject({ status: 'delivered' });
    expect(stored?.position).toBe(2);
    await w.worker.stop();
  });

  it('given the intake caught up with the queue, when the consumer offers what it just queued, then it is sent without reading the queue back; offered twice, it is sent once', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver);
    await w.worker.runOnce(); // reads the empty queue: caught up
    const reads = w.store.finds.get(COLLECTIONS.deliveries);
    const views = [delivery(7168), delivery(7169)];
    await w.queue(...views);

    w.worker.offer(views);
    while (received.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    w.worker.offer(views);
    await w.worker.stop();

    expect(received).toHaveLength(2);
    expect(w.store.finds.get(COLLECTIONS.deliveries)).toBe(reads);
    expect(await w.logged(views[1]!.delivery_id)).toMatchObject({ status: 'delivered' });
    expect(await w.store.getCheckpoint(INTAKE_CHECKPOINT)).toBe(7169);
  });

  it('given deliveries offered before their write is done, when the intake reads the queue, then it waits for that write and sends them all', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver);
    const views = [delivery(8192), delivery(8193)];
    let stored!: () => void;
    const writing = new Promise<void>((resolve) => {
      stored = resolve;
    });

    // Not caught up yet (nothing read since the start): the intake reads the queue, which lacks them.
    w.worker.offer(views, writing);
    const pass = w.worker.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received).toHaveLength(0);
    await w.queue(...views);
    stored();
    await pass;
    await until(() => received.length === 2, 'both deliveries sent', 2000);
    await w.worker.stop();

    expect(await w.logged(views[1]!.delivery_id)).toMatchObject({ status: 'delivered' });
    expect(await w.store.getCheckpoint(INTAKE_CHECKPOINT)).toBe(8193);
  });

  it('given one attempt at a time per endpoint, when an attempt’s result is still being written, then the endpoint’s next delivery is sent meanwhile', async () => {
    const { received, deliver } = receiver([500, 500]);
    const w = await world(deliver, { limiter: new EndpointLimiter({ perKey: 1 }) });
    const views = [delivery(9216), delivery(9217)];
    await w.queue(...views);
    await w.worker.runOnce(); // both fail: retries due in 5 s
    expect(received).toHaveLength(2);

    w.advance(5_000);
    let release!: () => void;
    w.store.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pass = w.worker.runOnce();
    await until(() => received.length === 4, 'both retries sent while the first result is written', 2000);
    w.store.hold = null;
    release();
    await pass;
    await w.worker.stop();
    for (const view of views) expect(await w.logged(view.delivery_id)).toMatchObject({ status: 'delivered' });
  });

  it('given nothing pending, when the poll comes round again and again, then neither the log nor the queue is read from the store', async () => {
    const { deliver } = receiver();
    const w = await world(deliver, { pollMs: 2 });
    await w.worker.start();
    await until(() => (w.store.finds.get(DELIVERY_LOG) ?? 0) === 1, 'the first look for due attempts', 5000);
    const queueReads = w.store.finds.get(COLLECTIONS.deliveries);

    await new Promise((resolve) => setTimeout(resolve, 60));
    await w.worker.stop();

    expect(w.store.finds.get(DELIVERY_LOG)).toBe(1);
    expect(w.store.finds.get(COLLECTIONS.deliveries)).toBe(queueReads);
  });

  it('given a retry this worker recorded for 5 s later, then the poll does not look before it is due, and sends it once it is', async () => {
    const { received, deliver } = receiver([500]);
    const w = await world(deliver, { pollMs: 2 });
    await w.queue(delivery(9216));
    await w.worker.start();
    await until(
      async () => (await w.logged(delivery(9216).delivery_id))?.status === 'pending',
      'the failed attempt logged',
      5000,
    );
    const looks = w.store.finds.get(DELIVERY_LOG);

    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(w.store.finds.get(DELIVERY_LOG)).toBe(looks);
    w.advance(5_000);
    await until(() => received.length === 2, 'the retry', 5000);
    await w.worker.stop();

    expect(await w.logged(delivery(9216).delivery_id)).toMatchObject({ status: 'delivered' });
  });

  it('given a pending entry an earlier run left due in 10 s, then a new worker looks once at start, not again until it is due, and then sends it', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver, { pollMs: 2 });
    const view = delivery(10240);
    await w.queue(view);
    const entry = newLogEntry(view, BODY, new Date(Date.parse('2025-06-01T12:00:11.000Z')).toISOString());
    await w.store.apply(
      [{ kind: 'upsert', collection: DELIVERY_LOG, id: view.delivery_id, position: 1, data: entry }],
      { projector: INTAKE_CHECKPOINT, position: view.seq },
    );
    await w.worker.start();
    await until(() => (w.store.finds.get(DELIVERY_LOG) ?? 0) === 1, 'the first look for due attempts', 5000);

    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(w.store.finds.get(DELIVERY_LOG)).toBe(1);
    expect(received).toHaveLength(0);
    w.advance(10_000);
    await until(() => received.length === 1, 'the due attempt', 5000);
    await w.worker.stop();

    expect(await w.logged(view.delivery_id)).toMatchObject({ status: 'delivered' });
  });

  it('given more new deliveries than attempts run at once, then those left for the due query are sent too', async () => {
    const received: string[] = [];
    const deliver = async (request: DeliveryRequest): Promise<DeliveryResult> => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      received.push(request.body.toString('utf8'));
      return { status: 200, retryAfter: null, latencyMs: 2, error: null };
    };
    const w = await world(deliver, { pollMs: 20 });
    const views = Array.from({ length: 1200 }, (_, i) =>
      delivery(20_480 + i, { webhook_id: `wh_${i % 100}` }),
    );
    await addWebhooks(w, 100);
    await w.queue(...views);

    await w.worker.start();
    await until(() => received.length >= views.length, 'every delivery sent', 10_000);
    await w.worker.stop();

    expect(received).toHaveLength(views.length);
  });

  it('given a page of attempts whose results are still being written, when new deliveries are offered, then they are sent at once, not left for the due query', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const received: string[] = [];
    const deliver = async (request: DeliveryRequest): Promise<DeliveryResult> => {
      if (received.length < 500) await gate;
      received.push(request.body.toString('utf8'));
      return { status: 200, retryAfter: null, latencyMs: 1, error: null };
    };
    const w = await world(deliver, { webhookChangesFollowed: true });
    // 125 webhooks, 4 deliveries each: all 500 requests in flight at once (4 per endpoint).
    await addWebhooks(w, 125);
    const views = Array.from({ length: 510 }, (_, i) =>
      delivery(40_960 + i, { webhook_id: `wh_${i % 125}` }),
    );
    await w.worker.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    w.worker.offer(views.slice(0, 500));
    // Past the intake's hold, the page is written pending; from then on every result is a write of
    // its own, and those writes are held.
    await new Promise((resolve) => setTimeout(resolve, 400));
    let unhold!: () => void;
    w.store.hold = new Promise<void>((resolve) => {
      unhold = resolve;
    });
    open();
    await until(() => received.length === 500, 'the first page sent', 5000);
    w.worker.offer(views.slice(500));
    await until(() => received.length === 510, 'the deliveries offered after it, at once', 2000);
    unhold();
    w.store.hold = null;
    await w.worker.stop();
  });

  it('given the consumer tells the worker of webhook changes, then a webhook is read once for many attempts, and once it is removed and forgotten the next delivery is cancelled', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver, { webhookChangesFollowed: true });
    await w.queue(delivery(8192), delivery(8193), delivery(8194));
    await w.worker.runOnce();
    expect(received).toHaveLength(3);
    expect(w.store.gets.get(COLLECTIONS.webhooks)).toBe(1);

    const removed = { ...w.webhook, removed_at: '2025-06-01T12:00:02.000Z' };
    await w.store.apply([
      { kind: 'upsert', collection: COLLECTIONS.webhooks, id: WEBHOOK, position: 2, data: removed },
    ]);
    w.worker.forgetWebhooks([WEBHOOK]);
    await w.queue(delivery(8195));
    await w.worker.runOnce();
    await w.worker.stop();

    expect(received).toHaveLength(3);
    expect(w.store.gets.get(COLLECTIONS.webhooks)).toBe(2);
    expect(await w.logged(delivery(8195).delivery_id)).toMatchObject({ status: 'cancelled', attempts: [] });
  });

  it('given its consumer is assigned every event anew (Kafka), then the worker keeps webhooks from then on, forgetting what it kept before', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver);
    w.worker.followWebhookChanges(true);
    await w.queue(delivery(10240), delivery(10241));
    await w.worker.runOnce();
    expect(w.store.gets.get(COLLECTIONS.webhooks)).toBe(1);

    // Reassigned: another dispatcher may have changed the webhook meanwhile.
    w.worker.followWebhookChanges(true);
    await w.queue(delivery(10242));
    await w.worker.runOnce();
    expect(w.store.gets.get(COLLECTIONS.webhooks)).toBe(2);

    // Given only a share of the events, it no longer sees every change: it reads for every attempt.
    w.worker.followWebhookChanges(false);
    await w.queue(delivery(10243), delivery(10244));
    await w.worker.runOnce();
    await w.worker.stop();
    expect(received).toHaveLength(5);
    expect(w.store.gets.get(COLLECTIONS.webhooks)).toBe(4);
  });

  it('given no consumer telling the worker of webhook changes, then every attempt reads its webhook', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver);
    await w.queue(delivery(9216), delivery(9217));
    await w.worker.runOnce();
    await w.worker.stop();
    expect(received).toHaveLength(2);
    expect(w.store.gets.get(COLLECTIONS.webhooks)).toBe(2);
  });

  it('given the write of a taken page fails, then the checkpoint stays, the deliveries are taken in again and logged (sent at least once)', async () => {
    const { received, deliver } = receiver();
    const w = await world(deliver);
    await w.queue(delivery(6144), delivery(6145));
    w.store.failNextApply = true;

    await w.worker.runOnce();
    expect(await w.store.getCheckpoint(INTAKE_CHECKPOINT)).toBeNull();
    expect(await w.logged(delivery(6144).delivery_id)).toBeUndefined();

    await w.worker.runOnce();
    expect(await w.store.getCheckpoint(INTAKE_CHECKPOINT)).toBe(6145);
    expect(await w.logged(delivery(6144).delivery_id)).toMatchObject({ status: 'delivered' });
    expect(await w.logged(delivery(6145).delivery_id)).toMatchObject({ status: 'delivered' });
    expect(received).toHaveLength(4);
    await w.worker.stop();
  });
});
