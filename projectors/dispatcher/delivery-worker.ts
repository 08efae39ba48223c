/**
 * The delivery side of the dispatcher. The dispatcher projection queues what is owed in
 * `webhook_deliveries` (durable, rebuilt by replay); this worker takes each new delivery into its own
 * delivery log (`webhook_delivery_log`, moving its intake checkpoint in the same write), then sends
 * every due delivery, signs it, records the attempt, and schedules the next one by the retry policy.
 *
 * Crash safety: a delivery is in the log before the intake checkpoint passes it, and an attempt is
 * recorded only after it was made, so a crash re-sends at most the attempts in flight (at least once;
 * receivers deduplicate by event id). Nothing here runs on the admission path.
 */
import type { Logger } from 'pino';
import type { Change, ReadStore, StoredDocument } from '../../ports/read-store';
import type { DeliveryView, WebhookView } from './dispatcher-projection';
import { EndpointLimiter } from './endpoint-limiter';
import { type DeliveryResult, deliver as httpDeliver } from './http-deliverer';
import { PinnedAgents } from './pinned-agents';
import { isSuccess, nextAttempt, parseRetryAfter } from './retry-policy';
import { openSecret, type SecretBoxKey } from './secret-box';
import { SIGNATURE_HEADER, signatureHeader } from './signature';
import type { TargetGuard } from './target-guard';

/** The worker's own collection: one document per delivery, its status and every attempt. */
export const DELIVERY_LOG = 'webhook_delivery_log';
/** The checkpoint of the intake: the `seq` of the last queued delivery taken into the log. */
export const INTAKE_CHECKPOINT = 'webhook-intake';
const INTAKE_PAGE = 500;
const DUE_PAGE = 500;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface AttemptRecord {
  attempt: number;
  /** When the attempt started (ISO 8601 UTC). */
  at: string;
  /** The receiver's HTTP status, or null (timeout, refused connection, refused target). */
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export interface DeliveryLogEntry {
  delivery_id: string;
  webhook_id: string;
  tenant_id: string;
  event_id: string;
  event_type: string;
  seq: number;
  queued_at: string;
  redelivery_of: string | null;
  /** The exact bytes sent (and signed) on every attempt. */
  body: string;
  status: DeliveryStatus;
  attempts: AttemptRecord[];
  next_attempt_at: string | null;
}

export interface DeliveryWorkerOptions {
  readStore: ReadStore;
  /** Physical names of the dispatcher projection's collections. */
  collections: { webhooks: string; deliveries: string };
  guard: TargetGuard;
  secretKey: SecretBoxKey;
  clock: () => Date;
  logger: Logger;
  /** Renders a body the projection could not build itself (a compliance report needs the log's proof). */
  render?: (delivery: DeliveryView) => Promise<string>;
  deliver?: typeof httpDeliver;
  limiter?: EndpointLimiter;
  timeoutMs?: number;
  /** How often due retries are looked for when nothing wakes the worker. */
  pollMs?: number;
  /** Called once per finished attempt (metrics). */
  onAttempt?: (entry: DeliveryLogEntry, attempt: AttemptRecord) => void;
}

export class DeliveryWorker {
  private readonly inFlight = new Set<string>();
  private readonly attempts = new Set<Promise<void>>();
  private pendingWrites: Change[] = [];
  private flushing: Promise<void> | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  /** The last look for due attempts filled a page: look again once the ones in flight thin out. */
  private backlog = false;
  /**
   * Whether the next pass queries the log for due attempts. New deliveries go out straight from the
   * intake, so the query is only needed when retries may have come due (the poll, `runOnce`, start)
   * or a full page was left behind; querying on every wake re-read every attempt in flight.
   */
  private lookForDue = true;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly limiter: EndpointLimiter;
  private readonly deliver: typeof httpDeliver;
  /** Receivers' connections kept alive between attempts. */
  private readonly agents = new PinnedAgents();

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.limiter = options.limiter ?? new EndpointLimiter();
    this.deliver = options.deliver ?? httpDeliver;
  }

  async start(): Promise<void> {
    await this.options.readStore.ensureIndex({
      collection: DELIVERY_LOG,
      fields: ['status', 'next_attempt_at'],
    });
    await this.options.readStore.ensureIndex({ collection: DELIVERY_LOG, fields: ['webhook_id', 'seq'] });
    this.timer = setInterval(() => this.wakeForDue(), this.options.pollMs ?? 1000);
    this.timer.unref();
    this.wake();
  }

  /** Something new may be queued or due: run a pass now (coalesced with one already running). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.pass();
        } catch (error) {
          this.options.logger.error(
            { err: error },
            'webhook dispatch pass failed; retrying on the next wake',
          );
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
  }

  /**
   * One full pass, awaited to the end: take in everything queued, make every due attempt, record them.
   * Tests with an injected clock drive the worker with this instead of timers.
   */
  async runOnce(): Promise<void> {
    this.wakeForDue();
    await this.idle();
  }

  /** Retries may have come due: the next pass looks for them. */
  private wakeForDue(): void {
    this.lookForDue = true;
    this.wake();
  }

  /** Stops taking new work, lets attempts in flight finish and records them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
    this.agents.close();
  }

  private async pass(): Promise<void> {
    for (;;) {
      const taken = await this.intake();
      for (const document of taken) {
        // Bound what is held in memory: past a page in flight, the rest waits for the due query.
        if (this.attempts.size >= DUE_PAGE) {
          this.backlog = true;
          break;
        }
        this.begin(document);
      }
      // a full page: there may be more
      if (taken.length < INTAKE_PAGE || this.stopped) break;
    }
    if (this.lookForDue) {
      this.lookForDue = false;
      await this.dispatchDue();
    }
  }

  /** Resolves once no pass is running, no attempt is in flight and every result is written. */
  private async idle(): Promise<void> {
    for (;;) {
      if (this.running) await this.running;
      else if (this.attempts.size > 0) await Promise.all([...this.attempts]);
      else if (this.flushing) await this.flushing;
      else return;
    }
  }

  /** Moves newly queued deliveries into the delivery log; returns the log documents it wrote. */
  private async intake(): Promise<Array<StoredDocument<DeliveryLogEntry>>> {
    const { readStore, collections, clock } = this.options;
    const after = (await readStore.getCheckpoint(INTAKE_CHECKPOINT)) ?? -1;
    const page = await readStore.find<DeliveryView>(collections.deliveries, {
      range: { seq: { gt: after } },
      sort: { field: 'seq', direction: 'asc' },
      limit: INTAKE_PAGE,
    });
    if (page.items.length === 0) return [];
    const now = clock().toISOString();
    const changes: Change[] = [];
    const taken: Array<StoredDocument<DeliveryLogEntry>> = [];
    for (const { data } of page.items) {
      const body = data.body ?? (await this.render(data));
      const entry: DeliveryLogEntry = {
        delivery_id: data.delivery_id,
        webhook_id: data.webhook_id,
        tenant_id: data.tenant_id,
        event_id: data.event_id,
        event_type: data.event_type,
        seq: data.seq,
        queued_at: data.queued_at,
        redelivery_of: data.redelivery_of,
        body,
        status: 'pending',
        attempts: [],
        next_attempt_at: now,
      };
      // Position 1 = taken in; each recorded attempt moves it on, so a replayed intake changes nothing.
      changes.push({
        kind: 'upsert',
        collection: DELIVERY_LOG,
        id: data.delivery_id,
        position: 1,
        data: entry,
      });
      taken.push({ id: data.delivery_id, position: 1, data: entry });
    }
    const last = page.items[page.items.length - 1]!.data.seq;
    await readStore.apply(changes, { projector: INTAKE_CHECKPOINT, position: last });
    return taken;
  }

  private async render(delivery: DeliveryView): Promise<string> {
    if (!this.options.render) throw new Error(`no renderer for delivery ${delivery.delivery_id}`);
    return this.options.render(delivery);
  }

  /** Starts every due attempt not already in flight (the limiter queues them per endpoint). */
  private async dispatchDue(): Promise<void> {
    const { readStore, clock } = this.options;
    const page = await readStore.find<DeliveryLogEntry>(DELIVERY_LOG, {
      where: { status: 'pending' },
      range: { next_attempt_at: { lte: clock().toISOString() } },
      sort: { field: 'next_attempt_at', direction: 'asc' },
      limit: DUE_PAGE,
    });
    for (const document of page.items) this.begin(document);
    if (page.items.length === DUE_PAGE) this.backlog = true;
  }

  /** Starts one attempt unless it is already in flight (the limiter queues it per endpoint). */
  private begin(document: StoredDocument<DeliveryLogEntry>): void {
    if (this.inFlight.has(document.id) || this.stopped) return;
    this.inFlight.add(document.id);
    const attempt = this.limiter
      .run(document.data.webhook_id, () => this.attempt(document))
      .catch((error: unknown) =>
        this.options.logger.error({ err: error, delivery: document.id }, 'webhook attempt failed to record'),
      )
      .finally(() => {
        this.inFlight.delete(document.id);
        this.attempts.delete(attempt);
        if (this.backlog && this.attempts.size < DUE_PAGE / 2) {
          this.backlog = false;
          this.wakeForDue();
        }
      });
    this.attempts.add(attempt);
  }

  private async attempt(document: StoredDocument<DeliveryLogEntry>): Promise<void> {
    const { readStore, collections, clock } = this.options;
    const entry = document.data;
    const webhook = await readStore.get<WebhookView>(collections.webhooks, entry.webhook_id);
    if (!webhook || webhook.data.removed_at !== null) {
      await this.record(document, { ...entry, status: 'cancelled', next_attempt_at: null });
      return;
    }
    const number = entry.attempts.length + 1;
    const startedAt = clock();
    // A delivery that cannot even be sent (a secret that no longer opens, an oversize body) is a
    // failed attempt like any other: it must run out of attempts, not stay pending forever.
    const result = await this.send(entry, webhook.data, number).catch(
      (error: unknown): DeliveryResult => ({
        status: null,
        retryAfter: null,
        latencyMs: 0,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    const attempt: AttemptRecord = {
      attempt: number,
      at: startedAt.toISOString(),
      status_code: result.status,
      error: result.error,
      latency_ms: Math.round(result.latencyMs * 10) / 10,
    };
    const attempts = [...entry.attempts, attempt];
    let next: Pick<DeliveryLogEntry, 'status' | 'next_attempt_at'>;
    if (isSuccess(result.status)) next = { status: 'delivered', next_attempt_at: null };
    else {
      const failedAt = clock();
      const plan = nextAttempt({
        attempt: number,
        failedAt,
        status: result.status,
        retryAfterMs: parseRetryAfter(result.retryAfter, failedAt),
      });
      next =
        plan.kind === 'retry'
          ? { status: 'pending', next_attempt_at: plan.at.toISOString() }
          : { status: 'failed', next_attempt_at: null };
    }
    const updated = { ...entry, ...next, attempts };
    await this.record(document, updated);
    this.options.onAttempt?.(updated, attempt);
  }

  private async send(
    entry: DeliveryLogEntry,
    webhook: WebhookView,
    attempt: number,
  ): Promise<DeliveryResult> {
    const body = Buffer.from(entry.body, 'utf8');
    const secret = openSecret(this.options.secretKey, webhook.webhook_id, webhook.secret_sealed);
    return this.deliver({
      url: webhook.url,
      body,
      guard: this.options.guard,
      agents: this.agents,
      timeoutMs: this.options.timeoutMs ?? 10_000,
      headers: {
        [SIGNATURE_HEADER]: signatureHeader(secret, body),
        'X-GOV-Event-Id': entry.event_id,
        'X-GOV-Event-Type': entry.event_type,
        'X-GOV-Delivery-Id': entry.delivery_id,
        'X-GOV-Delivery-Attempt': String(attempt),
      },
    });
  }

  /** Queues the new state; writes are grouped into one read-store apply per tick. */
  private record(document: StoredDocument<DeliveryLogEntry>, data: DeliveryLogEntry): Promise<void> {
    this.pendingWrites.push({
      kind: 'upsert',
      collection: DELIVERY_LOG,
      id: document.id,
      position: document.position + 1,
      data,
    });
    return this.flush();
  }

  private flush(): Promise<void> {
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const writes = this.pendingWrites;
      this.pendingWrites = [];
      this.flushing = null;
      if (writes.length > 0) await this.options.readStore.apply(writes);
    });
    return this.flushing;
  }
}
