/**
 * Tells a process's remembered key lookups (runtime/http/recent-keys.ts) of every change to a
 * tenant's keys or tier, as the event store records it: a rotation, a tier change. It follows the
 * store from its head at start (nothing is remembered before), woken by appends as any subscription
 * is. While it runs the lookups are kept long; when its subscription fails they are kept a second
 * again until it follows once more.
 */
import type { Logger } from 'pino';
import type { EventStore, EventSubscription } from '../../../ports/event-store';
import type { RecentKeys } from '../../../runtime/http/recent-keys';
import { sleep } from '../../../runtime/support/sleep';

/** The events that change what a remembered lookup holds: a key's expiry, a tenant's tier. */
const KEY_CHANGE_EVENT_TYPES = ['ApiKeyRotated', 'TenantTierChanged'] as const;

export interface KeyChangeFeed {
  stop(): Promise<void>;
}

export function followKeyChanges(
  eventStore: EventStore,
  recent: RecentKeys,
  logger: Logger,
  retryDelayMs = 1000,
): KeyChangeFeed {
  const stopped = new AbortController();
  let subscription: EventSubscription | null = null;
  let after: number | null = null;
  const run = async () => {
    while (!stopped.signal.aborted) {
      try {
        after ??= await eventStore.headPosition({ eventTypes: KEY_CHANGE_EVENT_TYPES });
        subscription = eventStore.subscribeToAll({ after, filter: { eventTypes: KEY_CHANGE_EVENT_TYPES } });
        if (stopped.signal.aborted) await subscription.close();
        recent.follow(true);
        for await (const batch of subscription) {
          for (const event of batch) recent.changed(event.tenant_id, event.position);
          after = batch[batch.length - 1]!.position;
        }
      } catch (error) {
        logger.warn(
          { err: error },
          'following key changes failed; remembering key lookups a second meanwhile',
        );
      } finally {
        recent.follow(false);
      }
      await sleep(retryDelayMs, stopped.signal);
    }
  };
  const running = run();
  return {
    async stop() {
      stopped.abort();
      await subscription?.close();
      await running;
    },
  };
}
