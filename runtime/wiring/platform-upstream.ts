/**
 * How the platform's `GET /health` reaches its upstreams beyond the stores, in each deployment: the
 * shared log's sequencer in this process (embedded) or under its lease in another (the topology), and
 * the clearinghouse beside it in this process or at its URL.
 */
import type http from 'node:http';
import { SHARED_LOG_NAME } from '../../domain/log';
import type { LeaseManager } from '../../ports/lease';
import type { LogName } from '../../ports/log';
import { leaseOfLog } from '../../projectors/log/leased-sequencer';
import type { UpstreamCheck } from '../core/health-checks';

/** The sequencer of this process writes the shared log (a writer that failed is dropped until rebuilt). */
export function sequencerWritingHere(sequencer: { writing(): LogName[] }): UpstreamCheck {
  return async () => {
    if (!sequencer.writing().includes(SHARED_LOG_NAME))
      throw new Error('the sequencer of this process does not write the shared log');
  };
}

/**
 * A sequencer process holds the shared log's lease: it renews it while it runs, so a live grant
 * means a live writer (a killed one's grant lapses after GOV_LEASE_TTL_MS).
 */
export function sequencerLeaseHeld(leases: LeaseManager): UpstreamCheck {
  return async () => {
    if ((await leases.holder(leaseOfLog(SHARED_LOG_NAME))) === null)
      throw new Error('no sequencer process holds the shared log lease');
  };
}

/**
 * The clearinghouse in this process: its HTTP server listens, on the stores the platform's own
 * health already asks (its /health asks nothing else).
 */
export function clearinghouseListening(server: http.Server): UpstreamCheck {
  return async () => {
    if (!server.listening) throw new Error('the clearinghouse server of this process is not listening');
  };
}

/** The clearinghouse at `url` (another process): its `GET /health` answers 200. */
export function clearinghouseAt(url: string, timeoutMs: number): UpstreamCheck {
  return async () => {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    if (response.status !== 200) throw new Error(`the clearinghouse's /health answered ${response.status}`);
  };
}
