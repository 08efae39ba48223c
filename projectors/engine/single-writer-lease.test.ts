import pino from 'pino';
import type { LeaseGrant, LeaseManager } from '../../ports/lease';
import { SingleWriterLease } from './single-writer-lease';

/** Leases that are always free, recording when each renewal is asked for. */
function recordingLeases(renewedAt: Map<string, number[]>): LeaseManager {
  return {
    acquire: async (name, owner, ttlMs) => ({ name, owner, epoch: 1, expiresAt: Date.now() + ttlMs }),
    renew: async (grant: LeaseGrant, ttlMs) => {
      renewedAt.set(grant.name, [...(renewedAt.get(grant.name) ?? []), Date.now()]);
      return { ...grant, expiresAt: Date.now() + ttlMs };
    },
    release: async () => undefined,
    holder: async () => null,
  };
}

describe('SingleWriterLease', () => {
  it('given leases of one process taken at different moments, then each is renewed at the same moments', async () => {
    const renewedAt = new Map<string, number[]>();
    const leases = recordingLeases(renewedAt);
    const stop = new AbortController();
    const ttlMs = 600;
    const terms: Promise<void>[] = [];
    for (const [i, name] of ['p', 'q', 'r'].entries()) {
      await new Promise((resolve) => setTimeout(resolve, 70 * i));
      const lease = new SingleWriterLease({
        leases,
        name,
        owner: 'a',
        ttlMs,
        logger: pino({ level: 'silent' }),
        signal: stop.signal,
      });
      terms.push(
        lease.run(
          () => new Promise((resolve) => stop.signal.addEventListener('abort', () => resolve())),
          () => undefined,
        ),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 900));
    stop.abort();
    await Promise.all(terms);
    const [p = [], q = [], r = []] = ['p', 'q', 'r'].map((name) => renewedAt.get(name));
    for (const times of [p, q, r]) expect(times.length).toBeGreaterThanOrEqual(3);
    // Taken 70 ms apart, renewed together: each renewal of one lease has one of the first beside it.
    const nearestOfFirst = (at: number) => Math.min(...p.map((other) => Math.abs(other - at)));
    for (const at of [...q, ...r]) expect(nearestOfFirst(at)).toBeLessThan(20);
  });
});
