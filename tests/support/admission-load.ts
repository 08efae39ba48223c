/**
 * Concurrent admission load for fault tests: several lanes submit valid evidence in a loop while
 * faults are injected, keeping every 201 body (each a promise the service made) and every other
 * answer, and a watcher keeps the signed tree heads the public log serves meanwhile.
 */
import type { JsonSth } from '../../domain/log';
import { type AdmittedEvidence, type Answer, type GovClient, validEvidence } from './governance-client';

/** An answer other than 201, or a request that got no answer (status 0). */
export interface OtherAnswer {
  status: number;
  body: unknown;
  text: string;
}

export interface AdmissionLoadOptions {
  /** The command APIs to send to (one is picked at random per request); read on every request. */
  targets: () => readonly GovClient[];
  apiKey: string;
  /** Requests in flight at once. */
  concurrency: number;
  /**
   * At most this many submissions a second over all lanes (none by default): a fault test's work then
   * stays the same whatever the speed of what it runs against.
   */
  perSecond?: number;
  /** Where GET {logPath}/sth is polled while the load runs; null: no polling. */
  log?: () => GovClient | null;
  /** The path of the log the tenant admits to: `/gov/v1/log` (the default) or `/gov/v1/logs/<name>`. */
  logPath?: string;
  subjects?: number;
}

export class AdmissionLoad {
  /** Every 201 body, in arrival order. */
  readonly admitted: AdmittedEvidence[] = [];
  readonly others: OtherAnswer[] = [];
  /** Every STH GET {logPath}/sth answered while the load ran. */
  readonly servedHeads: JsonSth[] = [];
  private running = false;
  private lanes: Promise<void>[] = [];
  private submitted = 0;

  constructor(private readonly options: AdmissionLoadOptions) {}

  start(): this {
    this.running = true;
    this.lanes = Array.from({ length: this.options.concurrency }, () => this.lane());
    if (this.options.log) this.lanes.push(this.watchHeads());
    return this;
  }

  /** Stops sending and waits for every request in flight to be answered. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.lanes);
  }

  /** Resolves once `count` more admissions than now have been acknowledged. */
  async admitMore(count: number, timeoutMs = 60_000): Promise<void> {
    const target = this.admitted.length + count;
    const deadline = Date.now() + timeoutMs;
    while (this.admitted.length < target) {
      if (Date.now() > deadline)
        throw new Error(
          `only ${this.admitted.length} of ${target} admissions acknowledged in ${timeoutMs} ms; ` +
            `other answers by status: ${JSON.stringify(this.statusCounts())}, the last: ${this.others.at(-1)?.text.slice(0, 300)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** How many answers of each status other than 201 (0: no answer). */
  statusCounts(): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const other of this.others) counts[other.status] = (counts[other.status] ?? 0) + 1;
    return counts;
  }

  private async lane(): Promise<void> {
    const interval = this.options.perSecond ? (1000 * this.options.concurrency) / this.options.perSecond : 0;
    let started = 0;
    while (this.running) {
      const wait = started + interval - Date.now();
      if (wait > 0) await pause(wait);
      started = Date.now();
      const targets = this.options.targets();
      const target = targets[Math.floor(Math.random() * targets.length)];
      if (!target) {
        await pause(50);
        continue;
      }
      const n = this.submitted++;
      const res = await target
        .submitEvidence(this.options.apiKey, validEvidence(`fault-${n % (this.options.subjects ?? 16)}`))
        .catch((error: Error): Answer<null> => noAnswer(error));
      if (res.status === 201) this.admitted.push(res.body as AdmittedEvidence);
      else {
        this.others.push({ status: res.status, body: res.body, text: res.text });
        // A server that is down or failing is not hammered.
        await pause(res.status === 0 ? 50 : 20);
      }
    }
  }

  private async watchHeads(): Promise<void> {
    while (this.running) {
      const log = this.options.log?.();
      const res = await log?.get<JsonSth>(`${this.options.logPath ?? '/gov/v1/log'}/sth`).catch(() => null);
      if (res?.status === 200) this.servedHeads.push(res.body);
      await pause(200);
    }
  }
}

function noAnswer(error: Error): Answer<null> {
  return {
    status: 0,
    headers: new Headers(),
    text: `${error.message} (${String(error.cause)})`,
    body: null,
  };
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
