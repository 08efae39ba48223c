import type { Logger } from 'pino';
import type { LeaseGrant, LeaseManager } from '../../ports/lease';
import { sleep } from '../../runtime/support/sleep';

export interface SingleWriterLeaseOptions {
  leases: LeaseManager;
  /** The lease's name: one writer per name. */
  name: string;
  owner: string;
  ttlMs: number;
  logger: Logger;
  /** Aborted on stop: standing by ends at once, a term in progress is left to end by itself. */
  signal: AbortSignal;
  /**
   * Wraps each attempt to take the lease (default: none): where one process contends for many
   * leases, it can take turns with the other processes (leased-sequencer.ts).
   */
  attempt?(acquire: () => Promise<LeaseGrant | null>): Promise<LeaseGrant | null>;
}

/**
 * How a single-writer follower of the event store takes turns with its standbys: stand by until the
 * lease is free, work while holding it (renewed in the background), stand by again once it is lost.
 * Writes are fenced with `grant`, so one that a paused instance makes after losing it is refused.
 */
export class SingleWriterLease {
  private current: LeaseGrant | null = null;

  constructor(private readonly options: SingleWriterLeaseOptions) {}

  /** The grant to fence writes with while the lease is held; null while standing by. */
  get grant(): LeaseGrant | null {
    return this.current;
  }

  /**
   * Until the signal aborts: takes the lease when it is free and runs `term` while holding it. When a
   * renewal finds the lease taken by another owner, `onLost` is called so that the term ends.
   */
  async run(term: (grant: LeaseGrant) => Promise<void>, onLost: () => unknown): Promise<void> {
    const { leases, name, owner, ttlMs, logger, signal } = this.options;
    while (!signal.aborted) {
      let grant: LeaseGrant | null = null;
      try {
        const acquire = () => leases.acquire(name, owner, ttlMs);
        grant = await (this.options.attempt ? this.options.attempt(acquire) : acquire());
      } catch (error) {
        logger.error({ lease: name, err: error }, 'could not reach the lease store; standing by');
      }
      if (!grant) {
        await sleep(ttlMs / 3, signal);
        continue;
      }
      // Kept even when stopping, so that `release` hands it over at once.
      this.current = grant;
      if (signal.aborted) break;
      logger.info({ lease: name, owner, epoch: grant.epoch }, 'acquired the single-writer lease');
      const renewal = alignedTicks(ttlMs / 3, () => void this.renew(onLost));
      try {
        await term(grant);
      } finally {
        renewal.stop();
      }
    }
  }

  /** A fenced write was refused: another instance holds the lease, so stop writing. */
  lose(): void {
    this.current = null;
  }

  /** Gives the lease up (once `run` returned) so that a standby takes over at once. */
  async release(): Promise<void> {
    const grant = this.current;
    this.current = null;
    if (grant) await this.options.leases.release(grant);
  }

  private async renew(onLost: () => unknown): Promise<void> {
    const { leases, name, ttlMs, logger } = this.options;
    const held = this.current;
    if (!held) return;
    let renewed: LeaseGrant | null;
    try {
      renewed = await leases.renew(held, ttlMs);
    } catch (error) {
      // Writes stay fenced: if the lease lapses meanwhile, the store refuses them.
      logger.error({ lease: name, err: error }, 'could not renew the single-writer lease');
      return;
    }
    if (this.current !== held) return;
    if (renewed) {
      this.current = renewed;
      return;
    }
    logger.warn({ lease: name }, 'lost the single-writer lease; standing by');
    this.current = null;
    await onLost();
  }
}

/**
 * Calls `tick` every `periodMs`, at multiples of it on the wall clock: the leases of one process held
 * with one TTL are renewed at the same moments, which a lease store can answer with one write for
 * all of them (MongoLeaseManager groups the renewals asked for at once).
 */
function alignedTicks(periodMs: number, tick: () => void): { stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const next = () => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        next();
        tick();
      },
      periodMs - (Date.now() % periodMs),
    );
    timer.unref();
  };
  next();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
