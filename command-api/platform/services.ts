import type { KeyObject } from 'node:crypto';
import type { UpstreamCheck } from '../../runtime/core/health-checks';
import type { CoreServices } from '../../runtime/core/services';

/**
 * What the agent platform's routes and handlers use: the shared core (the same event store, read
 * store and logs as the clearinghouse) and the platform's own parts. Each feature adds its parts here;
 * runtime/wiring/compose-platform.ts builds them.
 */
export interface PlatformServices extends CoreServices {
  /** The node's key: platform records are signed with it, as the clearinghouse's envelopes are. */
  authority: { privateKey: KeyObject; publicKey: KeyObject; nodeId: string };
  /**
   * What `GET /health` asks beyond the stores, as the process's deployment reaches them: the bus (where
   * this process has one), the shared log's sequencer, the clearinghouse.
   */
  upstream: PlatformUpstream;
}

export interface PlatformUpstream {
  bus?: UpstreamCheck;
  log_sequencer: UpstreamCheck;
  clearinghouse: UpstreamCheck;
}
