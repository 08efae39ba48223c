import { sleep } from '../runtime/support/sleep';
import type { RoundOutcome, WitnessFollower } from './follower';

export interface FollowOptions {
  follower: Pick<WitnessFollower, 'round'>;
  /** Pause between the end of one round and the start of the next. */
  intervalMs: number;
  /** Stops the loop (between rounds, or during the pause). */
  signal: AbortSignal;
  onOutcome(outcome: RoundOutcome): void;
  /** A round that could not finish (log unreachable, HTTP error…); the next round retries. */
  onError(error: unknown): void;
}

/**
 * Runs rounds until `signal` aborts. A refusal does not stop the loop: the witness keeps refusing that
 * log's forked views round after round, and cosigns again only if the log comes back to a tree
 * consistent with what it cosigned.
 */
export async function followLog(options: FollowOptions): Promise<void> {
  const { follower, intervalMs, signal } = options;
  while (!signal.aborted) {
    try {
      options.onOutcome(await follower.round());
    } catch (error) {
      options.onError(error);
    }
    await sleep(intervalMs, signal);
  }
}
