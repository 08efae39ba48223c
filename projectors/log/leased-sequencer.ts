/**
 * Several sequencer processes may run; exactly one writes. Each stands by until it takes the
 * `merkle-log` lease, then rebuilds the tree from the event store and sequences until it stops or
 * loses the lease (a paused process whose lease lapsed). The lease keeps standbys from signing in
 * vain; safety does not rest on it: every tree head is appended with the expected revision of the log
 * stream, so a writer that lost the lease without knowing it fails its next append and no leaf index
 * is ever assigned twice.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { LeaseManager } from '../../ports/lease';
import { SingleWriterLease } from '../engine/single-writer-lease';
import { LOG_STREAM, type LogSequencer } from './log-sequencer';

export interface LeasedSequencerOptions {
  leases: LeaseManager;
  /** A fresh sequencer each time this process becomes the writer (it rebuilds from the store). */
  createSequencer(): LogSequencer;
  logger: Logger;
  /** How long a writer that stopped renewing (SIGKILL) holds up a standby. */
  ttlMs?: number;
  owner?: string;
  /** Told when this process has become the writer (its tree rebuilt) and when it stops being one. */
  onRoleChange?(writer: LogSequencer | null): void;
}

export class LeasedSequencer {
  private sequencer: LogSequencer | null = null;
  private endTerm: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly stopSignal = new AbortController();
  private readonly lease: SingleWriterLease;

  constructor(private readonly options: LeasedSequencerOptions) {
    this.lease = new SingleWriterLease({
      leases: options.leases,
      name: LOG_STREAM,
      owner: options.owner ?? `${process.pid}-${randomUUID().slice(0, 8)}`,
      ttlMs: options.ttlMs ?? 5000,
      logger: options.logger,
      signal: this.stopSignal.signal,
    });
  }

  /** The running sequencer while this process is the writer. */
  get writer(): LogSequencer | null {
    return this.sequencer;
  }

  /** Starts contending for the lease; resolves at once (a standby may wait long). */
  start(): void {
    this.loop = this.lease.run(
      () => this.sequence(),
      () => this.endTerm?.(),
    );
  }

  async stop(): Promise<void> {
    this.stopSignal.abort();
    this.endTerm?.();
    await this.loop;
    await this.lease.release();
  }

  /** One term as the writer: sequence until the lease is lost or the process stops. */
  private async sequence(): Promise<void> {
    const sequencer = this.options.createSequencer();
    this.sequencer = sequencer;
    const ended = new Promise<void>((resolve) => {
      this.endTerm = resolve;
    });
    // Rebuilding may take longer than the lease: it runs while the lease is renewed in the background.
    sequencer.start().then(
      () => this.options.onRoleChange?.(sequencer),
      (error: unknown) => this.options.logger.error({ err: error }, 'the sequencer failed to start'),
    );
    if (!this.stopSignal.signal.aborted) await ended;
    this.endTerm = null;
    this.sequencer = null;
    await sequencer.stop();
    this.options.onRoleChange?.(null);
  }
}
