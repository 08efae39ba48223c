/**
 * Exclusive, expiring, fenced leases: how a single-writer projector makes sure that two running
 * instances never both write. Each grant carries an epoch (fencing token) that grows with every
 * change of owner; the read store refuses an `apply` fenced with a stale grant, so an instance that
 * paused past its lease (GC, SIGSTOP) cannot write after another has taken over.
 */
export interface LeaseGrant {
  name: string;
  owner: string;
  epoch: number;
  /** Milliseconds since the epoch when the grant lapses unless renewed. */
  expiresAt: number;
}

export interface LeaseManager {
  /** Take the lease if it is free or lapsed (or already ours); null when another owner holds it. */
  acquire(name: string, owner: string, ttlMs: number): Promise<LeaseGrant | null>;
  /** Extend our grant; null when it was lost (lapsed and taken by another owner). */
  renew(grant: LeaseGrant, ttlMs: number): Promise<LeaseGrant | null>;
  /** Give the lease up so a standby can take it at once. */
  release(grant: LeaseGrant): Promise<void>;
  /** The owner of the lease's live grant; null when it is free, lapsed or released. Writes nothing. */
  holder(name: string): Promise<string | null>;
}

/** A write fenced with a grant that is no longer current. Nothing of it was stored. */
export class FencedOutError extends Error {
  override readonly name = 'FencedOutError';
  constructor(
    readonly lease: string,
    readonly epoch: number,
  ) {
    super(
      `lease '${lease}' epoch ${epoch} is no longer current: another instance holds it; nothing was written`,
    );
  }
}
