/**
 * Several sequencer processes may run; each log has exactly one writer. A process contends for a lease
 * per log (`merkle-log` for the shared log, `merkle-log-<name>` for the others) and sequences the logs
 * whose lease it holds, all from its one subscription (log-sequencer.ts); when it loses a lease (a
 * paused process whose lease lapsed) it stops writing that log. The lease keeps standbys from signing in
 * vain; safety does not rest on it: every tree head is appended with the expected revision of its log's
 * stream, so a writer that lost the lease without knowing it fails its next append and no leaf index
 * is ever assigned twice.
 *
 * The logs spread across the processes without a membership list: a process holding k leases waits
 * k × ttl / 20 before each attempt to take another (one attempt at a time), so a process holding fewer
 * takes a free lease first and two processes alternate. When one dies, the other takes its leases over
 * once they lapse. Leases held are never free, so a process started later (a restart after a kill)
 * would get none: while it holds no log of two or more it holds the lease `WANTED_LEASE`, and a
 * process holding two or more logs that sees it held by another hands one over (leaves it, releases
 * its lease, and stays out of it for a TTL, so that the wanting process takes it).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { SHARED_LOG_NAME, treeHeadStreamOf } from '../../domain/log';
import type { LeaseGrant, LeaseManager } from '../../ports/lease';
import type { LogName } from '../../ports/log';
import { sleep } from '../../runtime/support/sleep';
import { SingleWriterLease } from '../engine/single-writer-lease';
import { LogSequencer, type LogSequencerOptions } from './log-sequencer';

/** Per lease held, the share of the TTL a process waits before trying to take another. */
const SPREAD = 1 / 20;

/** Held by a sequencer process that writes no log while there are two or more. */
export const WANTED_LEASE = 'sequencer-wants-a-log';

export interface LeasedSequencerOptions {
  leases: LeaseManager;
  /** The sequencer's options; it writes the logs whose lease this process holds. */
  sequencer: Omit<LogSequencerOptions, 'writes' | 'onLearned'>;
  logger: Logger;
  /** How long a writer that stopped renewing (SIGKILL) holds up a standby. */
  ttlMs?: number;
  owner?: string;
  /** Told of the logs this process writes whenever that changes. */
  onRoleChange?(writing: readonly LogName[]): void;
}

/** The lease of log `name`: the name of its tree-head stream. */
export function leaseOfLog(name: LogName): string {
  return treeHeadStreamOf(name);
}

export class LeasedSequencer {
  readonly sequencer: LogSequencer;
  private readonly terms = new Map<LogName, { lease: SingleWriterLease; loop: Promise<void> }>();
  private readonly endTerms = new Map<LogName, () => void>();
  private readonly held = new Set<LogName>();
  /** Logs being handed over to a process that wants one (see `balance`). */
  private readonly handingOver = new Set<LogName>();
  private wanted: LeaseGrant | null = null;
  private balancing: Promise<void> = Promise.resolve();
  private attempts: Promise<unknown> = Promise.resolve();
  private readonly stopSignal = new AbortController();
  private readonly owner: string;
  private readonly ttlMs: number;
  private started = false;

  constructor(private readonly options: LeasedSequencerOptions) {
    this.owner = options.owner ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
    this.ttlMs = options.ttlMs ?? 5000;
    this.sequencer = new LogSequencer({
      ...options.sequencer,
      writes: 'joined',
      onLearned: (log) => this.contend(log.name),
    });
  }

  /** The logs this process writes now. */
  writing(): LogName[] {
    return this.sequencer.writing();
  }

  /** Each known log's lease and whether this process writes it, for /health. */
  leaseStates(): Record<string, 'writer' | 'standby'> {
    const writing = new Set(this.sequencer.writing());
    return Object.fromEntries(
      this.sequencer.list().map(({ name }) => [leaseOfLog(name), writing.has(name) ? 'writer' : 'standby']),
    );
  }

  /** Starts following the logs and contending for their leases; resolves once the logs are learned. */
  async start(): Promise<void> {
    this.started = true;
    for (const { name } of this.sequencer.list()) this.contend(name);
    await this.sequencer.start();
    this.balancing = this.balance();
  }

  async stop(): Promise<void> {
    this.stopSignal.abort();
    for (const end of this.endTerms.values()) end();
    await this.balancing;
    await Promise.all([...this.terms.values()].map((term) => term.loop));
    await Promise.all([...this.terms.values()].map((term) => term.lease.release()));
    await this.sequencer.stop();
  }

  /** Contends for the lease of log `name` until stopped (once per log). */
  private contend(name: LogName): void {
    if (!this.started || this.terms.has(name) || this.stopSignal.signal.aborted) return;
    const lease = new SingleWriterLease({
      leases: this.options.leases,
      name: leaseOfLog(name),
      owner: this.owner,
      ttlMs: this.ttlMs,
      logger: this.options.logger,
      signal: this.stopSignal.signal,
      attempt: (acquire) => this.takeTurns(acquire),
    });
    const loop = lease.run(
      () => this.term(name),
      () => this.endTerms.get(name)?.(),
    );
    this.terms.set(name, { lease, loop });
  }

  /** One attempt at a time, after a wait that grows with the leases this process holds. */
  private takeTurns(acquire: () => Promise<LeaseGrant | null>): Promise<LeaseGrant | null> {
    const turn = this.attempts.then(async () => {
      await sleep(this.held.size * SPREAD * this.ttlMs, this.stopSignal.signal);
      return acquire();
    });
    this.attempts = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Every third of a TTL: holds `WANTED_LEASE` while this process writes none of two or more logs;
   * hands a log over while it writes two or more and another process holds `WANTED_LEASE`.
   */
  private async balance(): Promise<void> {
    const { leases, logger } = this.options;
    const signal = this.stopSignal.signal;
    while (!signal.aborted) {
      await sleep(this.ttlMs / 3, signal);
      if (signal.aborted) break;
      try {
        if (this.held.size === 0 && this.sequencer.list().length >= 2)
          this.wanted = await leases.acquire(WANTED_LEASE, this.owner, this.ttlMs);
        else if (this.wanted) {
          const grant = this.wanted;
          this.wanted = null;
          await leases.release(grant);
        }
        if (this.held.size >= 2 && this.handingOver.size === 0) {
          const wanting = await leases.holder(WANTED_LEASE);
          if (wanting !== null && wanting !== this.owner) {
            // The shared log, the busiest, stays: moving a log pauses its admissions for a moment.
            const name = [...this.held].filter((log) => log !== SHARED_LOG_NAME).at(-1)!;
            logger.info({ log: name, to: wanting }, 'handing a log over to a sequencer that writes none');
            this.handingOver.add(name);
            this.endTerms.get(name)?.();
          }
        }
      } catch (error) {
        logger.error(
          { lease: WANTED_LEASE, err: error },
          'could not reach the lease store to balance the logs',
        );
      }
    }
    if (this.wanted) await leases.release(this.wanted).catch(() => undefined);
  }

  /** One term as the writer of log `name`: sequence it until the lease is lost or the process stops. */
  private async term(name: LogName): Promise<void> {
    this.held.add(name);
    const ended = new Promise<void>((resolve) => this.endTerms.set(name, resolve));
    // Rebuilding may take longer than the lease: it runs while the lease is renewed in the background.
    this.sequencer.join(name).then(
      () => this.options.onRoleChange?.(this.writing()),
      (error: unknown) => {
        this.options.logger.error({ err: error, log: name }, 'the sequencer failed to take up the log');
        failed = true;
        this.endTerms.get(name)?.();
      },
    );
    let failed = false;
    if (!this.stopSignal.signal.aborted) await ended;
    // Not at once again: the store may be failing.
    if (failed) await sleep(500, this.stopSignal.signal);
    this.endTerms.delete(name);
    this.held.delete(name);
    await this.sequencer.leave(name);
    this.options.onRoleChange?.(this.writing());
    if (this.handingOver.has(name)) {
      // Released once no longer written, and not contended for a TTL: the wanting process takes it.
      await this.terms.get(name)?.lease.release();
      await sleep(this.ttlMs, this.stopSignal.signal);
      this.handingOver.delete(name);
    }
  }
}
