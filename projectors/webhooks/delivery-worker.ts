/**
 * The sending side of webhook delivery. The delivery-queue projection queues what is owed in
 * `webhook_deliveries` (durable, rebuilt by replay); this worker takes each new delivery in, sends it
 * at once, and writes it into its delivery log (`webhook_delivery_log`) together with that first
 * attempt's outcome and its intake checkpoint: one small write per delivery, the body staying where
 * the projection put it (delivery-bodies.ts). Due retries are found in the log, sent, and recorded.
 *
 * Crash safety: the intake checkpoint moves only in the write that puts the deliveries it passes into
 * the log, pages in order, so a crash before it re-takes (and re-sends) them; an attempt is recorded
 * only after it was made. A crash re-sends at most the attempts not yet written (at least once;
 * receivers deduplicate by event id). Nothing here runs on the admission path.
 */
import type { Logger } from 'pino';
import type { Change, ReadStore } from '../../ports/read-store';
import { DeliveryBodies } from './delivery-bodies';
import { type AttemptRecord, DELIVERY_LOG, type DeliveryLogEntry, newLogEntry } from './delivery-log';
import type { DeliveryView, WebhookView } from './delivery-queue-projection';
import { DueSchedule } from './due-schedule';
import { EndpointLimiter } from './endpoint-limiter';
import {
  DELIVERY_ATTEMPT_HEADER,
  DELIVERY_ID_HEADER,
  type DeliveryResult,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  deliver as httpDeliver,
  WEBHOOK_ID_HEADER,
} from './http-deliverer';
import { IntakePage, type LogDocument } from './intake-page';
import { PinnedPools } from './pinned-pools';
import { isSuccess, nextAttempt, parseRetryAfter } from './retry-policy';
import { openSecret, type SecretBoxKey } from './secret-box';
import { SIGNATURE_HEADER, signatureHeader } from './signature';
import type { TargetGuard } from './target-guard';

/** The checkpoint of the intake: the `seq` of the last queued delivery taken into the log. */
export const INTAKE_CHECKPOINT = 'webhook-intake';
const INTAKE_PAGE = 500;
const DUE_PAGE = 500;
/**
 * How long a page of taken deliveries waits for its first attempts before it is written anyway
 * (pending): a slow receiver delays its own log entries by this much, never the checkpoint for long.
 */
const INTAKE_HOLD_MS = 250;
/** Offered deliveries kept at most; past that the intake reads them from the store again. */
const MAX_OFFERED = 2 * INTAKE_PAGE;
/** Opened webhook secrets kept (an AES-GCM open per attempt cost as much as the signature). */
const MAX_SECRETS = 1024;
/** Webhooks kept in memory at most (each attempt read its webhook: ~9% of the delivery thread's reads). */
const MAX_WEBHOOKS = 4096;

export interface DeliveryWorkerOptions {
  readStore: ReadStore;
  /** Physical names of the delivery-queue projection's collections. */
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
  /**
   * The delivery-queue consumer of this process calls `forgetWebhooks` for every webhook it registers or
   * removes, once written: webhooks may then be kept in memory instead of read for every attempt.
   * Changed by `followWebhookChanges` when the bus assigns that consumer events anew.
   */
  webhookChangesFollowed?: boolean;
}

export class DeliveryWorker {
  private readonly inFlight = new Set<string>();
  /** Every attempt begun and not yet recorded. */
  private readonly attempts = new Set<Promise<void>>();
  /** Attempts begun whose request is not done yet (queued behind their endpoint's limit, or sent). */
  private sending = 0;
  private pendingWrites: Change[] = [];
  /** The intake checkpoint the next write moves to, once the pages it passes are in it. */
  private pendingCheckpoint: number | null = null;
  private flushing: Promise<void> | null = null;
  /** The seq of the newest delivery taken in (null: read the durable checkpoint first). */
  private takenThrough: number | null = null;
  /**
   * Deliveries the consumer on this thread just queued, taken in from memory instead of read back
   * from the store; trusted only while the intake is known to be caught up with the store (a read
   * found less than a page since the last start, failure or poll).
   */
  private offered: DeliveryView[] = [];
  /**
   * The write of the deliveries offered last, while a read store that shows a write only once it is
   * done (MongoDB) may not hold them yet: a read of the queue waits for it, so it misses none of them.
   */
  private storing: Promise<void> | null = null;
  private caughtUp = false;
  private readonly secrets = new Map<string, string>();
  /** Webhooks as last read (null: absent), kept only while `webhookChangesFollowed`; attempts at once share a read. */
  private readonly webhooks = new Map<string, Promise<WebhookView | null>>();
  private webhookChangesFollowed: boolean;
  /** Pages are written one after the other: the checkpoint never passes an unwritten page. */
  private intakeWrites: Promise<void> = Promise.resolve();
  private unwrittenPages = 0;
  /** Moves when a page write fails: later pages are dropped and taken in again from the checkpoint. */
  private intakeEpoch = 0;
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
  /** When due entries may be waiting: the poll skips the due query until then. */
  private readonly due = new DueSchedule();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly limiter: EndpointLimiter;
  private readonly deliver: typeof httpDeliver;
  private readonly bodies: DeliveryBodies;
  /** Receivers' connections kept alive between attempts. */
  private readonly pools = new PinnedPools();

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.webhookChangesFollowed = options.webhookChangesFollowed === true;
    this.limiter = options.limiter ?? new EndpointLimiter();
    this.deliver = options.deliver ?? httpDeliver;
    this.bodies = new DeliveryBodies({
      readStore: options.readStore,
      deliveries: options.collections.deliveries,
      render: options.render,
    });
  }

  async start(): Promise<void> {
    await this.options.readStore.ensureIndex({
      collection: DELIVERY_LOG,
      fields: ['status', 'next_attempt_at'],
    });
    await this.options.readStore.ensureIndex({ collection: DELIVERY_LOG, fields: ['webhook_id', 'seq'] });
    this.timer = setInterval(() => this.poll(), this.options.pollMs ?? 1000);
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
    this.caughtUp = false;
    this.wakeForDue();
    await this.idle();
  }

  /**
   * Deliveries just queued by the consumer on this thread, in seq order: taken in on the next pass
   * without reading them back (the store stays the source of truth after a restart or a failure).
   * `stored`, when they are offered before their write is done: what the queue's readers wait for.
   * (A failed write is the consumer's to repeat: its batch comes again and is queued again.)
   */
  offer(deliveries: readonly DeliveryView[], stored?: Promise<unknown>): void {
    if (stored) {
      const settled: Promise<void> = stored.then(
        () => undefined,
        () => undefined,
      );
      this.storing = settled;
      void settled.then(() => {
        if (this.storing === settled) this.storing = null;
      });
    }
    if (this.offered.length + deliveries.length > MAX_OFFERED) {
      this.offered = [];
      this.caughtUp = false;
    } else this.offered.push(...deliveries);
    this.wake();
  }

  /**
   * Deliveries about to be written by the consumer on this thread, with their bodies: kept a while,
   * so that an intake reading them back from the store (before they are offered) does not render them.
   */
  remember(deliveries: readonly DeliveryView[]): void {
    this.bodies.remember(deliveries);
  }

  /**
   * The timer: looks for due attempts only when one may have come due. The queue is not read back
   * from the store here: the consumer on this thread offers everything it writes, and the intake
   * reads the store itself after a start, a failed write or offers it had to drop.
   */
  private poll(): void {
    if (this.due.mayBeDue(this.options.clock().getTime())) this.wakeForDue();
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
    this.pools.close();
  }

  private async pass(): Promise<void> {
    for (;;) {
      const taken = await this.intake();
      if (!taken) break;
      for (const [i, { document, body }] of taken.deliveries.entries()) {
        // Bound what is held in memory: past a page of requests in flight, the rest waits for the due
        // query, tracked as due so that the poll looks for it (the backlog's look may come before its
        // page is written). Attempts whose request is done and whose result is being written do not
        // count: on MongoDB under load those writes take seconds, and counting them sent new
        // deliveries the way of the due query, a scan of the delivery log, seconds later still.
        if (this.sending >= DUE_PAGE) {
          this.backlog = true;
          for (const left of taken.deliveries.slice(i))
            this.due.recordedEntry(left.document.id, dueTime(left.document.data));
          break;
        }
        this.begin(document, { body, page: taken.page });
      }
      this.writeWhenReady(taken.page);
      // a full page, or offers left: there may be more
      if (this.stopped || (taken.deliveries.length < INTAKE_PAGE && this.offered.length === 0)) break;
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
      else if (this.unwrittenPages > 0) await this.intakeWrites;
      else if (this.flushing) await this.flushing;
      else return;
    }
  }

  /** Takes in the next page of newly queued deliveries (null when there is none): held, not yet written. */
  private async intake(): Promise<{
    page: IntakePage;
    deliveries: Array<{ document: LogDocument; body: string }>;
  } | null> {
    const { clock } = this.options;
    const epoch = this.intakeEpoch;
    const queued = await this.nextQueued();
    if (queued.length === 0) return null;
    const now = clock().toISOString();
    const page = new IntakePage(queued[queued.length - 1]!.seq);
    const deliveries: Array<{ document: LogDocument; body: string }> = [];
    for (const data of queued) {
      const { body, keep } = await this.bodies.take(data);
      const document: LogDocument = { id: data.delivery_id, position: 0, data: newLogEntry(data, body, now) };
      page.hold(document, keep);
      deliveries.push({ document, body });
    }
    // A page write failed meanwhile: the intake starts again from the checkpoint on the next pass.
    if (epoch !== this.intakeEpoch) return null;
    this.takenThrough = page.lastSeq;
    return { page, deliveries };
  }

  /** The next deliveries past the ones taken in, in seq order: offered ones, or read from the store. */
  private async nextQueued(): Promise<DeliveryView[]> {
    const { readStore, collections } = this.options;
    if (this.caughtUp && this.takenThrough !== null) {
      const after = this.takenThrough;
      return this.offered.splice(0, INTAKE_PAGE).filter((delivery) => delivery.seq > after);
    }
    // Once every offer's write is done, this read covers everything offered so far.
    while (this.storing) await this.storing;
    this.offered = [];
    const epoch = this.intakeEpoch;
    const after = this.takenThrough ?? (await readStore.getCheckpoint(INTAKE_CHECKPOINT)) ?? -1;
    const found = await readStore.find<DeliveryView>(collections.deliveries, {
      range: { seq: { gt: after } },
      sort: { field: 'seq', direction: 'asc' },
      limit: INTAKE_PAGE,
    });
    this.caughtUp = found.items.length < INTAKE_PAGE;
    // Nothing new: the intake is through `after` (unless a page write failed meanwhile).
    if (found.items.length === 0 && epoch === this.intakeEpoch) this.takenThrough = after;
    return found.items.map((item) => item.data);
  }

  /**
   * Writes the page once it is ready, after the pages before it, moving the intake checkpoint with it.
   * If the write fails, the pages after it are dropped too and everything past the checkpoint is taken
   * in again (and possibly sent again: at least once).
   */
  private writeWhenReady(page: IntakePage): void {
    const epoch = this.intakeEpoch;
    this.unwrittenPages++;
    page.close(INTAKE_HOLD_MS);
    this.intakeWrites = this.intakeWrites
      .then(() => page.ready)
      .then(() => {
        if (epoch !== this.intakeEpoch) return page.discard();
        this.pendingWrites.push(...page.seal());
        this.pendingCheckpoint = page.lastSeq;
        return this.flush();
      })
      .catch((error: unknown) => {
        this.intakeEpoch++;
        this.takenThrough = null;
        this.caughtUp = false;
        this.options.logger.error(
          { err: error },
          'webhook intake write failed; taking the deliveries in again',
        );
      })
      .finally(() => {
        this.unwrittenPages--;
      });
  }

  /**
   * Starts every due attempt not already in flight (the limiter queues them per endpoint). The page
   * runs past the due entries to the first one not due yet, which tells the poll when to look again.
   */
  private async dispatchDue(): Promise<void> {
    const { readStore, clock } = this.options;
    const now = clock().getTime();
    const page = await readStore.find<DeliveryLogEntry>(DELIVERY_LOG, {
      where: { status: 'pending' },
      sort: { field: 'next_attempt_at', direction: 'asc' },
      limit: DUE_PAGE,
    });
    let nextAt: number | null = page.items.length < DUE_PAGE ? Number.POSITIVE_INFINITY : null;
    for (const document of page.items) {
      const at = dueTime(document.data);
      if (at > now) {
        nextAt = at;
        break;
      }
      this.begin(document);
    }
    this.due.looked(nextAt);
    if (nextAt === null) this.backlog = true;
  }

  /**
   * Starts one attempt unless it is already in flight (the limiter queues it per endpoint). A delivery
   * just taken in comes with its body and the page holding its entry.
   */
  private begin(document: LogDocument, taken?: { body: string; page: IntakePage }): void {
    if (this.inFlight.has(document.id) || this.stopped) return;
    this.inFlight.add(document.id);
    this.due.begun(document.id);
    taken?.page.attemptBegun();
    // The endpoint's slot is held for the request only: the result's write (on MongoDB under load,
    // up to seconds) would otherwise hold up the endpoint's next deliveries behind it.
    this.sending++;
    const attempt = this.limiter
      .run(document.data.webhook_id, () => this.attempt(document, taken))
      .finally(() => {
        this.sending--;
        if (this.backlog && this.sending < DUE_PAGE / 2) {
          this.backlog = false;
          this.wakeForDue();
        }
      })
      .then(async ({ updated, attempt: made }) => {
        await this.record(document, updated, taken?.page);
        if (made) this.options.onAttempt?.(updated, made);
      })
      .catch((error: unknown) =>
        this.options.logger.error({ err: error, delivery: document.id }, 'webhook attempt failed to record'),
      )
      .finally(() => {
        this.inFlight.delete(document.id);
        this.attempts.delete(attempt);
        taken?.page.attemptEnded();
      });
    this.attempts.add(attempt);
  }

  /** The consumer wrote these webhooks anew: read them again before the next attempt. */
  forgetWebhooks(webhookIds: readonly string[]): void {
    for (const id of webhookIds) this.webhooks.delete(id);
  }

  /**
   * The consumer of this process was assigned the bus's events anew: it sees every webhook change
   * from now on only if it takes every event. What was kept is forgotten either way, since another
   * consumer may have changed webhooks meanwhile.
   */
  followWebhookChanges(followed: boolean): void {
    this.webhookChangesFollowed = followed;
    this.webhooks.clear();
  }

  private webhookOf(webhookId: string): Promise<WebhookView | null> {
    const { readStore, collections } = this.options;
    const { webhookChangesFollowed } = this;
    const known = this.webhooks.get(webhookId);
    if (known) return known;
    const read = readStore
      .get<WebhookView>(collections.webhooks, webhookId)
      .then((found) => found?.data ?? null);
    if (webhookChangesFollowed) {
      if (this.webhooks.size >= MAX_WEBHOOKS) this.webhooks.clear();
      this.webhooks.set(webhookId, read);
      // A failed read is not kept: the next attempt reads again.
      read.catch(() => this.webhooks.get(webhookId) === read && this.webhooks.delete(webhookId));
    }
    return read;
  }

  /** Makes one attempt (or cancels a delivery whose webhook is gone): the entry it leaves, not yet recorded. */
  private async attempt(
    document: LogDocument,
    taken?: { body: string },
  ): Promise<{ updated: DeliveryLogEntry; attempt: AttemptRecord | null }> {
    const { clock } = this.options;
    const entry = document.data;
    const webhook = await this.webhookOf(entry.webhook_id);
    if (!webhook || webhook.removed_at !== null)
      return { updated: { ...entry, status: 'cancelled', next_attempt_at: null }, attempt: null };
    const number = entry.attempts.length + 1;
    const startedAt = clock();
    // A delivery that cannot even be sent (a secret that no longer opens, an oversize body, a body
    // no longer found) is a failed attempt like any other: it must run out of attempts, not stay
    // pending forever.
    const result = await (async () => {
      const body = taken?.body ?? (await this.bodies.of(entry));
      return this.send(entry, webhook, number, body);
    })().catch(
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
    return { updated: { ...entry, ...next, attempts }, attempt };
  }

  private async send(
    entry: DeliveryLogEntry,
    webhook: WebhookView,
    attempt: number,
    text: string,
  ): Promise<DeliveryResult> {
    const body = Buffer.from(text, 'utf8');
    const secret = this.secretOf(webhook);
    return this.deliver({
      url: webhook.url,
      body,
      guard: this.options.guard,
      pools: this.pools,
      timeoutMs: this.options.timeoutMs ?? 10_000,
      headers: {
        [SIGNATURE_HEADER]: signatureHeader(secret, body),
        [EVENT_ID_HEADER]: entry.event_id,
        [EVENT_TYPE_HEADER]: entry.event_type,
        [WEBHOOK_ID_HEADER]: entry.webhook_id,
        [DELIVERY_ID_HEADER]: entry.delivery_id,
        [DELIVERY_ATTEMPT_HEADER]: String(attempt),
      },
    });
  }

  private secretOf(webhook: WebhookView): string {
    const key = `${webhook.webhook_id}\u0000${webhook.secret_sealed}`;
    let secret = this.secrets.get(key);
    if (secret === undefined) {
      secret = openSecret(this.options.secretKey, webhook.webhook_id, webhook.secret_sealed);
      if (this.secrets.size >= MAX_SECRETS) this.secrets.clear();
      this.secrets.set(key, secret);
    }
    return secret;
  }

  /**
   * The delivery's new state: folded into its intake page while that is not written yet, else queued
   * as its own write; writes are grouped into one read-store apply per tick.
   */
  private record(document: LogDocument, data: DeliveryLogEntry, page?: IntakePage): Promise<void> {
    this.due.recordedEntry(document.id, data.status === 'pending' ? dueTime(data) : null);
    if (page?.fold(document, data)) return Promise.resolve();
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
      const checkpoint = this.pendingCheckpoint;
      this.pendingWrites = [];
      this.pendingCheckpoint = null;
      this.flushing = null;
      if (writes.length === 0 && checkpoint === null) return;
      await this.options.readStore.apply(
        writes,
        checkpoint === null ? undefined : { projector: INTAKE_CHECKPOINT, position: checkpoint },
      );
    });
    return this.flushing;
  }
}

/** When a pending entry is due (ms); one without a time is due at once. */
function dueTime(entry: DeliveryLogEntry): number {
  return entry.next_attempt_at === null ? Number.NEGATIVE_INFINITY : Date.parse(entry.next_attempt_at);
}
